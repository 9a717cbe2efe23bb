import type { Metadata } from 'next';
import { AgentsView } from '@/components/agents/AgentsView';
import { Code } from '@/components/ui/Notice';
import { PageHeader } from '@/components/ui/PageHeader';
import { serverCaller, settle } from '@/server/trpc/caller';

export const metadata: Metadata = { title: 'Agents' };
export const dynamic = 'force-dynamic';

export default async function AgentsPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const agentParam = (await searchParams).agent;
  const agent = typeof agentParam === 'string' ? agentParam : undefined;
  const initial = await settle(() => serverCaller().agents.list());
  return (
    <>
      <PageHeader
        title="Agents"
        description={
          <>
            Every agent the herd knows (<Code>herd/</Code>), by the age of its last check-in: active under 2 min, deep work to 5 min, stale to 10 min,
            then unresponsive.
          </>
        }
      />
      <AgentsView initial={initial} focus={agent} />
    </>
  );
}
