import type { Metadata } from 'next';
import { BlackboardView } from '@/components/blackboard/BlackboardView';
import { Code } from '@/components/ui/Notice';
import { PageHeader } from '@/components/ui/PageHeader';
import { serverCaller, settle } from '@/server/trpc/caller';

export const metadata: Metadata = { title: 'Blackboard' };
export const dynamic = 'force-dynamic';

export default async function BlackboardPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const focus = (await searchParams).focus;
  const initial = await settle(() => serverCaller().blackboard.list());
  return (
    <>
      <PageHeader
        title="Blackboard"
        description={
          <>
            Facts discovered once and read by key (<Code>blackboard.json</Code>). Set and delete here or with <Code>heimdall-blackboard</Code>; both
            write the same file and log line.
          </>
        }
      />
      <BlackboardView initial={initial} focus={typeof focus === 'string' ? focus : undefined} />
    </>
  );
}
