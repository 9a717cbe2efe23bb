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
            Every agent the herd knows (<Code>herd/</Code>), most urgent first: unresponsive (no check-in for over 10 min, or never), stale (5 to 10
            min), deep work (2 to 5 min), active; then the longest silence first. Each row joins the agent&apos;s two names (herd address and HAID), its
            claims and its tasks.
          </>
        }
      />
      <AgentsView initial={initial} focus={agent} />
    </>
  );
}
