'use client';
/**
 * The measured savings card: baseline -> measured per role, the change, and the tokenizer that
 * counted. The figures are the core's report, the same numbers `heimdall-ledger report` prints.
 */
import { type Ref, useRef, useState } from 'react';
import { Button } from '@/components/ui/Button';
import { Code, EmptyState } from '@/components/ui/Notice';
import { cx } from '@/components/ui/cx';
import { fmtInt, fmtPct } from '@/components/ui/format';
import type { LedgerReport } from '@/components/trpc/types';

export function SavingsCard({ report, run, exportable = false, compact = false }: { report: LedgerReport; run?: string; exportable?: boolean; compact?: boolean }) {
  const ref = useRef<HTMLDivElement>(null);
  const withBaseline = report.roles.filter((r) => r.baseline !== undefined);
  const withoutBaseline = report.roles.filter((r) => r.baseline === undefined);
  const reported = report.roles.reduce((s, r) => s + r.reported_tokens, 0);
  return (
    <div className="rounded-lg border border-slate-200 bg-white shadow-sm">
      <div ref={ref as Ref<HTMLDivElement>} className="bg-white p-5" data-testid="savings-card">
        <div className="flex items-start justify-between gap-4">
          <div>
            <p className="text-xs font-semibold uppercase tracking-wider text-indigo-600">Measured token savings</p>
            <p className="mt-0.5 text-sm text-slate-500">v1 baseline → measured with this protocol{run ? `, run ${run}` : ''}</p>
          </div>
          <span aria-hidden className="grid size-8 shrink-0 place-items-center rounded-md bg-indigo-500 font-mono text-sm font-bold text-white">
            H
          </span>
        </div>
        {withBaseline.length === 0 ? (
          <EmptyState title="No baseline recorded yet" className="mt-4">
            The card compares each role against its v1 baseline: <Code>heimdall-ledger baseline --role orchestration --tokens 41000</Code>, or run{' '}
            <Code>heimdall-protocol demo</Code> to measure one.
          </EmptyState>
        ) : (
          <ul className={cx('mt-4 grid gap-3', compact ? 'grid-cols-1' : 'sm:grid-cols-2')}>
            {withBaseline.map((r) => {
              const pct = r.pct ?? 0;
              const saving = pct < 0;
              return (
                <li key={r.role} className="rounded-md border border-slate-100 bg-slate-50/60 p-3" data-role={r.role}>
                  <p className="text-sm font-medium text-slate-700">{r.role}</p>
                  <p className="mt-1 flex flex-wrap items-baseline gap-x-2 font-mono tabular-nums">
                    <span className="text-slate-500" data-testid="baseline">
                      {fmtInt(r.baseline as number)}
                    </span>
                    <span aria-label="to" className="text-slate-400">
                      →
                    </span>
                    <span className="text-2xl font-semibold text-slate-900" data-testid="measured">
                      {fmtInt(r.tokens)}
                    </span>
                    <span className="text-sm text-slate-500">tokens</span>
                  </p>
                  <p className={cx('mt-1 text-lg font-semibold tabular-nums', saving ? 'text-emerald-600' : pct > 0 ? 'text-rose-600' : 'text-slate-600')} data-testid="pct">
                    {saving ? `${Math.abs(pct)}% saved` : pct > 0 ? `${fmtPct(pct)} more` : 'no change'}
                  </p>
                </li>
              );
            })}
          </ul>
        )}
        {withoutBaseline.length > 0 && (
          <p className="mt-3 text-xs text-slate-500">
            Without a baseline: {withoutBaseline.map((r) => `${r.role} ${fmtInt(r.tokens)} tokens`).join(', ')}.
          </p>
        )}
        <p className="mt-4 border-t border-slate-100 pt-3 text-xs text-slate-500">
          Counted with <span className="font-medium text-slate-700" data-testid="tokenizer">{report.tokenizer}</span>
          {reported > 0 ? <>; {fmtInt(reported)} tokens as reported by providers</> : null}. Total {fmtInt(report.total_tokens)} tokens in the ledger
          {run ? ' for this run' : ''}.
        </p>
      </div>
      {exportable && <ExportButton target={ref} />}
    </div>
  );
}

function ExportButton({ target }: { target: React.RefObject<HTMLDivElement | null> }) {
  const [state, setState] = useState<'idle' | 'busy' | 'error'>('idle');
  const save = async () => {
    if (!target.current) return;
    setState('busy');
    try {
      const { toPng } = await import('html-to-image');
      const url = await toPng(target.current, { pixelRatio: 2, backgroundColor: '#ffffff', cacheBust: true });
      const a = document.createElement('a');
      a.href = url;
      a.download = `heimdall-savings-${new Date().toISOString().slice(0, 10)}.png`;
      document.body.appendChild(a);
      a.click();
      a.remove();
      setState('idle');
    } catch {
      setState('error');
    }
  };
  return (
    <div className="flex items-center justify-between gap-3 border-t border-slate-100 px-5 py-2.5">
      <p className="text-xs text-slate-500" role="status">
        {state === 'error' ? 'The image could not be made in this browser.' : 'For a slide: the card as a PNG, at twice screen resolution.'}
      </p>
      <Button size="sm" onClick={() => void save()} disabled={state === 'busy'}>
        {state === 'busy' ? 'Saving…' : 'Save as PNG'}
      </Button>
    </div>
  );
}
