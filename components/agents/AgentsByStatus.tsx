'use client';
import Link from 'next/link';
import { Card } from '@/components/ui/Card';
import { Code } from '@/components/ui/Notice';
import { cx } from '@/components/ui/cx';
import type { AgentList } from './AgentsView';
import { LIVENESS, LIVENESS_ORDER, LivenessBadge } from './Liveness';

/** The overview's agents card: how many in each heartbeat status, and who needs a look. */
export function AgentsByStatus({ data }: { data: AgentList | undefined }) {
  const agents = data?.agents ?? [];
  const attention = agents.filter((a) => a.heartbeat === 'stale' || a.heartbeat === 'unresponsive');
  return (
    <section aria-labelledby="agents-status-title" className="rounded-lg border border-slate-200 bg-white shadow-sm">
      <header className="flex items-start justify-between gap-3 border-b border-slate-100 px-4 py-3">
        <div>
          <h2 id="agents-status-title" className="text-sm font-semibold text-slate-800">
            Agents by status
          </h2>
          <p className="mt-0.5 text-xs text-slate-500">By the age of each agent&apos;s last check-in</p>
        </div>
        <Link href="/agents" className="text-xs font-medium text-indigo-600 hover:text-indigo-800">
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
            {attention.length > 0 && (
              <ul className="mt-3 space-y-1 text-sm">
                {attention.slice(0, 5).map((a) => (
                  <li key={a.address} className="flex items-center gap-2">
                    <LivenessBadge status={a.heartbeat} />
                    <span className="font-mono text-[12px] text-slate-800">{a.address}</span>
                    <span className="truncate text-xs text-slate-500">{a.status}</span>
                  </li>
                ))}
              </ul>
            )}
          </>
        )}
      </div>
    </section>
  );
}
