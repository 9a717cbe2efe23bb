'use client';
import { Bar, BarChart, CartesianGrid, LabelList, Legend, Line, LineChart, ReferenceLine, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { toneFor } from '@/components/ui/Badge';
import { fmtInt } from '@/components/ui/format';
import { ARM_COLOURS } from './format';
import { savingsOverTime, timeAxis, timeTick } from './series';
import type { GsdData, RunSummary, SavingsData } from './types';

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

const AXIS_TICK = { fontSize: 11, fill: '#64748b' };

/** v1 (or the workspace baseline), lean and v2 tokens per role of one run, values written on the bars. */
export function ArmsPerRole({ report }: { report: SavingsData }) {
  const data = report.roles.map((r) => ({ role: r.role, v1: r.baseline, lean: r.lean, v2: r.tokens }));
  if (data.length === 0) return <p className="py-10 text-center text-sm text-slate-500">No measured lines in this run.</p>;
  const hasLean = data.some((d) => d.lean !== undefined);
  const v1Name = report.baseline === 'workspace' ? 'baseline (baselines.json)' : 'v1';
  return (
    <figure aria-label="v1, lean and v2 tokens per role in this run" data-testid="chart-baseline">
      <div className="h-72">
        <ResponsiveContainer width="100%" height="100%">
          <BarChart data={data} margin={{ top: 24, right: 12, bottom: 4, left: 8 }} barGap={6}>
            <CartesianGrid strokeDasharray="3 3" vertical={false} stroke="#e2e8f0" />
            <XAxis dataKey="role" tick={{ fontSize: 12, fill: '#475569' }} tickLine={false} axisLine={{ stroke: '#cbd5e1' }} />
            <YAxis tickFormatter={(v: number) => fmtInt(v)} tick={AXIS_TICK} tickLine={false} axisLine={false} width={64} />
            <Tooltip formatter={(v) => `${fmtInt(Number(v))} tokens`} cursor={{ fill: '#f1f5f9' }} />
            <Legend wrapperStyle={{ fontSize: 12 }} />
            <Bar dataKey="v1" name={v1Name} fill={ARM_COLOURS.v1} radius={[3, 3, 0, 0]} isAnimationActive={false}>
              <LabelList dataKey="v1" position="top" formatter={(v) => (v === undefined || v === null ? '' : fmtInt(Number(v)))} style={{ fontSize: 11, fill: '#475569' }} />
            </Bar>
            {hasLean && (
              <Bar dataKey="lean" name="lean" fill={ARM_COLOURS.lean} radius={[3, 3, 0, 0]} isAnimationActive={false}>
                <LabelList dataKey="lean" position="top" formatter={(v) => (v === undefined || v === null ? '' : fmtInt(Number(v)))} style={{ fontSize: 11, fill: '#92400e' }} />
              </Bar>
            )}
            <Bar dataKey="v2" name="v2 (measured)" fill={ARM_COLOURS.v2} radius={[3, 3, 0, 0]} isAnimationActive={false}>
              <LabelList dataKey="v2" position="top" formatter={(v) => fmtInt(Number(v))} style={{ fontSize: 11, fill: '#3730a3', fontWeight: 600 }} />
            </Bar>
          </BarChart>
        </ResponsiveContainer>
      </div>
    </figure>
  );
}

/**
 * The saving of every run with a baseline, on a time axis (when each run was measured), one line
 * per role; each point is that run against its own baseline. The chosen run is marked.
 */
export function SavingsOverTime({ runs, current }: { runs: RunSummary[]; current: string | null }) {
  const { points, roles } = savingsOverTime(runs);
  if (points.length === 0) {
    return <p className="py-10 text-center text-sm text-slate-500">Savings appear here once a run has a baseline (its own v1 lines, or baselines.json).</p>;
  }
  const first = (points[0] as (typeof points)[number]).t;
  const last = (points.at(-1) as (typeof points)[number]).t;
  const axis = timeAxis(first, last);
  const tick = timeTick(axis.span);
  const at = points.find((p) => p.run === current)?.t;
  return (
    <figure aria-label="Percentage saved per run, on a time axis, one line per role" data-testid="chart-over-time" data-points={points.length}>
      <div className="h-72">
        <ResponsiveContainer width="100%" height="100%">
          <LineChart data={points} margin={{ top: 24, right: 28, bottom: 4, left: 8 }}>
            <CartesianGrid strokeDasharray="3 3" stroke="#e2e8f0" />
            <XAxis
              dataKey="t"
              type="number"
              // Milliseconds on a linear scale with round-time ticks: recharts drops explicit ticks on its "time" scale.
              scale="linear"
              domain={axis.domain}
              ticks={axis.ticks}
              // Thin the ticks evenly when labels would collide; never move a label off its time.
              interval="equidistantPreserveStart"
              tickFormatter={tick}
              tick={AXIS_TICK}
              tickLine={false}
              axisLine={{ stroke: '#cbd5e1' }}
              name="measured at (UTC)"
            />
            <YAxis unit="%" domain={[(min: number) => Math.min(0, Math.floor(min / 10) * 10), 100]} tick={AXIS_TICK} tickLine={false} axisLine={false} width={48} />
            <Tooltip
              labelFormatter={(_, payload) => {
                const p = payload?.[0]?.payload as (typeof points)[number] | undefined;
                return p ? p.label : '';
              }}
              formatter={(v, name) => [`${Number(v)}% saved`, String(name)]}
            />
            <Legend wrapperStyle={{ fontSize: 12 }} />
            {at !== undefined && <ReferenceLine x={at} stroke="#6366f1" strokeDasharray="4 3" ifOverflow="extendDomain" />}
            {roles.map((r) => (
              <Line
                key={r}
                type="linear"
                dataKey={(p: (typeof points)[number]) => p.saved[r]}
                name={r}
                stroke={colourFor(r)}
                strokeWidth={2}
                dot={{ r: 4 }}
                connectNulls
                isAnimationActive={false}
              >
                <LabelList dataKey={(p: (typeof points)[number]) => p.saved[r]} position="top" formatter={(v) => (v === undefined || v === null ? '' : `${Number(v)}%`)} style={{ fontSize: 11, fill: '#334155' }} />
              </Line>
            ))}
          </LineChart>
        </ResponsiveContainer>
      </div>
    </figure>
  );
}

/** A GSD run's three arms per phase. */
export function PhaseArms({ gsd }: { gsd: GsdData }) {
  if (gsd.phases.length === 0) return <p className="py-10 text-center text-sm text-slate-500">No plan lines in this run.</p>;
  const data = gsd.phases.map((p) => ({ phase: p.phase, v1: p.v1, lean: p.lean, v2: p.v2, saved: p.saved_pct }));
  return (
    <figure aria-label="v1, lean and v2 tokens per phase" data-testid="chart-phases">
      <div className="h-72">
        <ResponsiveContainer width="100%" height="100%">
          <BarChart data={data} margin={{ top: 24, right: 12, bottom: 4, left: 8 }} barGap={2}>
            <CartesianGrid strokeDasharray="3 3" vertical={false} stroke="#e2e8f0" />
            <XAxis dataKey="phase" tick={{ fontSize: 11, fill: '#475569' }} tickLine={false} axisLine={{ stroke: '#cbd5e1' }} interval="preserveStartEnd" />
            <YAxis tickFormatter={(v: number) => fmtInt(v)} tick={AXIS_TICK} tickLine={false} axisLine={false} width={64} />
            <Tooltip formatter={(v) => `${fmtInt(Number(v))} tokens`} cursor={{ fill: '#f1f5f9' }} />
            <Legend wrapperStyle={{ fontSize: 12 }} />
            <Bar dataKey="v1" name="v1" fill={ARM_COLOURS.v1} radius={[2, 2, 0, 0]} isAnimationActive={false} />
            <Bar dataKey="lean" name="lean" fill={ARM_COLOURS.lean} radius={[2, 2, 0, 0]} isAnimationActive={false} />
            <Bar dataKey="v2" name="v2" fill={ARM_COLOURS.v2} radius={[2, 2, 0, 0]} isAnimationActive={false}>
              <LabelList dataKey="saved" position="top" formatter={(v) => (v === undefined || v === null ? '' : `${Number(v)}%`)} style={{ fontSize: 11, fill: '#047857', fontWeight: 600 }} />
            </Bar>
          </BarChart>
        </ResponsiveContainer>
      </div>
    </figure>
  );
}
