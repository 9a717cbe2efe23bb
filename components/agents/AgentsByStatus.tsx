'use client';
import Link from 'next/link';
import { Code } from '@/components/ui/Notice';
import { cx } from '@/components/ui/cx';
import type { AgentList } from '@/components/trpc/types';
import { LIVENESS, LIVENESS_ORDER, LivenessBadge, silence } from './Liveness';

/** How many agents the overview lists, most urgent first (the agents page has them all). */
const SHOWN = 6;

/** The overview's agents card: how many in each heartbeat status, and the agents in the board's urgency order. */
export function AgentsByStatus({ data }: { data: AgentList | undefined }) {
  const agents = data?.agents ?? [];
  return (
    <section aria-labelledby="agents-status-title" className="rounded-lg border border-slate-200 bg-white shadow-sm">
      <header className="flex items-start justify-between gap-3 border-b border-slate-100 px-4 py-3">
        <div>
          <h2 id="agents-status-title" className="text-sm font-semibold text-slate-800">
            Agents by status
          </h2>
          <p className="mt-0.5 text-xs text-slate-500">Most urgent first: unresponsive, stale, deep work, active; then the longest silence</p>
        </div>
        <Link href="/agents" className="whitespace-nowrap text-xs font-medium text-indigo-600 hover:text-indigo-800">
          All agents →
        </Link>
      </header>
      <div className="p-4">
        {agents.length === 0 ? (
          <p className="text-sm text-slate-500">
            No agents have checked in yet: <Code>heimdall herd checkin --as mason.1@core --status &quot;...&quot;</Code>
          </p>
        ) : (
          <>
            <ul className="grid grid-cols-4 gap-2" data-testid="overview-agents">
              {LIVENESS_ORDER.map((s) => {
                const n = agents.filter((a) => a.heartbeat === s).length;
                return (
                  <li key={s} className={cx('rounded-md border px-3 py-2', n > 0 && (s === 'stale' || s === 'unresponsive') ? 'border-amber-200 bg-amber-50/60' : 'border-slate-100 bg-slate-50/60')}>
                    <p className="flex items-center gap-1.5 text-[11px] font-medium text-slate-600">
                      <span aria-hidden className={cx('inline-block size-2 rounded-full', LIVENESS[s].dot)} />
                      {LIVENESS[s].label}
                    </p>
                    <p className="text-xl font-semibold tabular-nums text-slate-900" data-testid={`overview-liveness-${s}`}>
                      {n}
                    </p>
                  </li>
                );
              })}
            </ul>
            <ol className="mt-3 space-y-1 text-sm" data-testid="overview-agent-list" aria-label="Agents, most urgent first">
              {agents.slice(0, SHOWN).map((a) => (
                <li key={a.address} className="grid grid-cols-[6.5rem_minmax(0,auto)_minmax(0,1fr)] items-baseline gap-2" data-agent={a.address}>
                  <LivenessBadge status={a.heartbeat} />
                  <Link href={`/agents?agent=${encodeURIComponent(a.address)}`} className="truncate font-mono text-[12px] text-slate-800 hover:underline">
                    {a.address}
                  </Link>
                  <span className="truncate text-xs text-slate-500">
                    {silence(a)}
                    {a.current_task ? ` · ${a.current_task.id}` : ''}
                  </span>
                </li>
              ))}
            </ol>
            {agents.length > SHOWN && (
              <p className="mt-2 text-xs text-slate-500">
                and {agents.length - SHOWN} more on <Link href="/agents" className="font-medium text-indigo-600 hover:text-indigo-800">the agents page</Link>
              </p>
            )}
          </>
        )}
      </div>
    </section>
  );
}
