'use client';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { type Settled, errorMessage, seeded } from '@/components/data/seed';
import { useTRPC } from '@/components/trpc/react';
import { Badge, type Tone } from '@/components/ui/Badge';
import { Button } from '@/components/ui/Button';
import { Card } from '@/components/ui/Card';
import { Code, EmptyState, ErrorPanel } from '@/components/ui/Notice';
import { cx } from '@/components/ui/cx';
import { fmtInt, fmtTs } from '@/components/ui/format';
import type { WireOverview } from '@/components/trpc/types';
import { LogLink } from '@/components/log/LogLink';

const TASK_TONE: Record<string, Tone> = {
  pending: 'slate',
  waiting: 'slate',
  available: 'blue',
  claimed: 'indigo',
  started: 'violet',
  planned: 'violet',
  blocked: 'red',
  complete: 'green',
  stale: 'amber',
};

function iso(s: string | null | undefined): string {
  return s ? fmtTs(s.replace(/\.\d{3}Z$/, 'Z')) : '—';
}

export function StreamsView({ initial, initialStream }: { initial: Settled<WireOverview>; initialStream?: string }) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const overview = useQuery(trpc.streams.overview.queryOptions(undefined, seeded(initial)));
  // A stream named in the URL (a link from the log) opens selected.
  const [selected, setSelected] = useState<{ topic: string; stream_id: string } | undefined>(() => {
    const s = initial.ok && initialStream ? initial.data.streams.find((r) => r.stream_id === initialStream) : undefined;
    return s ? { topic: s.topic, stream_id: s.stream_id } : undefined;
  });
  const [confirm, setConfirm] = useState(false);
  const [replayed, setReplayed] = useState('');
  const replay = useMutation(
    trpc.streams.replay.mutationOptions({
      onSuccess: (r) => {
        setReplayed(`Read model dropped and rebuilt from the log: ${fmtInt(r.processed)} events in ${r.seconds.toFixed(1)} s.`);
        setConfirm(false);
        void qc.invalidateQueries({ queryKey: trpc.streams.pathKey() });
      },
    }),
  );
  const error = errorMessage(overview.error, initial, overview.data !== undefined);
  const d = overview.data;
  return (
    <div className="space-y-4">
      {error && <ErrorPanel title="The wire read model could not be read" message={error} />}
      {replay.error && <ErrorPanel title="Replay failed" message={replay.error.message} />}
      {d && (
        <div className="flex flex-wrap items-start justify-between gap-3 rounded-lg border border-slate-200 bg-white px-4 py-3 text-xs text-slate-600 shadow-sm">
          <dl className="grid grid-cols-[auto_minmax(0,1fr)] gap-x-3 gap-y-0.5">
            <dt className="font-medium text-slate-500">Log</dt>
            <dd className="truncate font-mono">{d.log}</dd>
            <dt className="font-medium text-slate-500">Read model</dt>
            <dd className="truncate font-mono">{d.readModel}</dd>
            <dt className="font-medium text-slate-500">Reduced up to</dt>
            <dd className="font-mono">{d.offsets.length ? d.offsets.map((o) => `${o.topic}#${o.last_sequence_number}`).join(', ') : 'nothing yet'}</dd>
          </dl>
          <div className="flex flex-col items-end gap-1.5">
            {confirm ? (
              <div className="flex items-center gap-2">
                <span className="text-slate-700">Drop the read model and rebuild it from the log?</span>
                <Button size="sm" variant="danger" onClick={() => replay.mutate()} disabled={replay.isPending}>
                  {replay.isPending ? 'Replaying…' : 'Replay'}
                </Button>
                <Button size="sm" variant="ghost" onClick={() => setConfirm(false)}>
                  Cancel
                </Button>
              </div>
            ) : (
              <Button size="sm" onClick={() => setConfirm(true)}>
                Replay the log…
              </Button>
            )}
            <p role="status" aria-live="polite" className="text-emerald-700">
              {replayed}
            </p>
          </div>
        </div>
      )}
      {d && d.problems.length > 0 && (
        <ul className="rounded-md bg-amber-50 px-4 py-2 text-sm text-amber-900">
          {d.problems.map((p) => (
            <li key={p}>{p}</li>
          ))}
        </ul>
      )}
      {d && d.streams.length === 0 ? (
        <EmptyState title="No wire events yet">
          Producers append Wire 1.1 envelopes to the canonical log; the listener reduces them into this read model:{' '}
          <Code>echo &apos;{'{'}&quot;type&quot;:&quot;task.created&quot;,...{'}'}&apos; | heimdall wire emit</Code>
        </EmptyState>
      ) : (
        d && (
          <div className="grid gap-4 2xl:grid-cols-[minmax(0,1fr)_minmax(0,1fr)]">
            <Card title="Streams" description="Select one to read its events" bodyClassName="overflow-x-auto p-0">
              <table className="w-full text-sm" data-testid="streams-table">
                <thead>
                  <tr className="border-b border-slate-100 text-left text-xs font-medium uppercase tracking-wide text-slate-500">
                    <th scope="col" className="px-4 py-2">Stream</th>
                    <th scope="col" className="px-4 py-2">Status</th>
                    <th scope="col" className="px-4 py-2 text-right">Events</th>
                    <th scope="col" className="px-4 py-2">Last event</th>
                    <th scope="col" className="px-4 py-2 text-right" title="gaps / duplicates">Gaps / dups</th>
                  </tr>
                </thead>
                <tbody>
                  {d.streams.map((s) => {
                    const on = selected?.stream_id === s.stream_id && selected.topic === s.topic;
                    return (
                      <tr key={`${s.topic}:${s.stream_id}`} className={cx('border-b border-slate-50 last:border-0', on && 'bg-indigo-50')}>
                        <th scope="row" className="px-4 py-1.5 text-left">
                          <button type="button" onClick={() => setSelected({ topic: s.topic, stream_id: s.stream_id })} aria-pressed={on} className="text-left font-mono text-[12px] font-medium text-indigo-700 hover:underline">
                            {s.stream_id}
                          </button>
                          <span className="block text-[11px] font-normal text-slate-500">
                            {s.stream_type} · {s.topic}
                          </span>
                        </th>
                        <td className="px-4 py-1.5 text-slate-700">{s.status}</td>
                        <td className="px-4 py-1.5 text-right tabular-nums">{fmtInt(s.event_count)}</td>
                        <td className="px-4 py-1.5 text-[12px]">
                          <span className="block font-mono">{s.last_event_type}</span>
                          <span className="block text-[11px] text-slate-500">{iso(s.last_event_at)}</span>
                        </td>
                        <td className={cx('px-4 py-1.5 text-right tabular-nums', (s.gap_count > 0 || s.duplicate_count > 0) && 'text-amber-700')}>
                          {s.gap_count} / {s.duplicate_count}
                        </td>
                      </tr>
                    );
                  })}
                </tbody>
              </table>
            </Card>
            {selected ? <StreamEvents topic={selected.topic} streamId={selected.stream_id} /> : <TaskRuns tasks={d.tasks} />}
          </div>
        )
      )}
      {d && d.streams.length > 0 && selected && <TaskRuns tasks={d.tasks} />}
    </div>
  );
}

