import type { Metadata } from 'next';
import { LedgerView } from '@/components/ledger/LedgerView';
import { Code } from '@/components/ui/Notice';
import { PageHeader } from '@/components/ui/PageHeader';
import { serverCaller, settle } from '@/server/trpc/caller';

export const metadata: Metadata = { title: 'Ledger' };
export const dynamic = 'force-dynamic';

export default async function LedgerPage() {
  const [report, entries] = await Promise.all([settle(() => serverCaller().ledger.report({})), settle(() => serverCaller().ledger.entries())]);
  return (
    <>
      <PageHeader
        title="Token ledger"
        description={
          <>
            Every message and spawn, counted (<Code>protocol/ledger.jsonl</Code>), against the v1 baselines (<Code>protocol/baselines.json</Code>). No
            percentage here is typed in: each is computed from those two files.
          </>
        }
      />
      <LedgerView initialReport={report} initialEntries={entries} />
    </>
  );
}
