'use client';
import { Bar, BarChart, CartesianGrid, LabelList, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { toneFor } from '@/components/ui/Badge';
import { fmtInt } from '@/components/ui/format';
import type { LedgerReport } from '@/components/trpc/types';
import type { SavingsPoint } from './series';

const LINE_COLOURS: Record<string, string> = {
  indigo: '#6366f1',
  teal: '#14b8a6',
  violet: '#8b5cf6',
  orange: '#f97316',
  cyan: '#06b6d4',
  rose: '#ec4899',
  lime: '#65a30d',
  blue: '#0ea5e9',
  amber: '#f59e0b',
  green: '#10b981',
};

function colourFor(role: string): string {
  return LINE_COLOURS[toneFor(role)] ?? '#6366f1';
}

/** Baseline vs measured tokens per role, with the values written on the bars. */
export function BaselineVsMeasured({ report }: { report: LedgerReport }) {
  const data = report.roles.map((r) => ({ role: r.role, baseline: r.baseline ?? 0, measured: r.tokens, hasBaseline: r.baseline !== undefined }));
  if (data.length === 0) return <p className="py-10 text-center text-sm text-slate-500">No ledger lines yet.</p>;
  return (
    <figure aria-label="Baseline versus measured tokens per role" data-testid="chart-baseline">
      <div className="h-72">
        <ResponsiveContainer width="100%" height="100%">
          <BarChart data={data} margin={{ top: 24, right: 12, bottom: 4, left: 8 }} barGap={6}>
            <CartesianGrid strokeDasharray="3 3" vertical={false} stroke="#e2e8f0" />
            <XAxis dataKey="role" tick={{ fontSize: 12, fill: '#475569' }} tickLine={false} axisLine={{ stroke: '#cbd5e1' }} />
            <YAxis tickFormatter={(v: number) => fmtInt(v)} tick={{ fontSize: 11, fill: '#64748b' }} tickLine={false} axisLine={false} width={64} />
            <Tooltip formatter={(v) => `${fmtInt(Number(v))} tokens`} cursor={{ fill: '#f1f5f9' }} />
            <Legend wrapperStyle={{ fontSize: 12 }} />
            <Bar dataKey="baseline" name="v1 baseline" fill="#94a3b8" radius={[3, 3, 0, 0]} isAnimationActive={false}>
              <LabelList dataKey="baseline" position="top" formatter={(v) => (Number(v) > 0 ? fmtInt(Number(v)) : '')} style={{ fontSize: 11, fill: '#475569' }} />
            </Bar>
            <Bar dataKey="measured" name="measured" fill="#6366f1" radius={[3, 3, 0, 0]} isAnimationActive={false}>
              <LabelList dataKey="measured" position="top" formatter={(v) => fmtInt(Number(v))} style={{ fontSize: 11, fill: '#3730a3', fontWeight: 600 }} />
            </Bar>
          </BarChart>
        </ResponsiveContainer>
      </div>
    </figure>
  );
}

/** Percentage saved against the baseline, per run, per role with a baseline. */
export function SavingsOverTime({ points, roles }: { points: SavingsPoint[]; roles: string[] }) {
  if (points.length === 0 || roles.length === 0) {
    return <p className="py-10 text-center text-sm text-slate-500">Savings appear here once a role has a baseline and ledger lines.</p>;
  }
  const data = points.map((p) => ({ group: p.group, ...Object.fromEntries(roles.map((r) => [r, p.saved[r]])) }));
  return (
    <figure aria-label="Percentage saved against the baseline, per run" data-testid="chart-over-time">
      <div className="h-72">
        <ResponsiveContainer width="100%" height="100%">
          <LineChart data={data} margin={{ top: 24, right: 24, bottom: 4, left: 8 }}>
            <CartesianGrid strokeDasharray="3 3" vertical={false} stroke="#e2e8f0" />
            <XAxis dataKey="group" tick={{ fontSize: 11, fill: '#475569' }} tickLine={false} axisLine={{ stroke: '#cbd5e1' }} interval="preserveStartEnd" />
            <YAxis unit="%" domain={[(min: number) => Math.min(0, Math.floor(min / 10) * 10), 100]} tick={{ fontSize: 11, fill: '#64748b' }} tickLine={false} axisLine={false} width={48} />
            <Tooltip formatter={(v) => `${Number(v)}% saved`} />
            <Legend wrapperStyle={{ fontSize: 12 }} />
            {roles.map((r) => (
              <Line key={r} type="monotone" dataKey={r} name={`${r} saved`} stroke={colourFor(r)} strokeWidth={2} dot={{ r: 4 }} connectNulls isAnimationActive={false}>
                <LabelList dataKey={r} position="top" formatter={(v) => (v === undefined || v === null ? '' : `${Number(v)}%`)} style={{ fontSize: 11, fill: '#334155' }} />
              </Line>
            ))}
          </LineChart>
        </ResponsiveContainer>
      </div>
    </figure>
  );
}
