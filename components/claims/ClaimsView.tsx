'use client';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import Link from 'next/link';
import { usePathname, useSearchParams } from 'next/navigation';
import { type FormEvent, useId, useState } from 'react';
import { OperatorNote } from '@/components/agents/Operator';
import { type Settled, errorMessage, seeded } from '@/components/data/seed';
import { useServerNow } from '@/components/data/useServerNow';
import { useTRPC } from '@/components/trpc/react';
import { Badge, type Tone } from '@/components/ui/Badge';
import { Button } from '@/components/ui/Button';
import { Card } from '@/components/ui/Card';
import { TextInput } from '@/components/ui/Field';
import { Code, EmptyState, ErrorPanel } from '@/components/ui/Notice';
import { cx } from '@/components/ui/cx';
import { fmtAge, fmtTs } from '@/components/ui/format';
import { FOCUSED, useScrollIntoView } from '@/components/ui/useScrollIntoView';
import { LogLink } from '@/components/log/LogLink';
import { FILTERS, filterOf } from './filter';
import type { ClaimBoard, ClaimFilter, ClaimRow, ClaimStatus, Decision, OperatorView } from '@/components/trpc/types';

const STATUS_TONE: Record<ClaimStatus, Tone> = { active: 'green', expired: 'slate', retired: 'amber', released: 'slate' };

/** Status in words on a badge; the colour only repeats it. */
export function ClaimStatusBadge({ status }: { status: ClaimStatus }) {
  return (
    <Badge tone={STATUS_TONE[status]}>
      <span data-claim-status={status}>{status}</span>
    </Badge>
  );
}

export function timeLeft(c: { expires_at: string }, now: number): string {
  const left = Date.parse(c.expires_at) - now;
  return left > 0 ? `${fmtAge(left)} left` : `expired ${fmtAge(-left)} ago`;
}

const COUNT_OF: Record<ClaimFilter, 'held' | 'released' | 'expired' | 'all'> = { active: 'held', released: 'released', expired: 'expired', all: 'all' };

export const decisionAnchor = (id: string) => `decision-${id}`;

