import type { Metadata } from 'next';
import { CapsuleGraph } from '@/components/capsules/CapsuleGraph';
import { Code } from '@/components/ui/Notice';
import { PageHeader } from '@/components/ui/PageHeader';
import { serverCaller, settle } from '@/server/trpc/caller';

export const metadata: Metadata = { title: 'Capsules' };
export const dynamic = 'force-dynamic';

export default async function CapsulesPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const id = (await searchParams).id;
  const initial = await settle(() => serverCaller().capsules.graph());
  return (
    <>
      <PageHeader
        title="Capsules"
        description={
          <>
            Finished tasks compacted to at most 10 lines (<Code>protocol/capsules/*.md</Code>), laid out by dependency. Hydrating a capsule emits its
            transitive dependencies and nothing else.
          </>
        }
      />
      <CapsuleGraph initial={initial} initialSelected={typeof id === 'string' ? id : undefined} />
    </>
  );
}
