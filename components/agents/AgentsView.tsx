'use client';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useEffect, useId, useState } from 'react';
import { type Settled, errorMessage, seeded } from '@/components/data/seed';
import { useTRPC } from '@/components/trpc/react';
import { Badge } from '@/components/ui/Badge';
import { Button } from '@/components/ui/Button';
import { Card } from '@/components/ui/Card';
import { Select, TextInput } from '@/components/ui/Field';
import { Code, EmptyState, ErrorPanel } from '@/components/ui/Notice';
import { cx } from '@/components/ui/cx';
import { fmtAge, fmtInt, fmtTs } from '@/components/ui/format';
import type { AgentList } from '@/components/trpc/types';
import { LogLink } from '@/components/log/LogLink';
import { FOCUSED, useScrollIntoView } from '@/components/ui/useScrollIntoView';
import { LIVENESS, LIVENESS_ORDER, LivenessBadge } from './Liveness';

export type { AgentList };

const TIER_TONE: Record<string, 'violet' | 'indigo' | 'teal' | 'slate'> = { Leader: 'violet', Senior: 'indigo', Execution: 'teal', Mechanical: 'slate' };

export function AgentsView({ initial, focus }: { initial: Settled<AgentList>; focus?: string }) {
  const trpc = useTRPC();
  const list = useQuery(trpc.agents.list.queryOptions(undefined, seeded(initial)));
  const wire = useQuery(trpc.streams.overview.queryOptions());
  const error = errorMessage(list.error, initial, list.data !== undefined);
  const agents = list.data?.agents ?? [];
  const counts = Object.fromEntries(LIVENESS_ORDER.map((s) => [s, agents.filter((a) => a.heartbeat === s).length]));
  return (
    <div className="space-y-4">
      {error && <ErrorPanel message={error} />}
      <dl className="grid grid-cols-2 gap-3 sm:grid-cols-4">
        {LIVENESS_ORDER.map((s) => (
          <div key={s} className="rounded-lg border border-slate-200 bg-white px-4 py-3 shadow-sm">
            <dt className="flex items-center gap-1.5 text-xs font-medium text-slate-500">
              <span aria-hidden className={cx('inline-block size-2 rounded-full', LIVENESS[s].dot)} />
              {LIVENESS[s].label}
            </dt>
            <dd className="text-2xl font-semibold tabular-nums text-slate-900" data-testid={`liveness-count-${s}`}>
              {counts[s]}
            </dd>
          </div>
        ))}
      </dl>
      {list.data && agents.length === 0 ? (
        <EmptyState title="No agents yet">
          Agents appear when they check in (heartbeat, status and mailbox in one call): <Code>heimdall herd checkin --as mason.1@core --status &quot;writing the book diff&quot;</Code>
        </EmptyState>
      ) : (
        <div className="overflow-x-auto rounded-lg border border-slate-200 bg-white shadow-sm">
          <table className="w-full text-sm" data-testid="agents-table">
            <caption className="sr-only">Agents with heartbeat status, tier, last status line and last check-in</caption>
            <thead>
              <tr className="border-b border-slate-100 text-left text-xs font-medium uppercase tracking-wide text-slate-500">
                <th scope="col" className="px-4 py-2">Agent</th>
                <th scope="col" className="px-4 py-2">Heartbeat</th>
                <th scope="col" className="px-4 py-2">Tier</th>
                <th scope="col" className="px-4 py-2">Last status</th>
                <th scope="col" className="px-4 py-2">Task</th>
                <th scope="col" className="hidden px-4 py-2 xl:table-cell">Last check-in (UTC)</th>
                <th scope="col" className="px-4 py-2 text-right">Waiting</th>
              </tr>
            </thead>
            <tbody>
              {agents.map((a) => (
                <AgentRow key={a.address} address={a.address} focused={a.address === focus}>
                  <td className="px-4 py-2">
                    <LivenessBadge status={a.heartbeat} />
                    <p className="text-[11px] text-slate-500">{a.seconds_since_checkin === null ? 'never checked in' : `${fmtAge(a.seconds_since_checkin * 1000)} ago`}</p>
                  </td>
                  <td className="px-4 py-2">
                    <Badge tone={TIER_TONE[a.tier] ?? 'slate'}>{a.tier}</Badge>
                  </td>
                  <td className="min-w-40 max-w-md px-4 py-2 text-slate-700" data-wrap>{a.status ?? <span className="text-slate-400">—</span>}</td>
                  <td className="px-4 py-2 font-mono text-[12px]">{a.task ?? <span className="text-slate-400">—</span>}</td>
                  <td className="hidden px-4 py-2 font-mono text-[12px] text-slate-500 xl:table-cell">{a.last_checkin ? fmtTs(a.last_checkin.replace(/\.\d{3}Z$/, 'Z')) : '—'}</td>
                  <td className="px-4 py-2 text-right tabular-nums">{a.pending}</td>
                </AgentRow>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <div className="grid gap-4 xl:grid-cols-2">
        <SendForm agents={agents.map((a) => a.address)} />
        <Card title="On the wire stream" description="Agents seen through agent.* events (the read model), with liveness from their last agent.heartbeat">
          {wire.error ? (
            <ErrorPanel title="The wire read model could not be read" message={wire.error.message} />
          ) : !wire.data ? (
            <p className="text-sm text-slate-500">Reading the read model…</p>
          ) : wire.data.agents.length === 0 ? (
            <p className="text-sm text-slate-500">
              No agent events on the wire yet. Check-ins and <Code>heimdall wire emit</Code> with <Code>agent.heartbeat</Code> put them here.
            </p>
          ) : (
            <table className="w-full text-sm" data-testid="wire-agents">
              <thead>
                <tr className="text-left text-xs font-medium uppercase tracking-wide text-slate-500">
                  <th scope="col" className="py-1.5 pr-3">Agent</th>
                  <th scope="col" className="py-1.5 pr-3">Heartbeat</th>
                  <th scope="col" className="py-1.5 pr-3">State</th>
                  <th scope="col" className="py-1.5 pr-3 text-right">Free units</th>
                  <th scope="col" className="py-1.5 text-right">Leases</th>
                </tr>
              </thead>
              <tbody>
                {wire.data.agents.map((a) => (
                  <tr key={a.agent_id} className="border-t border-slate-50">
                    <th scope="row" className="py-1.5 pr-3 text-left font-mono text-[12px] font-medium">
                      {a.agent_id}
                      {a.role && <span className="ml-1 font-sans text-[11px] font-normal text-slate-500">({a.role})</span>}
                    </th>
                    <td className="py-1.5 pr-3">
                      <LivenessBadge status={a.liveness} />
                    </td>
                    <td className="py-1.5 pr-3 text-slate-600">{a.reported_status ?? a.status}</td>
                    <td className="py-1.5 pr-3 text-right tabular-nums">{fmtInt(a.free_units)}</td>
                    <td className="py-1.5 text-right tabular-nums">{a.active_leases}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </Card>
      </div>
    </div>
  );
}

/** A row of the agents table: the address with a link to its log lines, highlighted when a link pointed at it. */
function AgentRow({ address, focused, children }: { address: string; focused: boolean; children: React.ReactNode }) {
  const ref = useScrollIntoView<HTMLTableRowElement>(focused);
  return (
    <tr ref={ref} className={cx('border-b border-slate-50 align-top last:border-0', focused && FOCUSED)} data-agent={address} data-focused={focused ? 'true' : undefined}>
      <th scope="row" className="whitespace-nowrap px-4 py-2 text-left font-mono text-[12px] font-medium text-slate-800">
        {address}
        <LogLink kind="agent" id={address} className="ml-2 font-sans" />
      </th>
      {children}
    </tr>
  );
}

const FROM_KEY = 'heimdall-studio-send-as';

function SendForm({ agents }: { agents: string[] }) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('@everyone');
  const [type, setType] = useState('inform');
  const [body, setBody] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [sent, setSent] = useState('');
  const id = useId();
  useEffect(() => setFrom(window.localStorage.getItem(FROM_KEY) ?? ''), []);
  const mutation = useMutation(
    trpc.agents.send.mutationOptions({
      onSuccess: (r) => {
        setSent(`Queued ${r.type} ${r.id} to ${r.to}${r.pooled ? ' (the first agent to check in takes it)' : `: ${r.recipients.length} recipient${r.recipients.length === 1 ? '' : 's'}`}.${r.note ? ` ${r.note}` : ''}`);
        setBody('');
        void qc.invalidateQueries({ queryKey: trpc.agents.pathKey() });
      },
      onError: (e) => setError(e.message),
    }),
  );
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    setSent('');
    window.localStorage.setItem(FROM_KEY, from);
    mutation.mutate({ from, to, type, body });
  };
  return (
    <Card title="Send a message" description="Delivered at the recipient's next check-in. Tiers decide who may send and receive what.">
      <form onSubmit={submit} className="space-y-3" aria-label="Send a directive, inform or flag">
        <div className="grid gap-3 sm:grid-cols-2">
          <label className="flex flex-col gap-1 text-xs font-medium text-slate-600">
            From (your address)
            <TextInput value={from} onChange={(e) => setFrom(e.target.value)} placeholder="steve.1@core" className="font-mono" autoComplete="off" spellCheck={false} />
          </label>
          <label className="flex flex-col gap-1 text-xs font-medium text-slate-600">
            To
            <TextInput value={to} onChange={(e) => setTo(e.target.value)} list={`${id}-to`} className="font-mono" autoComplete="off" spellCheck={false} />
            <datalist id={`${id}-to`}>
              <option value="@everyone" />
              <option value="@anyone" />
              {agents.map((a) => (
                <option key={a} value={a} />
              ))}
            </datalist>
          </label>
        </div>
        <fieldset className="flex flex-wrap items-center gap-4 text-sm">
          <legend className="sr-only">Message type</legend>
          {['directive', 'inform', 'flag'].map((t) => (
            <label key={t} className="flex items-center gap-1.5">
              <input type="radio" name={`${id}-type`} value={t} checked={type === t} onChange={() => setType(t)} className="accent-indigo-600" />
              {t}
            </label>
          ))}
        </fieldset>
        <label className="flex flex-col gap-1 text-xs font-medium text-slate-600">
          Message
          <textarea
            value={body}
            onChange={(e) => setBody(e.target.value)}
            rows={3}
            className="rounded-md border border-slate-300 px-2.5 py-1.5 text-sm text-slate-900 focus:border-indigo-500 focus:outline-none focus:ring-2 focus:ring-indigo-500/20"
            placeholder="Pause writes to src/matching/ until the book diff lands"
          />
        </label>
        <div className="flex items-center gap-3">
          <Button type="submit" variant="primary" disabled={mutation.isPending}>
            Send {type}
          </Button>
          <p role="status" aria-live="polite" className="text-sm text-emerald-700">
            {sent}
          </p>
        </div>
        {error && (
          <p role="alert" className="text-sm text-rose-700">
            {error}
          </p>
        )}
      </form>
    </Card>
  );
}
