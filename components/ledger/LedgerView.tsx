'use client';
/**
 * The ledger page: one run at a time (the latest unless the URL names one: /ledger?run=R), with
 * the same figures as `heimdall-ledger report --run R` on the card, the charts and the tables.
 */
import { useQuery } from '@tanstack/react-query';
import { usePathname, useSearchParams } from 'next/navigation';
import { type Settled, errorMessage, seeded } from '@/components/data/seed';
import { useTRPC } from '@/components/trpc/react';
import { Badge, toneFor } from '@/components/ui/Badge';
import { Card } from '@/components/ui/Card';
import { Select } from '@/components/ui/Field';
import { Code, EmptyState, ErrorPanel } from '@/components/ui/Notice';
import { fmtInt, fmtTs } from '@/components/ui/format';
import { savedText } from './format';
import { GsdRunView } from './GsdRunView';
import { ArmsPerRole, SavingsOverTime } from './LedgerCharts';
import { MeasureHint, SavingsCard } from './SavingsCard';
import type { LedgerLines, SavingsData } from './types';

export function LedgerView({ initialRun, initialReport, initialEntries }: { initialRun: string; initialReport: Settled<SavingsData>; initialEntries: Settled<LedgerLines> }) {
  const trpc = useTRPC();
  const pathname = usePathname();
  const params = useSearchParams();
  // The URL is the state: a link or a reload shows the same run.
  const run = params.get('run') ?? '';
  const input = run ? { run } : {};
  const fromServer = run === initialRun;
  const report = useQuery(trpc.ledger.report.queryOptions(input, fromServer ? seeded(initialReport) : {}));
  const entries = useQuery(trpc.ledger.entries.queryOptions({ ...input, limit: 25 }, fromServer ? seeded(initialEntries) : {}));
  const data = report.data;
  const error = errorMessage(report.error ?? entries.error, fromServer ? (data ? initialEntries : initialReport) : undefined, data !== undefined && entries.data !== undefined);
  const choose = (next: string) => {
    const q = new URLSearchParams(params.toString());
    if (next) q.set('run', next);
    else q.delete('run');
    const qs = q.toString();
    // Next.js keeps useSearchParams in step with the history API, with no server round trip.
    window.history.pushState(null, '', qs ? `${pathname}?${qs}` : pathname);
  };
  const shown = data?.run ?? '';

  return (
    <div className="space-y-4">
      {error && <ErrorPanel message={error} />}
      {error && run && (
        <p className="text-sm">
          <button type="button" className="font-medium text-indigo-600 hover:text-indigo-800" onClick={() => choose('')}>
            Show the latest run instead →
          </button>
        </p>
      )}
      {data?.tornLine && (
        <p className="rounded-md bg-amber-50 px-3 py-2 text-sm text-amber-900">ledger.jsonl line {data.tornLine} is cut short (a writer died mid-line); it is left out of every figure.</p>
      )}
      {data && data.run === null && (
        <EmptyState title="Nothing measured yet">
          <MeasureHint />
        </EmptyState>
      )}
      {data && data.run !== null && (
        <>
          <div className="flex flex-wrap items-end gap-3">
            <label className="flex flex-col gap-1 text-xs font-medium text-slate-600">
              Run
              <Select value={shown} onChange={(e) => choose(e.target.value)} className="w-[34rem] max-w-full" aria-describedby="run-help" data-testid="run-picker">
                {data.runs.map((r, i) => (
                  <option key={r.run} value={r.run}>
                    {r.label}
                    {i === 0 ? ' (latest)' : ''}
                  </option>
                ))}
              </Select>
            </label>
            <p id="run-help" className="pb-1.5 text-xs text-slate-500">
              The same figures as <Code>heimdall-ledger report --run {shown}</Code>. {data.runs.length} run{data.runs.length === 1 ? '' : 's'} in this ledger.
            </p>
          </div>
          <div className="grid gap-4 xl:grid-cols-[minmax(0,28rem)_minmax(0,1fr)]">
            <SavingsCard report={data} exportable compact />
            <Card title="Tokens per arm and role, in this run" description={`Counted with ${data.tokenizer}. ${data.compared_with}`}>
              <ArmsPerRole report={data} />
            </Card>
          </div>
          {data.gsd && <GsdRunView gsd={data.gsd} />}
          <div className="grid gap-4 2xl:grid-cols-2">
            <Card title="Savings over time" description="Every run with a baseline, when it was measured, each against its own baseline; the dashed line is the run shown">
              <SavingsOverTime runs={data.runs} current={data.run} />
            </Card>
            <Card title="Per role, in this run" bodyClassName="overflow-x-auto p-0">
              <RoleTable report={data} />
            </Card>
          </div>
          <Card title="Latest ledger lines of this run" description={entries.data ? `ledger.jsonl, newest first: ${Math.min(entries.data.entries.length, entries.data.total)} of ${fmtInt(entries.data.total)}` : 'ledger.jsonl, newest first'} bodyClassName="overflow-x-auto p-0">
            <LinesTable lines={entries.data} />
          </Card>
        </>
      )}
    </div>
  );
}

