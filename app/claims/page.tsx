import type { Metadata } from 'next';
import { ClaimsView } from '@/components/claims/ClaimsView';
import { filterOf } from '@/components/claims/filter';
import { Code } from '@/components/ui/Notice';
import { PageHeader } from '@/components/ui/PageHeader';
import { serverCaller, settle } from '@/server/trpc/caller';

export const metadata: Metadata = { title: 'Claims' };
export const dynamic = 'force-dynamic';

const one = (v: string | string[] | undefined) => (typeof v === 'string' ? v : undefined);

export default async function ClaimsPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const params = await searchParams;
  const filter = filterOf(one(params.status), one(params.haid) !== undefined || one(params.claim) !== undefined);
  const [claims, decisions, info] = await Promise.all([
    settle(() => serverCaller().claims.board({ filter })),
    settle(() => serverCaller().claims.decisions()),
    settle(() => serverCaller().studio.info()),
  ]);
  return (
    <>
      <PageHeader
        title="Claims"
        description={
          <>
            Who holds which surfaces (<Code>ledger/claims.json</Code>), each holder by herd address and HAID (one agent, two names). A claim overlapping
            another agent&apos;s unexpired claim is refused by the gate. Releasing one here needs a reason and records a decision; released and expired
            claims stay under their own filter.
          </>
        }
      />
      <ClaimsView initial={claims} initialFilter={filter} initialDecisions={decisions} initialNow={info.ok ? info.data.now : undefined} />
    </>
  );
}
