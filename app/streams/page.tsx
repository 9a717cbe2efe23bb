import type { Metadata } from 'next';
import { StreamsView } from '@/components/streams/StreamsView';
import { Code } from '@/components/ui/Notice';
import { PageHeader } from '@/components/ui/PageHeader';
import { serverCaller, settle } from '@/server/trpc/caller';

export const metadata: Metadata = { title: 'Streams' };
export const dynamic = 'force-dynamic';

export default async function StreamsPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const streamParam = (await searchParams).stream;
  const stream = typeof streamParam === 'string' ? streamParam : undefined;
  const initial = await settle(() => serverCaller().streams.overview());
  return (
    <>
      <PageHeader
        title="Wire streams"
        description={
          <>
            Wire 1.1 events per stream on the canonical log, and the task runs the reducers derive from them. The read model is a mirror: replaying
            the log rebuilds it exactly (<Code>heimdall wire replay</Code>).
          </>
        }
      />
      <StreamsView initial={initial} initialStream={stream} />
    </>
  );
}
