'use client';
import { useQuery } from '@tanstack/react-query';
import { type Settled, errorMessage, seeded } from '@/components/data/seed';
import { useTRPC } from '@/components/trpc/react';
import { Badge, type Tone } from '@/components/ui/Badge';
import { Card } from '@/components/ui/Card';
import { Code, EmptyState, ErrorPanel } from '@/components/ui/Notice';
import { fmtInt, fmtTs } from '@/components/ui/format';
import type { PeerView, TaskRecord } from '@/components/trpc/types';
import { LogLink } from '@/components/log/LogLink';
import { cx } from '@/components/ui/cx';

const HEALTH_TONE: Record<string, Tone> = { ok: 'green', degraded: 'amber', down: 'red', unknown: 'slate' };
const STATE_TONE: Record<string, Tone> = { routed: 'indigo', queued: 'amber', rejected: 'red', done: 'green', error: 'red', partial: 'violet' };

function iso(s: string | null | undefined): string {
  return s ? fmtTs(s.replace(/\.\d{3}Z$/, 'Z')) : '—';
}

export function PeersView({ initialPeers, initialTasks, focus }: { initialPeers: Settled<PeerView[]>; initialTasks: Settled<TaskRecord[]>; focus?: string }) {
  const trpc = useTRPC();
  const peers = useQuery(trpc.peers.list.queryOptions(undefined, seeded(initialPeers)));
  const tasks = useQuery(trpc.peers.tasks.queryOptions(undefined, seeded(initialTasks)));
  const error = errorMessage(peers.error ?? tasks.error, peers.data ? initialTasks : initialPeers, peers.data !== undefined && tasks.data !== undefined);
  return (
    <div className="space-y-4">
      {error && <ErrorPanel message={error} />}
      {peers.data && peers.data.length === 0 ? (
        <EmptyState title="No peers have announced themselves yet">
          A worker opens its session with a SESSION_ANNOUNCE (model, context window, tools, MCP servers and their health, repo state):{' '}
          <Code>heimdall a2a announce &lt; announce.json</Code>
        </EmptyState>
      ) : (
        <div className="grid gap-3 lg:grid-cols-2 2xl:grid-cols-3" data-testid="peers">
          {(peers.data ?? []).map((p) => (
            <article
              key={p.agent_id}
              className={cx('rounded-lg border border-slate-200 bg-white p-4 shadow-sm', p.agent_id === focus && 'ring-2 ring-amber-300')}
              aria-label={`peer ${p.agent_id}`}
              data-peer={p.agent_id}
              data-focused={p.agent_id === focus ? 'true' : undefined}
            >
              <header className="flex items-start justify-between gap-2">
                <div className="min-w-0">
                  <h2 className="flex items-baseline gap-2 font-mono text-sm font-semibold text-slate-900">
                    <span className="truncate">{p.agent_id}</span>
                    <LogLink kind="peer" id={p.agent_id} className="font-sans" />
                  </h2>
                  <p className="text-xs text-slate-500">
                    {p.model} · tier {p.model_tier} · {fmtInt(p.context_window)} tokens context · protocol {p.protocol_version}
                  </p>
                </div>
                <Badge tone={p.repo_state.clean ? 'green' : 'amber'} title={p.repo_state.branch ?? undefined}>
                  {p.repo_state.clean ? 'clean' : 'dirty'} tree{p.repo_state.branch ? ` on ${p.repo_state.branch}` : ''}
                </Badge>
              </header>
              <dl className="mt-3 grid grid-cols-3 gap-2 text-center">
                <div className="rounded bg-slate-50 py-1.5">
                  <dt className="text-[11px] text-slate-500">Load</dt>
                  <dd className="text-lg font-semibold tabular-nums">{p.load}</dd>
                </div>
                <div className="rounded bg-slate-50 py-1.5">
                  <dt className="text-[11px] text-slate-500">Tools</dt>
                  <dd className="text-lg font-semibold tabular-nums">{p.tools.length}</dd>
                </div>
                <div className="rounded bg-slate-50 py-1.5">
                  <dt className="text-[11px] text-slate-500">Announces</dt>
                  <dd className="text-lg font-semibold tabular-nums">{p.announce_count}</dd>
                </div>
              </dl>
              <div className="mt-3">
                <h3 className="text-[11px] font-semibold uppercase tracking-wide text-slate-500">MCP servers</h3>
                {p.mcp_servers.length === 0 ? (
                  <p className="text-xs text-slate-500">none</p>
                ) : (
                  <ul className="mt-1 flex flex-wrap gap-1">
                    {p.mcp_servers.map((s) => (
                      <li key={s}>
                        <Badge tone={HEALTH_TONE[p.mcp_health[s] ?? 'unknown'] ?? 'red'}>
                          {s}: {p.mcp_health[s] ?? 'unknown'}
                        </Badge>
                      </li>
                    ))}
                  </ul>
                )}
              </div>
              <p className="mt-3 text-[11px] text-slate-500">
                Last announce {iso(p.announced_at)}
                {p.announced_by ? ` by ${p.announced_by}` : ''} · first {iso(p.first_announced_at)}
              </p>
            </article>
          ))}
        </div>
      )}
      <Card title="Dispatched tasks" description="TASK_DISPATCH routing and the TASK_RESULT that came back" bodyClassName="overflow-x-auto p-0">
        {(tasks.data ?? []).length === 0 ? (
          <p className="px-4 py-5 text-sm text-slate-500">
            No tasks dispatched yet: <Code>heimdall a2a dispatch &lt; dispatch.json</Code>
          </p>
        ) : (
          <table className="w-full text-sm" data-testid="a2a-tasks">
            <thead>
              <tr className="border-b border-slate-100 text-left text-xs font-medium uppercase tracking-wide text-slate-500">
                <th scope="col" className="px-4 py-2">Task</th>
                <th scope="col" className="px-4 py-2">State</th>
                <th scope="col" className="px-4 py-2">Executor</th>
                <th scope="col" className="px-4 py-2">Priority</th>
                <th scope="col" className="px-4 py-2">Last result</th>
                <th scope="col" className="px-4 py-2">Updated (UTC)</th>
              </tr>
            </thead>
            <tbody>
              {(tasks.data ?? []).map((t) => (
                <tr key={t.task_id} className="border-b border-slate-50 last:border-0">
                  <th scope="row" className="px-4 py-1.5 text-left font-mono text-[12px] font-medium">
                    {t.task_id}
                  </th>
                  <td className="px-4 py-1.5">
                    <Badge tone={STATE_TONE[t.state] ?? 'slate'}>{t.state}</Badge>
                    {t.flagged.length > 0 && <span className="ml-1 text-[11px] text-amber-700">flagged</span>}
                  </td>
                  <td className="px-4 py-1.5 font-mono text-[12px]">{t.executor ?? '—'}</td>
                  <td className="px-4 py-1.5 text-[12px]">{t.dispatch.task.priority}</td>
                  <td className="max-w-sm truncate px-4 py-1.5 text-[12px] text-slate-600">
                    {t.last_result
                      ? `${t.last_result.status}${t.last_result.blocked_reason ? `: ${t.last_result.blocked_reason}` : t.last_result.summary ? `: ${t.last_result.summary}` : ''} (${fmtInt(t.last_result.tokens_spent)} tokens reported)`
                      : '—'}
                  </td>
                  <td className="px-4 py-1.5 font-mono text-[12px] text-slate-500">{iso(t.updated_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </Card>
    </div>
  );
}
