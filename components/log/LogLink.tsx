import Link from 'next/link';
import type { LogRef } from '@/components/trpc/types';
import { cx } from '@/components/ui/cx';
import { logHref } from './links';

/** "Log lines": from an object's page back to the protocol.log lines that name it. */
export function LogLink({ kind, id, className, label = 'Log' }: { kind: LogRef['kind']; id: string; className?: string; label?: string }) {
  return (
    <Link href={logHref(kind, id)} className={cx('text-xs font-medium text-indigo-600 hover:text-indigo-800 hover:underline', className)} aria-label={`protocol.log lines naming ${kind} ${id}`} data-log-link={`${kind}:${id}`}>
      {label}
    </Link>
  );
}
