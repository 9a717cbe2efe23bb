'use client';
/**
 * One GSD phase as a board: a column per status, a card per plan with its holder (HAID and herd
 * address, linking to the agent and to its claim), the lease time left and the measured tokens of its
 * brief. Read-only; it stays live through LiveProvider (the 'phase', 'team', 'wire' and 'capsules'
 * topics invalidate the board query).
 */
import { useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { usePathname, useRouter } from 'next/navigation';
import { useId, useState } from 'react';
import { type Settled, errorMessage, seeded } from '@/components/data/seed';
import { useServerNow } from '@/components/data/useServerNow';
import { useTRPC } from '@/components/trpc/react';
import type { RouterOutputs } from '@/components/trpc/types';
import { Badge, type Tone } from '@/components/ui/Badge';
import { Select } from '@/components/ui/Field';
import { Code, EmptyState, ErrorPanel } from '@/components/ui/Notice';
import { cx } from '@/components/ui/cx';
import { fmtAge, fmtInt } from '@/components/ui/format';

export type PhaseBoard = RouterOutputs['phase']['board'];
export type BoardPlan = PhaseBoard['plans'][number];
type Status = BoardPlan['status'];
type Reason = BoardPlan['reasons'][number];

const COLUMN: Record<Status, { label: string; tone: Tone; hint: string }> = {
  waiting: { label: 'Waiting', tone: 'slate', hint: 'A dependency, an earlier phase or another agent’s claim holds it back' },
  ready: { label: 'Ready', tone: 'blue', hint: 'heimdall gsd start would take it now' },
  claimed: { label: 'Claimed', tone: 'violet', hint: 'Its files are claimed; the attempt has not started on the wire yet' },
  running: { label: 'Running', tone: 'amber', hint: 'Started on the wire by the agent holding its claim' },
  done: { label: 'Done', tone: 'green', hint: 'Imported with its SUMMARY, or an attempt passed' },
  failed: { label: 'Failed', tone: 'red', hint: 'Its last attempt failed; starting it again retries' },
};

function reasonText(r: Reason): string {
  switch (r.kind) {
    case 'dependency':
      return `waits on ${r.plan} (${r.status})`;
    case 'phase':
      return `waits on phase ${r.phase} (${r.open.length} not done)`;
    case 'claim': {
      const held = [...new Set(r.overlaps.map(([, h]) => h))];
      return `${r.address ?? r.holder} holds ${held[0]}${held.length > 1 ? ` and ${held.length - 1} more` : ''} for ${r.task}`;
    }
    case 'failed':
      return `attempt ${r.attempt} failed`;
    case 'write_set':
      return r.error;
  }
}

function leaseText(expiresAt: string, now: number): string {
  const left = Date.parse(expiresAt) - now;
  return left > 0 ? `${fmtAge(left)} left` : `expired ${fmtAge(-left)} ago`;
}

function agentHref(address: string | null, haid: string): string {
  return address ? `/agents?agent=${encodeURIComponent(address)}` : `/claims?haid=${encodeURIComponent(haid)}`;
}

function PlanCard({ plan: p, now, tokenizer }: { plan: BoardPlan; now: number; tokenizer: string }) {
  const h = p.holder;
  return (
    <li
      className="rounded-md border border-slate-200 bg-white px-3 py-2 shadow-sm"
      data-plan={p.id}
      data-status={p.status}
      aria-label={`plan ${p.id}, ${p.status}`}
    >
      <div className="flex items-baseline justify-between gap-2">
        <span className="font-mono text-[13px] font-semibold text-slate-900">{p.id}</span>
        <span className="text-[11px] text-slate-500">wave {p.wave}</span>
      </div>
      {p.title && (
        <p className="mt-0.5 line-clamp-2 text-[12px] leading-snug text-slate-600" title={p.title}>
          {p.title}
        </p>
      )}
      {h && (
        <div className="mt-1.5 space-y-0.5 text-[11px]" data-testid="holder">
          <p className="truncate">
            <Link href={agentHref(h.address, h.haid)} className="font-medium text-indigo-700 hover:underline" data-agent-link={h.address ?? h.haid}>
              {h.address ?? h.haid}
            </Link>
          </p>
          <p className="truncate font-mono text-slate-500" title={`claim ${h.claim} since ${h.since}`}>
            <Link href={`/claims?haid=${encodeURIComponent(h.haid)}`} className="hover:underline" data-claim-link={h.claim}>
              {h.haid}
            </Link>
          </p>
          <p className="text-slate-600" data-testid="lease" title={`claim ${h.claim} and its wire lease end at ${h.expires_at}`}>
            lease {leaseText(h.expires_at, now)}
          </p>
        </div>
      )}
      {p.reasons.length > 0 && (
        <ul className="mt-1.5 space-y-0.5 text-[11px] text-slate-500" data-testid="reasons">
          {p.reasons.map((r, i) => (
            <li key={i} className="break-words" title={r.kind === 'claim' ? `claim ${r.claim} by ${r.holder} until ${r.expires_at}: ${r.overlaps.map(([mine, held]) => (mine === held ? mine : `${mine} ~ ${held}`)).join(', ')}` : undefined}>
              {reasonText(r)}
            </li>
          ))}
        </ul>
      )}
      {p.abandoned && (
        <p className="mt-1 text-[11px] text-amber-700">
          attempt {p.abandoned.attempt} by {p.abandoned.by} abandoned
        </p>
      )}
      <div className="mt-1.5 flex flex-wrap items-center gap-x-2 gap-y-1 text-[11px] text-slate-500">
        {p.brief_tokens !== null ? (
          <span data-testid="brief-tokens" data-tokens={p.brief_tokens} title={`the v2 brief plus the reads it lists, counted with ${tokenizer}`}>
            {fmtInt(p.brief_tokens)} brief tokens
          </span>
        ) : (
          <span title={p.brief_error}>no brief</span>
        )}
        {p.attempts > 0 && <span>attempt {p.attempt}</span>}
        {p.last_result && p.status !== 'done' && <Badge tone={p.last_result.status === 'fail' ? 'red' : 'amber'}>{p.last_result.status}</Badge>}
      </div>
    </li>
  );
}

export function PhaseBoardView({ initial, initialPhase }: { initial: Settled<PhaseBoard>; initialPhase?: string }) {
  const trpc = useTRPC();
  const router = useRouter();
  const pathname = usePathname();
  const [phase, setPhase] = useState<string | undefined>(initialPhase);
  const input = phase ? { phase } : undefined;
  // The server's first answer seeds the phase it was asked for (or its default).
  const board = useQuery(trpc.phase.board.queryOptions(input, phase === initialPhase ? seeded(initial) : {}));
  const now = useServerNow(initial.ok ? Date.parse(initial.data.now) : undefined);
  const error = errorMessage(board.error, initial, board.data !== undefined);
  const pickerId = useId();
  const data = board.data;
  if (error && !data) return <ErrorPanel message={error} />;
  if (!data) return <p className="text-sm text-slate-500">Loading the board…</p>;
  if (!data.imported) {
    return (
      <EmptyState title="No GSD phase imported here">
        Import the GSD planning tree first, then agents run its plans: <Code>heimdall import gsd</Code>, <Code>heimdall gsd ready</Code>,{' '}
        <Code>heimdall gsd start 01-01</Code>, <Code>heimdall gsd done 01-01 --status pass</Code>.
      </EmptyState>
    );
  }
  const shown = data.phase;
  return (
    <div className="space-y-4">
      {error && <ErrorPanel message={error} />}
      <div className="flex flex-wrap items-center gap-3">
        <label htmlFor={pickerId} className="text-sm font-medium text-slate-700">
          Phase
        </label>
        <Select
          id={pickerId}
          value={shown ?? ''}
          data-testid="phase-picker"
          onChange={(e) => {
            const next = e.target.value;
            setPhase(next);
            router.replace(`${pathname}?phase=${encodeURIComponent(next)}`, { scroll: false });
          }}
        >
          {data.phases.map((p) => (
            <option key={p.phase} value={p.phase}>
              {p.dir} ({p.done}/{p.plans} done)
            </option>
          ))}
        </Select>
        <p className="text-xs text-slate-500" data-testid="board-summary">
          {data.plans.length} plans · {data.counts.done} done · {data.counts.running + data.counts.claimed} held · {data.counts.ready} ready · brief tokens counted with{' '}
          {data.tokenizer}
        </p>
      </div>
      <div className="grid grid-cols-2 gap-3 md:grid-cols-3 xl:grid-cols-6" data-testid="phase-board" data-phase={shown ?? ''}>
        {data.columns.map((status) => {
          const plans = data.plans.filter((p) => p.status === status);
          const col = COLUMN[status];
          return (
            <section key={status} aria-label={col.label} data-column={status} className="flex min-w-0 flex-col rounded-lg border border-slate-200 bg-slate-50 p-2">
              <header className="mb-2 flex items-center justify-between gap-2 px-1" title={col.hint}>
                <h2 className="text-xs font-semibold uppercase tracking-wide text-slate-600">{col.label}</h2>
                <Badge tone={col.tone}>
                  <span data-testid={`count-${status}`}>{plans.length}</span>
                </Badge>
              </header>
              {plans.length === 0 ? (
                <p className={cx('px-1 pb-1 text-[11px] text-slate-400')}>none</p>
              ) : (
                <ul className="space-y-2">
                  {plans.map((p) => (
                    <PlanCard key={p.id} plan={p} now={now} tokenizer={data.tokenizer} />
                  ))}
                </ul>
              )}
            </section>
          );
        })}
      </div>
    </div>
  );
}
