import type { Metadata } from 'next';
import { OverviewView } from '@/components/overview/OverviewView';
import { PageHeader } from '@/components/ui/PageHeader';
import { serverCaller, settle } from '@/server/trpc/caller';

export const metadata: Metadata = { title: 'Overview' };
export const dynamic = 'force-dynamic';

export default async function OverviewPage() {
  const call = serverCaller;
  const [report, log, claims, symbols, facts, capsules, agents, info] = await Promise.all([
    settle(() => call().ledger.report({})),
    settle(() => call().log.page({ limit: 12 })),
    settle(() => call().claims.list()),
    settle(() => call().symbols.list()),
    settle(() => call().blackboard.list()),
    settle(() => call().capsules.ids()),
    settle(() => call().agents.list()),
    settle(() => call().studio.info()),
  ]);
  return (
    <>
      <PageHeader title="Overview" description="What the agents saved, who is working, who holds what, and what just happened." />
      <OverviewView report={report} log={log} claims={claims} symbols={symbols} facts={facts} capsules={capsules} agents={agents} now={info.ok ? info.data.now : undefined} />
    </>
  );
}
