import type { Metadata } from 'next';
import { SymbolsView } from '@/components/symbols/SymbolsView';
import { Code } from '@/components/ui/Notice';
import { PageHeader } from '@/components/ui/PageHeader';
import { serverCaller, settle } from '@/server/trpc/caller';

export const metadata: Metadata = { title: 'Symbols' };
export const dynamic = 'force-dynamic';

export default async function SymbolsPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const focus = (await searchParams).focus;
  const initial = await settle(() => serverCaller().symbols.list());
  return (
    <>
      <PageHeader
        title="Symbols"
        description={
          <>
            Short ids for recurring paths, criteria and invariants (<Code>protocol/symbols.json</Code>). Edits are written through the core: the
            file, and a line in protocol.log, exactly as <Code>heimdall-resolve set</Code> would.
          </>
        }
      />
      <SymbolsView initial={initial} focus={typeof focus === 'string' ? focus : undefined} />
    </>
  );
}
