'use client';
import { useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { useRef, useState } from 'react';
import { type Settled, errorMessage, seeded } from '@/components/data/seed';
import { useTRPC } from '@/components/trpc/react';
import { Badge } from '@/components/ui/Badge';
import { Button } from '@/components/ui/Button';
import { Card } from '@/components/ui/Card';
import { Code, EmptyState, ErrorPanel } from '@/components/ui/Notice';
import { cx } from '@/components/ui/cx';
import { fmtInt } from '@/components/ui/format';
import type { AgentList, BoardAgent } from '@/components/trpc/types';
import { LogLink } from '@/components/log/LogLink';
import { FOCUSED, useScrollIntoView } from '@/components/ui/useScrollIntoView';
import { LIVENESS, LIVENESS_ORDER, LivenessBadge, silence } from './Liveness';
import { MessageDialog, type MessageTarget } from './MessageDialog';
import { OperatorNote } from './Operator';

export type { AgentList };

const TIER_TONE: Record<string, 'violet' | 'indigo' | 'teal' | 'slate'> = { Leader: 'violet', Senior: 'indigo', Execution: 'teal', Mechanical: 'slate' };

const enc = encodeURIComponent;

/** The claims page, focused on one holder's claims (every status) or on one claim. */
export const holderClaimsHref = (haid: string) => `/claims?haid=${enc(haid)}`;
export const claimHref = (id: string) => `/claims?claim=${enc(id)}`;

export function AgentsView({ initial, focus }: { initial: Settled<AgentList>; focus?: string }) {
  const trpc = useTRPC();
  const list = useQuery(trpc.agents.list.queryOptions(undefined, seeded(initial)));
  const wire = useQuery(trpc.streams.overview.queryOptions());
  const error = errorMessage(list.error, initial, list.data !== undefined);
  const agents = list.data?.agents ?? [];
  const counts = Object.fromEntries(LIVENESS_ORDER.map((s) => [s, agents.filter((a) => a.heartbeat === s).length]));
  const [target, setTarget] = useState<MessageTarget | null>(null);
  const [sent, setSent] = useState('');
  const opener = useRef<HTMLButtonElement | null>(null);
  const open = (t: MessageTarget, button: HTMLButtonElement) => {
    opener.current = button;
    setSent('');
    setTarget(t);
  };
  const focusMissing = focus !== undefined && list.data !== undefined && !agents.some((a) => a.address === focus);
  return (
    <div className="space-y-4">
      {error && <ErrorPanel message={error} />}
      {list.data?.wire_problem && <p className="rounded-md bg-amber-50 px-3 py-2 text-sm text-amber-900">Wire tasks are left out of the rows: {list.data.wire_problem}</p>}
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
      {list.data && (
        <div className="flex flex-wrap items-center justify-between gap-3 rounded-lg border border-slate-200 bg-white px-4 py-2.5 shadow-sm">
          <OperatorNote operator={list.data.operator} doing="Studio sends messages and releases claims" />
          <Button size="sm" onClick={(e) => open({ kind: 'team' }, e.currentTarget)} disabled={agents.length === 0}>
            Message the team…
          </Button>
        </div>
      )}
      <p role="status" aria-live="polite" className={cx('text-sm text-emerald-700', !sent && 'sr-only')} data-testid="message-sent">
        {sent}
      </p>
      {focusMissing && (
        <p className="rounded-md bg-amber-50 px-3 py-2 text-sm text-amber-900" data-testid="focus-missing">
          <span className="font-mono">{focus}</span> is not an agent the herd knows: it has not checked in and is not a member in <Code>herd/team.json</Code>.
        </p>
      )}
      {list.data && agents.length === 0 ? (
        <EmptyState title="No agents yet">
          Agents appear when they check in (heartbeat, status and mailbox in one call): <Code>heimdall herd checkin --as mason.1@core --status &quot;writing the book diff&quot;</Code>
        </EmptyState>
      ) : (
        <div className="overflow-x-auto rounded-lg border border-slate-200 bg-white shadow-sm">
          <table className="w-full text-sm" data-testid="agents-table">
            <caption className="sr-only">Agents, most urgent first: heartbeat, current task, claims, last status, and an action to message each with the messages waiting for it</caption>
            <thead>
              <tr className="border-b border-slate-100 text-left text-xs font-medium uppercase tracking-wide text-slate-500">
                <th scope="col" className="px-3 py-2">Agent</th>
                <th scope="col" className="px-3 py-2">Heartbeat</th>
                <th scope="col" className="px-3 py-2">Task</th>
                <th scope="col" className="px-3 py-2">Claims</th>
                <th scope="col" className="px-3 py-2">Last status</th>
                <th scope="col" className="px-3 py-2 text-right">
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {agents.map((a) => (
                <AgentRow key={a.address} agent={a} focused={a.address === focus} onMessage={(b) => open({ kind: 'agent', address: a.address }, b)} />
              ))}
            </tbody>
          </table>
        </div>
      )}
      {target && list.data && (
        <MessageDialog
          target={target}
          operator={list.data.operator}
          onSent={setSent}
          onClose={() => {
            setTarget(null);
            // The dialog gives focus back to what opened it; the row may have re-rendered since.
            if (opener.current?.isConnected) opener.current.focus();
          }}
        />
      )}
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
  );
}

const SOURCE: Record<NonNullable<BoardAgent['current_task']>['source'], string> = { checkin: 'from its check-in', wire: 'claimed on the wire', claim: 'from its newest claim' };

/** One agent: both names, liveness in text and colour, what it works on, what it holds, and the message action. */
function AgentRow({ agent: a, focused, onMessage }: { agent: BoardAgent; focused: boolean; onMessage: (button: HTMLButtonElement) => void }) {
  const ref = useScrollIntoView<HTMLTableRowElement>(focused);
  return (
    <tr
      ref={ref}
      className={cx('border-b border-slate-50 align-top last:border-0', focused && FOCUSED)}
      data-agent={a.address}
      data-haid={a.haid ?? undefined}
      data-urgency={a.urgency}
      data-silence={a.seconds_since_checkin ?? 'never'}
      data-focused={focused ? 'true' : undefined}
    >
      <th scope="row" className="px-3 py-2 text-left font-normal">
        <p className="whitespace-nowrap font-mono text-[12px] font-medium text-slate-800">
          {a.address}
          <LogLink kind="agent" id={a.address} className="ml-2 font-sans" />
        </p>
        {a.haid && (
          <p className="whitespace-nowrap font-mono text-[11px] text-slate-500" data-testid="agent-haid" title="Its HAID: the same agent, as claims and decisions name it">
            {a.haid}
          </p>
        )}
        <p className="whitespace-nowrap text-[11px] text-slate-500">
          <Badge tone={TIER_TONE[a.tier] ?? 'slate'}>{a.tier}</Badge>
          {a.identity === 'retired' && (
            <Badge tone="amber" className="ml-1">
              retired
            </Badge>
          )}
        </p>
      </th>
      <td className="whitespace-nowrap px-3 py-2">
        <LivenessBadge status={a.heartbeat} />
        <p className="text-[11px] text-slate-500">{silence(a)}</p>
      </td>
      <td className="px-3 py-2" data-testid="agent-task">
        {a.current_task ? (
          <p className="whitespace-nowrap">
            <span className="font-mono text-[12px] text-slate-800" data-testid="current-task">
              {a.current_task.id}
            </span>
          </p>
        ) : (
          <span className="text-slate-400">—</span>
        )}
        {a.current_task && <p className="whitespace-nowrap text-[11px] text-slate-500">{SOURCE[a.current_task.source]}</p>}
        {a.wire_tasks.length > 0 && (
          <ul className="mt-1 flex flex-wrap gap-1" data-wrap data-testid="wire-tasks">
            {a.wire_tasks.map((t) => (
              <li key={t.stream_id}>
                <Link href={`/streams?stream=${enc(t.stream_id)}`} className="rounded bg-slate-100 px-1.5 py-0.5 font-mono text-[11px] text-slate-700 hover:bg-slate-200" data-wire-task={t.task_id}>
                  {t.task_id} · {t.status}
                </Link>
              </li>
            ))}
          </ul>
        )}
      </td>
      <td className="min-w-28 px-3 py-2 [overflow-wrap:anywhere]" data-wrap data-testid="agent-claims">
        {a.claims.length === 0 ? (
          <p className="text-slate-400">none held</p>
        ) : (
          <ul className="space-y-0.5">
            {a.claims.map((c) => (
              <li key={c.id} data-claim-id={c.id}>
                <Link href={claimHref(c.id)} className="text-[12px] hover:underline">
                  <span className="font-mono font-medium text-slate-800">{c.task}</span>
                  <span className="text-slate-500"> on </span>
                  <span className="font-mono text-slate-700">{c.surfaces.join(', ')}</span>
                  {c.status !== 'active' && <span className="text-amber-700"> ({c.status})</span>}
                </Link>
              </li>
            ))}
          </ul>
        )}
        {a.haid && (
          <Link href={holderClaimsHref(a.haid)} className="block text-[11px] font-medium text-indigo-600 hover:text-indigo-800" data-testid="agent-claims-link" aria-label={`Every claim of ${a.address}, held and past`}>
            all its claims →
          </Link>
        )}
      </td>
      <td className="min-w-28 max-w-sm px-3 py-2 text-slate-700 [overflow-wrap:anywhere]" data-wrap>
        {a.status ?? <span className="text-slate-400">—</span>}
      </td>
      <td className="px-3 py-1.5 text-right">
        <Button size="sm" onClick={(e) => onMessage(e.currentTarget)} aria-label={`Message ${a.address}`} aria-haspopup="dialog">
          Message
        </Button>
        <p className="whitespace-nowrap text-[11px] text-slate-500" title="Messages queued for its next check-in">
          <span className="tabular-nums" data-testid="agent-pending">
            {a.pending}
          </span>{' '}
          waiting
        </p>
      </td>
    </tr>
  );
}
