import type { Metadata } from 'next';
import { PeersView } from '@/components/peers/PeersView';
import { Code } from '@/components/ui/Notice';
import { PageHeader } from '@/components/ui/PageHeader';
import { serverCaller, settle } from '@/server/trpc/caller';

export const metadata: Metadata = { title: 'Peers' };
export const dynamic = 'force-dynamic';

export default async function PeersPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const peerParam = (await searchParams).peer;
  const peer = typeof peerParam === 'string' ? peerParam : undefined;
  const [peers, tasks] = await Promise.all([settle(() => serverCaller().peers.list()), settle(() => serverCaller().peers.tasks())]);
  return (
    <>
      <PageHeader
        title="Peers"
        description={
          <>
            Handshake profiles from each worker&apos;s SESSION_ANNOUNCE (<Code>handshake/peers.json</Code>): what routing knows when it picks an
            executor for a TASK_DISPATCH.
          </>
        }
      />
      <PeersView initialPeers={peers} initialTasks={tasks} focus={peer} />
    </>
  );
}
