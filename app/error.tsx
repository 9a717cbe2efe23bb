'use client';
/** A page that failed to render shows what went wrong and a way to retry; the server keeps running. */
import { Button } from '@/components/ui/Button';
import { ErrorPanel } from '@/components/ui/Notice';

export default function PageError({ error, retry }: { error: Error & { digest?: string }; retry?: () => void }) {
  return (
    <div className="space-y-4">
      <ErrorPanel title="This page could not be shown" message={error.message || `Error ${error.digest ?? ''}`} />
      {retry && <Button onClick={() => retry()}>Try again</Button>}
    </div>
  );
}