function TaskRuns({ tasks }: { tasks: WireOverview['tasks'] }) {
  return (
    <Card title="Task runs" description="task_run_state: status, holder, lease and last heartbeat (stale when a lease ran out without one)" bodyClassName="overflow-x-auto p-0">
      {tasks.length === 0 ? (
        <p className="px-4 py-5 text-sm text-slate-500">No task events yet.</p>
      ) : (
        <table className="w-full text-sm" data-testid="tasks-table">
          <thead>
            <tr className="border-b border-slate-100 text-left text-xs font-medium uppercase tracking-wide text-slate-500">
              <th scope="col" className="px-4 py-2">Task</th>
              <th scope="col" className="px-4 py-2">Status</th>
              <th scope="col" className="px-4 py-2">Claimed by</th>
              <th scope="col" className="px-4 py-2">Lease until</th>
              <th scope="col" className="px-4 py-2">Note</th>
            </tr>
          </thead>
          <tbody>
            {tasks.map((t) => (
              <tr key={`${t.stream_id}#${t.attempt}`} className="border-b border-slate-50 last:border-0">
                <th scope="row" className="px-4 py-1.5 text-left font-mono text-[12px] font-medium">
                  {t.task_id}
                  {t.attempt > 1 && <span className="ml-1 text-slate-500">#{t.attempt}</span>}
                </th>
                <td className="px-4 py-1.5">
                  <Badge tone={TASK_TONE[t.status] ?? 'slate'}>{t.status}</Badge>
                </td>
                <td className="px-4 py-1.5 font-mono text-[12px]">{t.claimed_by ?? '—'}</td>
                <td className="px-4 py-1.5 font-mono text-[12px] text-slate-500">{iso(t.lease_expires_at)}</td>
                <td className="max-w-xs truncate px-4 py-1.5 text-[12px] text-slate-600">
                  {t.blocker ? `blocked: ${t.blocker}` : t.output_ref ? `output ${t.output_ref}` : t.plan_ref ? `plan ${t.plan_ref}` : t.lost_claim_count ? `${t.lost_claim_count} lost claims` : ''}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </Card>
  );
}

function StreamEvents({ topic, streamId }: { topic: string; streamId: string }) {
  const trpc = useTRPC();
  const events = useQuery(trpc.streams.events.queryOptions({ topic, stream_id: streamId }));
  return (
    <Card title={`Events of ${streamId}`} actions={<LogLink kind="stream" id={streamId} label="Log lines" />} description={events.data ? `${fmtInt(events.data.total)} on topic ${topic}${events.data.total > events.data.events.length ? `, the last ${events.data.events.length} shown` : ''}` : `topic ${topic}`} bodyClassName="overflow-x-auto p-0">
      {events.error ? (
        <ErrorPanel className="m-4" message={events.error.message} />
      ) : !events.data ? (
        <p className="px-4 py-5 text-sm text-slate-500">Reading the log…</p>
      ) : (
        <ol className="max-h-[32rem] divide-y divide-slate-50 overflow-y-auto" data-testid="stream-events">
          {[...events.data.events].reverse().map((r) => {
            const w = (r.body ?? {}) as { type?: string; sender?: string; stream_seq?: number; payload?: unknown };
            return (
              <li key={r.sequence_number} className="px-4 py-2">
                <p className="flex flex-wrap items-baseline gap-x-2 text-[12px]">
                  <span className="font-mono text-slate-400">#{r.sequence_number}</span>
                  <span className="font-mono font-semibold text-slate-800">{w.type ?? '(not a wire)'}</span>
                  <span className="text-slate-500">seq {w.stream_seq ?? '—'}</span>
                  <span className="font-mono text-slate-500">{w.sender}</span>
                  <span className="ml-auto font-mono text-slate-400">{iso(r.consensus_timestamp)}</span>
                </p>
                <pre className="mt-1 overflow-x-auto whitespace-pre-wrap break-words rounded bg-slate-50 px-2 py-1 font-mono text-[11px] text-slate-700">{JSON.stringify(w.payload ?? r.body)}</pre>
              </li>
            );
          })}
        </ol>
      )}
    </Card>
  );
}
