'use client';
/**
 * The measured savings card: for one run (the latest unless one is chosen), what was measured
 * (workspace, run, date, tokenizer, what v1 and v2 are), each role's v1 -> v2 tokens and saving,
 * and what the figures compare. Every number is the core's (`heimdall-ledger report --run R`);
 * nothing is divided here.
 */
import Link from 'next/link';
import { usePathname } from 'next/navigation';
import { type Ref, useRef, useState } from 'react';
import { Button } from '@/components/ui/Button';
import { Code, EmptyState } from '@/components/ui/Notice';
import { cx } from '@/components/ui/cx';
import { fmtInt } from '@/components/ui/format';
import { fmtWhen, savedText } from './format';
import { SavingsSlide, exportSlide } from './SavingsSlide';
import { NO_RUN, type SavingsData } from './types';

/** What to type to measure something: the real flows, never a made-up baseline. */
export function MeasureHint() {
  return (
    <>
      Measure your GSD project from its folder: <Code>heimdall bench gsd . --record</Code> (v1, lean and v2 briefs for every plan, written to
      this workspace&apos;s ledger as a run), or run the demo: <Code>heimdall-protocol demo</Code>.
    </>
  );
}

export function SavingsCard({ report, exportable = false, compact = false }: { report: SavingsData; exportable?: boolean; compact?: boolean }) {
  const slide = useRef<HTMLDivElement>(null);
  const pathname = usePathname();
  const withBaseline = report.roles.filter((r) => r.baseline !== undefined);
  const withoutBaseline = report.roles.filter((r) => r.baseline === undefined);
  const fromWorkspace = report.baseline === 'workspace';
  const runHref = report.run === null ? '/ledger' : `/ledger?run=${encodeURIComponent(report.run)}`;
  return (
    <div className="rounded-lg border border-slate-200 bg-white shadow-sm dark:border-slate-700 dark:bg-slate-900">
      <div className="p-5" data-testid="savings-card" data-run={report.run ?? ''}>
        <div className="flex items-start justify-between gap-4">
          <div className="min-w-0">
            <p className="text-xs font-semibold uppercase tracking-wider text-indigo-600 dark:text-indigo-400">Measured token savings</p>
            <p className="mt-0.5 truncate text-lg font-semibold text-slate-900 dark:text-slate-100" data-testid="card-workspace" title={report.workspace}>
              {report.workspace}
            </p>
            {report.run !== null && (
              <p className="mt-0.5 text-xs text-slate-500 dark:text-slate-400">
                {report.run === NO_RUN ? (
                  <span data-testid="card-run">lines without a run</span>
                ) : (
                  <>
                    run <span className="font-mono text-slate-700 dark:text-slate-300" data-testid="card-run">{report.run}</span>
                  </>
                )}
                {report.kind ? <> · {report.kind}</> : null}
                {report.date ? (
                  <>
                    {' '}
                    · <time dateTime={report.date} data-testid="card-date">{fmtWhen(report.date)}</time>
                  </>
                ) : null}
              </p>
            )}
          </div>
          <span aria-hidden className="grid size-8 shrink-0 place-items-center rounded-md bg-indigo-500 font-mono text-sm font-bold text-white">
            H
          </span>
        </div>
        {report.run === null ? (
          <EmptyState title="Nothing measured yet" className="mt-4">
            <MeasureHint />
          </EmptyState>
        ) : withBaseline.length === 0 ? (
          <p className="mt-4 rounded-md bg-amber-50 px-3 py-2 text-sm text-amber-900 dark:bg-amber-950 dark:text-amber-200" data-testid="card-no-baseline">
            No saving to show for this run: it has no baseline. <MeasureHint />
          </p>
        ) : (
          <ul className={cx('mt-4 grid gap-3', compact ? 'grid-cols-1' : 'sm:grid-cols-2')}>
            {withBaseline.map((r) => {
              const saved = r.saved_pct;
              return (
                <li key={r.role} className="rounded-md border border-slate-100 bg-slate-50/60 p-3 dark:border-slate-800 dark:bg-slate-800/50" data-role={r.role}>
                  <p className="text-sm font-medium text-slate-700 dark:text-slate-300">{r.role}</p>
                  <p className="mt-1 flex flex-wrap items-baseline gap-x-2 font-mono tabular-nums">
                    <span className="text-xs text-slate-500">{fromWorkspace ? 'baseline' : 'v1'}</span>
                    <span className="text-slate-500 dark:text-slate-400" data-testid="baseline">
                      {fmtInt(r.baseline as number)}
                    </span>
                    <span aria-label="to" className="text-slate-400">
                      →
                    </span>
                    <span className="text-xs text-slate-500">v2</span>
                    <span className="text-2xl font-semibold text-slate-900 dark:text-slate-100" data-testid="measured">
                      {fmtInt(r.tokens)}
                    </span>
                    <span className="text-sm text-slate-500">tokens</span>
                  </p>
                  <p
                    className={cx(
                      'mt-1 text-lg font-semibold tabular-nums',
                      saved !== undefined && saved > 0 ? 'text-emerald-600 dark:text-emerald-400' : saved !== undefined && saved < 0 ? 'text-rose-600' : 'text-slate-600',
                    )}
                    data-testid="pct"
                  >
                    {savedText(saved)}
                  </p>
                  {r.lean !== undefined && (
                    <p className="mt-0.5 text-xs text-slate-600 dark:text-slate-400" data-testid="lean">
                      lean {fmtInt(r.lean)} tokens: <span data-testid="lean-pct">{savedText(r.saved_vs_lean_pct)}</span> against lean
                    </p>
                  )}
                </li>
              );
            })}
          </ul>
        )}
        {withoutBaseline.length > 0 && (
          <p className="mt-3 text-xs text-slate-500" data-testid="card-without-baseline">
            Without a baseline in this run: {withoutBaseline.map((r) => `${r.role} ${fmtInt(r.tokens)} tokens`).join(', ')}.
          </p>
        )}
        {report.run !== null && (
          <div className="mt-3 space-y-1 text-xs text-slate-600 dark:text-slate-400">
            <p data-testid="card-compared">{report.compared_with}</p>
            {Object.keys(report.arms).length > 0 && (
              <dl className="grid grid-cols-[2.5rem_minmax(0,1fr)] gap-x-2 gap-y-0.5">
                {(['v1', 'lean', 'v2'] as const).map((arm) =>
                  report.arms[arm] ? (
                    <div key={arm} className="contents">
                      <dt className="font-mono font-semibold text-slate-700 dark:text-slate-300">{arm}</dt>
                      <dd data-testid={`card-arm-${arm}`}>{report.arms[arm]}</dd>
                    </div>
                  ) : null,
                )}
              </dl>
            )}
          </div>
        )}
        <p className="mt-4 border-t border-slate-100 pt-3 text-xs text-slate-500 dark:border-slate-800">
          Counted with{' '}
          <span className="font-medium text-slate-700 dark:text-slate-300" data-testid="tokenizer">
            {report.tokenizer}
          </span>
          {report.reported_tokens > 0 ? <>; {fmtInt(report.reported_tokens)} tokens as reported by providers</> : null}.
          {pathname !== '/ledger' && report.run !== null && (
            <>
              {' '}
              <Link href={runHref} className="font-medium text-indigo-600 hover:text-indigo-800" data-testid="card-details">
                Per phase, other runs →
              </Link>
            </>
          )}
        </p>
      </div>
      {exportable && report.run !== null && (
        <>
          <ExportBar target={slide} report={report} />
          {/* The slide the PNG is made from: laid out off screen at 1920x1080, not read aloud twice. */}
          <div aria-hidden inert className="pointer-events-none fixed top-0 -left-[10000px]">
            <SavingsSlide ref={slide as Ref<HTMLDivElement>} report={report} />
          </div>
        </>
      )}
    </div>
  );
}

function ExportBar({ target, report }: { target: React.RefObject<HTMLDivElement | null>; report: SavingsData }) {
  const [state, setState] = useState<'idle' | 'busy' | 'error'>('idle');
  const save = async () => {
    if (!target.current) return;
    setState('busy');
    try {
      await exportSlide(target.current, report);
      setState('idle');
    } catch {
      setState('error');
    }
  };
  return (
    <div className="flex items-center justify-between gap-3 border-t border-slate-100 px-5 py-2.5 dark:border-slate-800">
      <p className="text-xs text-slate-500" role="status">
        {state === 'error' ? 'The image could not be made in this browser.' : 'For a slide: this run as a 1920×1080 PNG.'}
      </p>
      <Button size="sm" onClick={() => void save()} disabled={state === 'busy'}>
        {state === 'busy' ? 'Saving…' : 'Save as PNG'}
      </Button>
    </div>
  );
}
