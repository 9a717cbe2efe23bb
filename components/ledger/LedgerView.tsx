'use client';
import { useQuery } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { type Settled, errorMessage, seeded } from '@/components/data/seed';
import { useTRPC } from '@/components/trpc/react';
import { Badge, toneFor } from '@/components/ui/Badge';
import { Card } from '@/components/ui/Card';
import { Select } from '@/components/ui/Field';
import { Code, ErrorPanel } from '@/components/ui/Notice';
import { fmtInt, fmtPct, fmtTs } from '@/components/ui/format';
import type { LedgerRead, LedgerReport } from '@/components/trpc/types';
import { BaselineVsMeasured, SavingsOverTime } from './LedgerCharts';
import { SavingsCard } from './SavingsCard';
import { savingsOverTime } from './series';

export function LedgerView({ initialReport, initialEntries }: { initialReport: Settled<LedgerReport>; initialEntries: Settled<LedgerRead> }) {
  const trpc = useTRPC();
  const [run, setRun] = useState('');
  const report = useQuery(trpc.ledger.report.queryOptions(run ? { run } : {}, run ? {} : seeded(initialReport)));
  const entries = useQuery(trpc.ledger.entries.queryOptions(undefined, seeded(initialEntries)));
  const allReport = useQuery(trpc.ledger.report.queryOptions({}, seeded(initialReport)));
  const runs = useMemo(() => {
    const seen = new Map<string, string>();
    for (const e of entries.data?.entries ?? []) if (e.run && !seen.has(e.run)) seen.set(e.run, e.ts);
    return [...seen].sort((a, b) => b[1].localeCompare(a[1])).map(([id]) => id);
  }, [entries.data]);
  const baselines = useMemo(() => Object.fromEntries((allReport.data?.roles ?? []).map((r) => [r.role, r.baseline])), [allReport.data]);
  const points = useMemo(() => savingsOverTime(entries.data?.entries ?? [], baselines), [entries.data, baselines]);
  const rolesWithBaseline = (allReport.data?.roles ?? []).filter((r) => r.baseline !== undefined).map((r) => r.role);
  const error = errorMessage(report.error ?? entries.error, report.data ? initialEntries : initialReport, report.data !== undefined && entries.data !== undefined);
  const torn = report.data?.tornLine ?? entries.data?.tornLine;
  const recent = (entries.data?.entries ?? []).slice(-25).reverse();

  return (
    <div className="space-y-4">
      {error && <ErrorPanel message={error} />}
      {torn && <p className="rounded-md bg-amber-50 px-3 py-2 text-sm text-amber-900">ledger.jsonl line {torn} is cut short (a writer died mid-line); it is left out of every figure.</p>}
      <div className="flex flex-wrap items-end gap-3">
        <label className="flex flex-col gap-1 text-xs font-medium text-slate-600">
          Figures for
          <Select value={run} onChange={(e) => setRun(e.target.value)} className="w-72" aria-describedby="run-help">
            <option value="">All ledger lines</option>
            {runs.map((r) => (
              <option key={r} value={r}>
                run {r}
              </option>
            ))}
          </Select>
        </label>
        <p id="run-help" className="pb-1.5 text-xs text-slate-500">
          The same figures as <Code>heimdall-ledger report{run ? ` --run ${run}` : ''}</Code>.
        </p>
      </div>
      <div className="grid gap-4 xl:grid-cols-[minmax(0,26rem)_minmax(0,1fr)]">
        {report.data ? <SavingsCard report={report.data} run={run || undefined} exportable compact /> : <div />}
        <Card title="Baseline vs measured, per role" description="Tokens, counted with the tokenizer named on the card">
          {report.data && <BaselineVsMeasured report={report.data} />}
        </Card>
      </div>
      <div className="grid gap-4 xl:grid-cols-2">
        <Card title="Savings over time" description="Per run (lines without a run are grouped by day), against today's baselines">
          <SavingsOverTime points={points} roles={rolesWithBaseline} />
        </Card>
        <Card title="Per role" bodyClassName="overflow-x-auto p-0">
          <table className="w-full text-sm" data-testid="ledger-table">
            <thead>
              <tr className="border-b border-slate-100 text-left text-xs font-medium uppercase tracking-wide text-slate-500">
                <th scope="col" className="px-4 py-2">Role</th>
                <th scope="col" className="px-3 py-2 text-right">Lines</th>
                <th scope="col" className="px-3 py-2 text-right">Counted</th>
                <th scope="col" className="px-3 py-2 text-right">Reported</th>
                <th scope="col" className="px-3 py-2 text-right">Baseline</th>
                <th scope="col" className="px-3 py-2 text-right">Change</th>
              </tr>
            </thead>
            <tbody className="font-mono text-[13px] tabular-nums">
              {(report.data?.roles ?? []).map((r) => (
                <tr key={r.role} className="border-b border-slate-50 last:border-0">
                  <th scope="row" className="px-4 py-2 text-left font-sans font-medium text-slate-800">
                    {r.role}
                  </th>
                  <td className="px-3 py-2 text-right">{fmtInt(r.entries)}</td>
                  <td className="px-3 py-2 text-right">{fmtInt(r.counted_tokens)}</td>
                  <td className="px-3 py-2 text-right">{fmtInt(r.reported_tokens)}</td>
                  <td className="px-3 py-2 text-right">{r.baseline === undefined ? '—' : fmtInt(r.baseline)}</td>
                  <td className={`px-4 py-2 text-right ${r.pct !== undefined && r.pct < 0 ? 'text-emerald-700' : 'text-slate-700'}`}>{r.pct === undefined ? '—' : fmtPct(r.pct)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </Card>
      </div>
      <Card title="Latest ledger lines" description="ledger.jsonl, newest first" bodyClassName="overflow-x-auto p-0">
        {recent.length === 0 ? (
          <p className="px-4 py-6 text-sm text-slate-500">
            No ledger lines yet: <Code>heimdall-ledger log --role orchestration --kind delta_brief --msg-id b1 &lt; brief.md</Code>
          </p>
        ) : (
          <table className="w-full text-sm">
            <thead>
              <tr className="border-b border-slate-100 text-left text-xs font-medium uppercase tracking-wide text-slate-500">
                <th scope="col" className="px-4 py-2">Time (UTC)</th>
                <th scope="col" className="px-4 py-2">Role</th>
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
                  <td className="px-4 py-1.5 text-slate-700">{e.kind}</td>
                  <td className="max-w-64 truncate px-4 py-1.5 font-mono text-[12px] text-slate-600" title={e.msg_id}>
                    {e.msg_id}
                  </td>
                  <td className="px-4 py-1.5 text-right font-mono tabular-nums">{fmtInt(e.tokens)}</td>
                  <td className="px-4 py-1.5 text-xs text-slate-500">{e.source === 'tokenizer' ? (e.tokenizer ?? 'tokenizer') : 'reported'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </Card>
    </div>
  );
}