export function ClaimsView({
  initial,
  initialFilter,
  initialDecisions,
  initialNow,
}: {
  initial: Settled<ClaimBoard>;
  initialFilter: ClaimFilter;
  initialDecisions: Settled<Decision[]>;
  initialNow?: number;
}) {
  const trpc = useTRPC();
  const pathname = usePathname();
  const params = useSearchParams();
  const focusHaid = params.get('haid') ?? undefined;
  const focusClaim = params.get('claim') ?? undefined;
  // The URL is the state: a link or a reload shows the same filter.
  const filter = filterOf(params.get('status'), focusHaid !== undefined || focusClaim !== undefined);
  const fromServer = filter === initialFilter;
  const list = useQuery(trpc.claims.board.queryOptions({ filter }, fromServer ? seeded(initial) : {}));
  const decisions = useQuery(trpc.claims.decisions.queryOptions(undefined, seeded(initialDecisions)));
  const now = useServerNow(initialNow);
  const error = errorMessage(list.error, fromServer ? initial : undefined, list.data !== undefined);
  const [notice, setNotice] = useState('');
  const data = list.data;
  const choose = (next: ClaimFilter) => {
    const q = new URLSearchParams(params.toString());
    q.set('status', next);
    window.history.pushState(null, '', `${pathname}?${q.toString()}`);
  };
  const linked = new Set((data?.claims ?? []).flatMap((c) => (c.decision ? [c.decision.id] : [])));
  const hint = FILTERS.find((f) => f.id === filter)?.hint;
  return (
    <div className="space-y-4">
      {error && <ErrorPanel message={error} />}
      {data && (
        <dl className="grid grid-cols-2 gap-3 sm:grid-cols-4 xl:max-w-3xl">
          {(['active', 'retired', 'released', 'expired'] as const).map((s) => (
            <div key={s} className="rounded-lg border border-slate-200 bg-white px-4 py-3 shadow-sm">
              <dt className="text-xs font-medium capitalize text-slate-500">{s}</dt>
              <dd className="text-2xl font-semibold tabular-nums text-slate-900" data-testid={`count-${s}`}>
                {data.counts[s]}
              </dd>
            </div>
          ))}
        </dl>
      )}
      <div className="flex flex-wrap items-center justify-between gap-3">
        <nav aria-label="Which claims" className="inline-flex rounded-md border border-slate-200 bg-white p-0.5 shadow-sm" data-testid="claim-filter">
          {FILTERS.map((f) => {
            const q = new URLSearchParams(params.toString());
            q.set('status', f.id);
            return (
              <a
                key={f.id}
                href={`${pathname}?${q.toString()}`}
                onClick={(e) => {
                  if (e.metaKey || e.ctrlKey || e.shiftKey || e.button !== 0) return;
                  e.preventDefault();
                  choose(f.id);
                }}
                aria-current={filter === f.id ? 'page' : undefined}
                title={f.hint}
                data-filter={f.id}
                className={cx(
                  'rounded px-3 py-1 text-sm font-medium focus:outline-none focus-visible:ring-2 focus-visible:ring-indigo-500',
                  filter === f.id ? 'bg-indigo-600 text-white' : 'text-slate-600 hover:bg-slate-100 hover:text-slate-900',
                )}
              >
                {f.label}
                {data && <span className={cx('ml-1.5 tabular-nums', filter === f.id ? 'text-indigo-100' : 'text-slate-400')}>{data.counts[COUNT_OF[f.id]]}</span>}
              </a>
            );
          })}
        </nav>
        {data && <OperatorNote operator={data.operator} doing="Studio releases claims" />}
      </div>
      <p role="status" aria-live="polite" className={cx('text-sm text-emerald-700', !notice && 'sr-only')} data-testid="release-notice">
        {notice}
      </p>
      {data && data.claims.length === 0 ? (
        <EmptyState title={filter === 'active' ? 'No claims held' : `No ${filter === 'all' ? '' : `${filter} `}claims`}>
          {filter === 'active' ? (
            <>
              Agents claim the surfaces they are about to change, and overlapping claims are refused:{' '}
              <Code>heimdall-claim claim --surfaces &apos;src/matching/**&apos; --task T-9</Code>
            </>
          ) : (
            <>Claims {hint}: none yet.</>
          )}
        </EmptyState>
      ) : (
        data && (
          <div className="overflow-x-auto rounded-lg border border-slate-200 bg-white shadow-sm">
            <table className="w-full text-sm" data-testid="claims-table" data-filter={filter}>
              <caption className="sr-only">Claims ({hint}): holder by herd address and HAID, status, surfaces, task, time, and how each ended</caption>
              <thead>
                <tr className="border-b border-slate-100 text-left text-xs font-medium uppercase tracking-wide text-slate-500">
                  <th scope="col" className="px-3 py-2">Holder</th>
                  <th scope="col" className="px-3 py-2">Status</th>
                  <th scope="col" className="px-3 py-2">Surfaces</th>
                  <th scope="col" className="px-3 py-2">Task</th>
                  <th scope="col" className="px-3 py-2">Time</th>
                  <th scope="col" className="px-3 py-2 text-right">
                    <span className="sr-only">Actions and outcome</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {data.claims.map((c) => (
                  <ClaimTableRow key={c.id} claim={c} now={now} onReleased={setNotice} focused={c.haid === focusHaid || c.id === focusClaim} operator={data.operator} />
                ))}
              </tbody>
            </table>
          </div>
        )
      )}
      <Card title="Decisions" description="decisions.md: HAID-attributed, append-only, newest first; a release made here is recorded as one and linked from its claim">
        {(decisions.data ?? []).length === 0 ? (
          <p className="text-sm text-slate-500">No decisions recorded yet.</p>
        ) : (
          <ol className="max-h-[32rem] space-y-3 overflow-y-auto" data-testid="decisions">
            {[...(decisions.data ?? [])].reverse().map((d) => (
              <li
                key={d.id}
                id={decisionAnchor(d.id)}
                tabIndex={-1}
                className={cx('scroll-mt-4 rounded-md border px-3 py-2 target:border-amber-300 target:bg-amber-50', linked.has(d.id) ? 'border-indigo-100 bg-indigo-50/40' : 'border-slate-100 bg-slate-50/60')}
                data-decision={d.id}
              >
                <p className="flex flex-wrap items-baseline gap-x-2 text-sm">
                  <span className="font-mono text-xs text-slate-500">{d.id}</span>
                  <span className="font-medium text-slate-800">{d.title}</span>
                </p>
                <p className="mt-0.5 font-mono text-[11px] text-slate-500">
                  {fmtTs(d.at)} · {d.haid}
                </p>
                {d.body && <p className="mt-1 whitespace-pre-wrap break-words text-[13px] text-slate-700">{d.body}</p>}
              </li>
            ))}
          </ol>
        )}
      </Card>
    </div>
  );
}

/** Who released a claim: the operator by its name, any other agent by its herd address (or HAID). */
function releaser(c: ClaimRow, operator: OperatorView): string {
  if (!c.released_by) return 'unknown';
  if (c.released_by === operator.haid) return `${operator.address} (the operator)`;
  return c.released_by_address ?? c.released_by;
}

function ClaimTableRow({ claim: c, now, onReleased, focused, operator }: { claim: ClaimRow; now: number; onReleased: (s: string) => void; focused: boolean; operator: OperatorView }) {
  const rowRef = useScrollIntoView<HTMLTableRowElement>(focused);
  const trpc = useTRPC();
  const qc = useQueryClient();
  const [confirming, setConfirming] = useState(false);
  const [reason, setReason] = useState('');
  const [error, setError] = useState<string | null>(null);
  const id = useId();
  const holder = c.address ?? c.haid;
  const release = useMutation(
    trpc.claims.release.mutationOptions({
      onSuccess: (r) => {
        onReleased(`Released ${r.released.map((x) => `${x.address ?? x.haid}'s claim ${x.id}`).join(', ')}; recorded as decision ${r.decision.id}.`);
        void qc.invalidateQueries({ queryKey: trpc.claims.pathKey() });
        void qc.invalidateQueries({ queryKey: trpc.agents.pathKey() });
      },
      onError: (e) => setError(e.message),
    }),
  );
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    // Said here before asking: the server refuses a release without a reason in the same words.
    if (reason.trim() === '') {
      setError('A release needs a reason: it is recorded in decisions.md with the release.');
      return;
    }
    release.mutate({ id: c.id, reason });
  };
  const held = c.status === 'active' || c.status === 'retired';
  return (
    <tr
      ref={rowRef}
      className={cx('border-b border-slate-50 align-top last:border-0', !held && 'text-slate-500', focused && FOCUSED)}
      data-claim={c.haid}
      data-claim-id={c.id}
      data-status={c.status}
      data-focused={focused ? 'true' : undefined}
    >
      <th scope="row" className="px-3 py-2 text-left font-normal">
        {c.address ? (
          <p className="whitespace-nowrap font-mono text-[12px] font-medium text-slate-800" data-testid="holder-address">
            {c.holder_known ? (
              <Link href={`/agents?agent=${encodeURIComponent(c.address)}`} className="hover:underline" aria-label={`Agent ${c.address}`}>
                {c.address}
              </Link>
            ) : (
              <span title="This agent has not checked in: it has no row on the agents page">{c.address}</span>
            )}
          </p>
        ) : (
          <p className="whitespace-nowrap text-[11px] text-slate-500" title="This HAID names a client or process, not an agent session">
            no herd address
          </p>
        )}
        <p className="whitespace-nowrap font-mono text-[11px] text-slate-500" data-testid="holder-haid">
          {c.haid}
        </p>
      </th>
      <td className="px-3 py-2">
        <ClaimStatusBadge status={c.status} />
      </td>
      <td className="px-3 py-2">
        <ul className="flex flex-wrap gap-1" data-wrap>
          {c.surfaces.map((s) => (
            <li key={s} className="rounded bg-slate-100 px-1.5 py-0.5 font-mono text-[11px] text-slate-700">
              {s}
            </li>
          ))}
        </ul>
      </td>
      <td className="whitespace-nowrap px-3 py-2 font-mono text-[12px]" title={c.task_ref}>
        {c.task}
      </td>
      <td className="whitespace-nowrap px-3 py-2 text-[13px] tabular-nums" suppressHydrationWarning>
        {c.status === 'released' && c.released_at ? (
          <span title={c.released_at} data-testid="released-at">
            released {fmtAge(Math.max(0, now - Date.parse(c.released_at)))} ago
          </span>
        ) : (
          <span className={held && c.status === 'active' ? 'text-slate-800' : undefined}>{timeLeft(c, now)}</span>
        )}
        <p className="hidden text-[11px] text-slate-500 xl:block" title={c.created_at}>
          since {fmtTs(c.created_at)}
        </p>
      </td>
      <td className="px-3 py-1.5 text-right">
        {c.status === 'released' ? (
          <div className="min-w-36 max-w-sm text-left text-[12px] [overflow-wrap:anywhere]" data-wrap data-testid="release-info">
            <p>
              by{' '}
              <span className="font-mono text-slate-800" data-testid="released-by">
                {releaser(c, operator)}
              </span>
            </p>
            {c.reason && <p className="text-slate-600" data-testid="release-reason">“{c.reason}”</p>}
            {c.decision &&
              ('missing' in c.decision ? (
                <p className="text-amber-700" data-testid="release-decision">
                  decision {c.decision.id} (missing from decisions.md)
                </p>
              ) : (
                <p>
                  <a href={`#${decisionAnchor(c.decision.id)}`} className="font-medium text-indigo-600 hover:text-indigo-800" data-testid="release-decision">
                    {c.decision.id}: {c.decision.title}
                  </a>
                </p>
              ))}
            <LogLink kind="claim" id={c.haid} />
          </div>
        ) : held && confirming ? (
          <form className="flex min-w-72 flex-col items-end gap-1.5" onSubmit={submit} noValidate aria-label={`Release ${holder}'s claim ${c.id}`}>
            <label htmlFor={`${id}-reason`} className="sr-only">
              Reason for releasing {holder}&apos;s claim (required)
            </label>
            <TextInput
              id={`${id}-reason`}
              autoFocus
              required
              aria-required="true"
              aria-invalid={error ? 'true' : undefined}
              aria-describedby={error ? `${id}-error` : undefined}
              value={reason}
              onChange={(e) => {
                setReason(e.target.value);
                setError(null);
              }}
              onKeyDown={(e) => {
                if (e.key === 'Escape') setConfirming(false);
              }}
              placeholder="Reason (required; recorded as a decision)"
              className="w-full"
            />
            <div className="flex gap-1">
              <Button type="submit" size="sm" variant="danger" disabled={release.isPending}>
                Release
              </Button>
              <Button size="sm" variant="ghost" onClick={() => setConfirming(false)}>
                Cancel
              </Button>
            </div>
            {error && (
              <p role="alert" id={`${id}-error`} className="text-left text-xs text-rose-700">
                {error}
              </p>
            )}
          </form>
        ) : (
          <div className="flex items-center justify-end gap-1">
            <LogLink kind="claim" id={c.haid} className="mr-1" />
            {held && (
              <Button size="sm" variant="ghost" onClick={() => setConfirming(true)} aria-label={`Release ${holder}'s claim ${c.id}`}>
                Release
              </Button>
            )}
          </div>
        )}
      </td>
    </tr>
  );
}
