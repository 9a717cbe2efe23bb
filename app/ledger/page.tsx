import type { Metadata } from 'next';
import { LedgerView } from '@/components/ledger/LedgerView';
import { Code } from '@/components/ui/Notice';
import { PageHeader } from '@/components/ui/PageHeader';
import { serverCaller, settle } from '@/server/trpc/caller';

export const metadata: Metadata = { title: 'Ledger' };
export const dynamic = 'force-dynamic';

export default async function LedgerPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const param = (await searchParams).run;
  const run = (Array.isArray(param) ? param[0] : param) ?? '';
  const input = run ? { run } : {};
  const [report, entries] = await Promise.all([settle(() => serverCaller().ledger.report(input)), settle(() => serverCaller().ledger.entries({ ...input, limit: 25 }))]);
  return (
    <>
      <PageHeader
        title="Token ledger"
        description={
          <>
            Every message and spawn, counted (<Code>protocol/ledger.jsonl</Code>), one run at a time: each run against its own v1 lines, beside its
            record (<Code>protocol/runs/</Code>). No percentage here is typed in: each is computed from those files.
          </>
        }
      />
      <LedgerView initialRun={run} initialReport={report} initialEntries={entries} />
    </>
  );
}
