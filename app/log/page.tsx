import type { Metadata } from 'next';
import { LogView } from '@/components/log/LogView';
import { Code } from '@/components/ui/Notice';
import { PageHeader } from '@/components/ui/PageHeader';
import { serverCaller, settle } from '@/server/trpc/caller';

export const metadata: Metadata = { title: 'Log' };
export const dynamic = 'force-dynamic';

type Search = Promise<Record<string, string | string[] | undefined>>;

function one(v: string | string[] | undefined): string | undefined {
  const s = Array.isArray(v) ? v[0] : v;
  return s ? s.slice(0, 500) : undefined;
}

export default async function LogPage({ searchParams }: { searchParams: Search }) {
  const sp = await searchParams;
  const filter = { mechanism: one(sp.mechanism), action: one(sp.action), text: one(sp.text) };
  const [page, facets] = await Promise.all([settle(() => serverCaller().log.page({ ...filter, limit: 200 })), settle(() => serverCaller().log.facets())]);
  return (
    <>
      <PageHeader
        title="Protocol log"
        description={
          <>
            Every action of every mechanism, from every transport, as <Code>protocol.log</Code> records it. Newest first; new lines appear as they are
            written.
          </>
        }
      />
      <LogView initialFilter={filter} initialPage={page} initialFacets={facets} />
    </>
  );
}
