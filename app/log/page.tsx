import type { Metadata } from 'next';
import { LogView } from '@/components/log/LogView';
import { rangeBounds, rangeFromParams } from '@/components/log/range';
import { Code } from '@/components/ui/Notice';
import { PageHeader } from '@/components/ui/PageHeader';
import { serverCaller, settle } from '@/server/trpc/caller';

export const metadata: Metadata = { title: 'Log' };
export const dynamic = 'force-dynamic';

type Search = Promise<Record<string, string | string[] | undefined>>;

function one(v: string | string[] | undefined): string | undefined {
  const s = Array.isArray(v) ? v[0] : v;
  return s ? s.slice(0, 700) : undefined;
}

export default async function LogPage({ searchParams }: { searchParams: Search }) {
  const sp = await searchParams;
  const filter = { mechanism: one(sp.mechanism), action: one(sp.action), text: one(sp.text), author: one(sp.author), object: one(sp.object) };
  const last = one(sp.last);
  const infoP = settle(() => serverCaller().studio.info());
  // "last=1h" is resolved once, here, against the server's clock (a frozen test clock included);
  // only then does the page query wait for the clock.
  const range = rangeFromParams({ last, from: one(sp.from), to: one(sp.to) }, last ? await infoP.then((i) => (i.ok ? i.data.now : Date.now())) : 0);
  const [info, page, facets] = await Promise.all([infoP, settle(() => serverCaller().log.page({ ...filter, ...rangeBounds(range), limit: 200 })), settle(() => serverCaller().log.facets())]);
  return (
    <>
      <PageHeader
        title="Protocol log"
        description={
          <>
            Every action of every mechanism, from every transport, as <Code>protocol.log</Code> records it, with who wrote it when the transport knew.
            Newest first; new lines appear as they are written. Select a line to open the objects it names.
          </>
        }
      />
      <LogView initialFilter={filter} initialRange={range} initialPage={page} initialFacets={facets} initialNow={info.ok ? info.data.now : undefined} />
    </>
  );
}
