import type { Metadata } from 'next';
import { ClaimsView } from '@/components/claims/ClaimsView';
import { Code } from '@/components/ui/Notice';
import { PageHeader } from '@/components/ui/PageHeader';
import { serverCaller, settle } from '@/server/trpc/caller';

export const metadata: Metadata = { title: 'Claims' };
export const dynamic = 'force-dynamic';

export default async function ClaimsPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const haidParam = (await searchParams).haid;
  const haid = typeof haidParam === 'string' ? haidParam : undefined;
  const [claims, decisions, info] = await Promise.all([
    settle(() => serverCaller().claims.list()),
    settle(() => serverCaller().claims.decisions()),
    settle(() => serverCaller().studio.info()),
  ]);
  return (
    <>
      <PageHeader
        title="Claims"
        description={
          <>
            Who holds which surfaces (<Code>ledger/claims.json</Code>). A claim overlapping another agent&apos;s unexpired claim is refused by the
            gate. Releasing one here records a decision.
          </>
        }
      />
      <ClaimsView initial={claims} initialDecisions={decisions} initialNow={info.ok ? info.data.now : undefined} focus={haid} />
    </>
  );
}
