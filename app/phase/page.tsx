import type { Metadata } from 'next';
import { PhaseBoardView } from '@/components/phase/PhaseBoardView';
import { Code } from '@/components/ui/Notice';
import { PageHeader } from '@/components/ui/PageHeader';
import { serverCaller, settle } from '@/server/trpc/caller';

export const metadata: Metadata = { title: 'Phase' };
export const dynamic = 'force-dynamic';

export default async function PhasePage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const phaseParam = (await searchParams).phase;
  const phase = typeof phaseParam === 'string' && /^[A-Za-z0-9._-]{1,40}$/.test(phaseParam) ? phaseParam : undefined;
  const initial = await settle(() => serverCaller().phase.board(phase ? { phase } : undefined));
  return (
    <>
      <PageHeader
        title="Phase board"
        description={
          <>
            The plans of an imported GSD phase as agents run them (<Code>heimdall gsd ready</Code>, <Code>start</Code>, <Code>done</Code>): who holds
            each plan&apos;s files, how long its lease has left, and the measured tokens of the brief its executor gets.
          </>
        }
      />
      <PhaseBoardView initial={initial} initialPhase={phase} />
    </>
  );
}
