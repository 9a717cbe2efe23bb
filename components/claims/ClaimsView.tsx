'use client';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
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
import type { ClaimList, ClaimStatus, ClaimView, Decision } from '@/components/trpc/types';

const STATUS_TONE: Record<ClaimStatus, Tone> = { active: 'green', expired: 'slate', retired: 'amber', released: 'slate' };

export function ClaimStatusBadge({ status }: { status: ClaimStatus }) {
  return <Badge tone={STATUS_TONE[status]}>{status}</Badge>;
}

export function timeLeft(c: ClaimView, now: number): string {
  const left = Date.parse(c.expires_at) - now;
  return left > 0 ? `${fmtAge(left)} left` : `expired ${fmtAge(-left)} ago`;
}

export function ClaimsView({ initial, initialDecisions, initialNow, focus }: { initial: Settled<ClaimList>; initialDecisions: Settled<Decision[]>; initialNow?: number; focus?: string }) {
  const trpc = useTRPC();
  const list = useQuery(trpc.claims.list.queryOptions(undefined, seeded(initial)));
  const decisions = useQuery(trpc.claims.decisions.queryOptions(undefined, seeded(initialDecisions)));
  const now = useServerNow(initialNow);
  const error = errorMessage(list.error, initial, list.data !== undefined);
  const [notice, setNotice] = useState('');
  const data = list.data;
  return (
    <div className="space-y-4">
      {error && <ErrorPanel message={error} />}
      {data && (
        <dl className="grid grid-cols-3 gap-3 sm:max-w-lg">
          {(['active', 'expired', 'retired'] as const).map((s) => (
            <div key={s} className="rounded-lg border border-slate-200 bg-white px-4 py-3 shadow-sm">
              <dt className="text-xs font-medium capitalize text-slate-500">{s}</dt>
              <dd className="text-2xl font-semibold tabular-nums text-slate-900" data-testid={`count-${s}`}>
                {data[s]}
              </dd>
            </div>
          ))}
        </dl>
      )}
      <p role="status" aria-live="polite" className={cx('text-sm text-emerald-700', !notice && 'sr-only')}>
        {notice}
      </p>
      {data && data.claims.length === 0 ? (
        <EmptyState title="No claims yet">
          Agents claim the surfaces they are about to change, and overlapping claims are refused:{' '}
          <Code>heimdall-claim claim --surfaces &apos;src/matching/**&apos; --task T-9</Code>
        </EmptyState>
      ) : (
        data && (
          <div className="overflow-x-auto rounded-lg border border-slate-200 bg-white shadow-sm">
            <table className="w-full text-sm" data-testid="claims-table">
              <caption className="sr-only">Claims: holder, status, surfaces, task and time left</caption>
              <thead>
                <tr className="border-b border-slate-100 text-left text-xs font-medium uppercase tracking-wide text-slate-500">
                  <th scope="col" className="px-4 py-2">Holder (HAID)</th>
                  <th scope="col" className="px-4 py-2">Status</th>
                  <th scope="col" className="px-4 py-2">Surfaces</th>
                  <th scope="col" className="px-4 py-2">Task</th>
                  <th scope="col" className="hidden px-4 py-2 xl:table-cell">Since</th>
                  <th scope="col" className="px-4 py-2">Time left</th>
                  <th scope="col" className="px-4 py-2 text-right">
                    <span className="sr-only">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {data.claims.map((c) => (
                  <ClaimRow key={c.id} claim={c} now={now} onReleased={setNotice} focused={c.haid === focus} />
                ))}
              </tbody>
            </table>
          </div>
        )
      )}
      <Card title="Decisions" description="decisions.md: HAID-attributed, append-only; releases made here are recorded too">
        {(decisions.data ?? []).length === 0 ? (
          <p className="text-sm text-slate-500">No decisions recorded yet.</p>
        ) : (
          <ol className="space-y-3" data-testid="decisions">
            {[...(decisions.data ?? [])]
              .reverse()
              .slice(0, 12)
              .map((d) => (
                <li key={d.id} className="rounded-md border border-slate-100 bg-slate-50/60 px-3 py-2">
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

function ClaimRow({ claim: c, now, onReleased, focused }: { claim: ClaimView; now: number; onReleased: (s: string) => void; focused: boolean }) {
  const rowRef = useScrollIntoView<HTMLTableRowElement>(focused);
  const trpc = useTRPC();
  const qc = useQueryClient();
  const [confirming, setConfirming] = useState(false);
  const [reason, setReason] = useState('');
  const [error, setError] = useState<string | null>(null);
  const id = useId();
  const release = useMutation(
    trpc.claims.release.mutationOptions({
      onSuccess: (r) => {
        onReleased(`Released ${r.released.map((x) => `${x.haid}'s claim ${x.id}`).join(', ')}; recorded as decision ${r.decision.id}.`);
        void qc.invalidateQueries({ queryKey: trpc.claims.pathKey() });
      },
      onError: (e) => setError(e.message),
    }),
  );
  return (
    <tr ref={rowRef} className={cx('border-b border-slate-50 align-top last:border-0', c.status !== 'active' && 'text-slate-500', focused && FOCUSED)} data-claim={c.haid} data-focused={focused ? 'true' : undefined}>
      <th scope="row" className="px-4 py-2 text-left font-mono text-[12px] font-medium text-slate-800">
        {c.haid}
      </th>
      <td className="px-4 py-2">
        <ClaimStatusBadge status={c.status} />
      </td>
      <td className="px-4 py-2">
        <ul className="flex flex-wrap gap-1" data-wrap>
          {c.surfaces.map((s) => (
            <li key={s} className="rounded bg-slate-100 px-1.5 py-0.5 font-mono text-[11px] text-slate-700">
              {s}
            </li>
          ))}
        </ul>
      </td>
      <td className="px-4 py-2 font-mono text-[12px]" title={c.task_ref}>
        {c.task}
      </td>
      <td className="hidden px-4 py-2 font-mono text-[12px] text-slate-500 xl:table-cell">{fmtTs(c.created_at)}</td>
      <td className={cx('px-4 py-2 text-[13px] tabular-nums', c.status === 'active' ? 'text-slate-800' : 'text-slate-500')} suppressHydrationWarning>
        {timeLeft(c, now)}
      </td>
      <td className="px-4 py-1.5 text-right">
        {confirming ? (
          <form
            className="flex min-w-72 flex-col items-end gap-1.5"
            onSubmit={(e) => {
              e.preventDefault();
              setError(null);
              release.mutate({ haid: c.haid, id: c.id, reason });
            }}
          >
            <label htmlFor={`${id}-reason`} className="sr-only">
              Reason for releasing {c.haid}&apos;s claim
            </label>
            <TextInput id={`${id}-reason`} autoFocus value={reason} onChange={(e) => setReason(e.target.value)} placeholder="Reason (recorded as a decision)" className="w-full" />
            <div className="flex gap-1">
              <Button type="submit" size="sm" variant="danger" disabled={release.isPending}>
                Release
              </Button>
              <Button size="sm" variant="ghost" onClick={() => setConfirming(false)}>
                Cancel
              </Button>
            </div>
            {error && (
              <p role="alert" className="text-left text-xs text-rose-700">
                {error}
              </p>
            )}
          </form>
        ) : (
          <div className="flex items-center justify-end gap-1">
            <LogLink kind="claim" id={c.haid} className="mr-1" />
            <Button size="sm" variant="ghost" onClick={() => setConfirming(true)} aria-label={`Release ${c.haid}'s claim`}>
              Release
            </Button>
          </div>
        )}
      </td>
    </tr>
  );
}
