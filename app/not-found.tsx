import Link from 'next/link';
import { EmptyState } from '@/components/ui/Notice';

export default function NotFound() {
  return (
    <EmptyState title="No such page in Studio">
      <Link href="/" className="text-indigo-600 hover:underline">
        Back to the overview
      </Link>
    </EmptyState>
  );
}