function RoleTable({ report }: { report: SavingsData }) {
  const lean = report.roles.some((r) => r.lean !== undefined);
  const base = report.baseline === 'workspace' ? 'Baseline' : 'v1';
  return (
    <table className="w-full whitespace-nowrap text-sm" data-testid="ledger-table">
      <thead>
        <tr className="border-b border-slate-100 text-left text-xs font-medium uppercase tracking-wide text-slate-500">
          <th scope="col" className="px-4 py-2">Role</th>
          <th scope="col" className="px-3 py-2 text-right">Lines</th>
          <th scope="col" className="px-3 py-2 text-right">Counted</th>
          <th scope="col" className="px-3 py-2 text-right">Reported</th>
          <th scope="col" className="px-3 py-2 text-right">{base}</th>
          {lean && <th scope="col" className="px-3 py-2 text-right">Lean</th>}
          <th scope="col" className="px-3 py-2 text-right">v2</th>
          <th scope="col" className="px-4 py-2 text-right">Saving</th>
        </tr>
      </thead>
      <tbody className="font-mono text-[13px] tabular-nums">
        {report.roles.map((r) => (
          <tr key={r.role} data-role={r.role} className="border-b border-slate-50 last:border-0">
            <th scope="row" className="px-4 py-2 text-left font-sans font-medium text-slate-800 dark:text-slate-200">
              {r.role}
            </th>
            <td className="px-3 py-2 text-right">{fmtInt(r.entries)}</td>
            <td className="px-3 py-2 text-right">{fmtInt(r.counted_tokens)}</td>
            <td className="px-3 py-2 text-right">{fmtInt(r.reported_tokens)}</td>
            <td className="px-3 py-2 text-right" data-figure="baseline">{r.baseline === undefined ? '—' : fmtInt(r.baseline)}</td>
            {lean && <td className="px-3 py-2 text-right" data-figure="lean">{r.lean === undefined ? '—' : fmtInt(r.lean)}</td>}
            <td className="px-3 py-2 text-right" data-figure="measured">{fmtInt(r.tokens)}</td>
            <td className={`px-4 py-2 text-right ${r.saved_pct !== undefined && r.saved_pct > 0 ? 'text-emerald-700 dark:text-emerald-400' : ''}`} data-figure="saved">
              {savedText(r.saved_pct)}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function LinesTable({ lines }: { lines: LedgerLines | undefined }) {
  const recent = lines?.entries ?? [];
  if (recent.length === 0) return <p className="px-4 py-6 text-sm text-slate-500">No ledger lines in this run.</p>;
  return (
    <table className="w-full text-sm" data-testid="ledger-lines">
      <thead>
        <tr className="border-b border-slate-100 text-left text-xs font-medium uppercase tracking-wide text-slate-500">
          <th scope="col" className="px-4 py-2">Time (UTC)</th>
          <th scope="col" className="px-4 py-2">Role</th>
          <th scope="col" className="px-4 py-2">Arm</th>
          <th scope="col" className="px-4 py-2">Kind</th>
          <th scope="col" className="px-4 py-2">Message</th>
          <th scope="col" className="px-3 py-2 text-right">Tokens</th>
          <th scope="col" className="px-4 py-2">Source</th>
        </tr>
      </thead>
      <tbody>
        {recent.map((e, i) => (
          <tr key={`${e.msg_id}-${i}`} className="border-b border-slate-50 last:border-0">
            <td className="px-4 py-1.5 font-mono text-[12px] text-slate-500">{fmtTs(e.ts)}</td>
            <td className="px-4 py-1.5">
              <Badge tone={toneFor(e.role)}>{e.role}</Badge>
            </td>
            <td className="px-4 py-1.5 font-mono text-[12px] text-slate-600">{e.arm ?? 'v2'}</td>
            <td className="px-4 py-1.5 text-slate-700 dark:text-slate-300">
              {e.kind}
              {e.plan ? <span className="ml-1 font-mono text-[11px] text-slate-500">{e.plan}</span> : null}
            </td>
            <td className="max-w-64 truncate px-4 py-1.5 font-mono text-[12px] text-slate-600" title={e.msg_id}>
              {e.msg_id}
            </td>
            <td className="px-4 py-1.5 text-right font-mono tabular-nums">{fmtInt(e.tokens)}</td>
            <td className="px-4 py-1.5 text-xs text-slate-500">{e.source === 'tokenizer' ? (e.tokenizer ?? 'tokenizer') : 'reported'}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
