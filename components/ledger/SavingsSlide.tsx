'use client';
/**
 * The savings card laid out as a 1920x1080 slide, the node the PNG export draws: the project, the
 * run, the date and the tokenizer on it, so a screenshot on a slide says what it shows. Light
 * colours whatever the page's theme: slides are shown on projectors. The figures are the core's.
 */
import { forwardRef } from 'react';
import { fmtInt } from '@/components/ui/format';
import { fmtShare, fmtWhen, savedText } from './format';
import { dataUrlBytes, withText } from './png';
import { NO_RUN, type SavingsData } from './types';

export const SLIDE_WIDTH = 1920;
export const SLIDE_HEIGHT = 1080;
const MAX_ROLES = 4;

export const SavingsSlide = forwardRef<HTMLDivElement, { report: SavingsData }>(function SavingsSlide({ report }, ref) {
  const based = report.roles.filter((r) => r.baseline !== undefined);
  const total = report.total;
  const gsd = report.gsd;
  const runName = report.run === NO_RUN ? 'lines without a run' : `run ${report.run}`;
  return (
    <div
      ref={ref}
      data-testid="savings-slide"
      style={{ width: SLIDE_WIDTH, height: SLIDE_HEIGHT }}
      className="flex flex-col bg-white px-[96px] py-[72px] font-sans text-slate-900"
    >
      <div className="flex items-center justify-between text-[28px]">
        <p className="flex items-center gap-4 font-semibold uppercase tracking-[0.14em] text-indigo-600">
          <span className="grid size-[52px] place-items-center rounded-lg bg-indigo-500 font-mono text-[28px] font-bold tracking-normal text-white">H</span>
          Heimdall · measured token savings
        </p>
        <p className="text-slate-500" data-testid="slide-date">
          {fmtWhen(report.date)}
        </p>
      </div>
      <h1 className="mt-12 truncate text-[88px] font-bold leading-none" data-testid="slide-workspace">
        {report.workspace}
      </h1>
      <p className="mt-4 font-mono text-[32px] text-slate-500">
        <span data-testid="slide-run">{runName}</span>
        {report.kind ? ` · ${report.kind}` : ''}
      </p>

      <div className="mt-12 flex flex-1 items-start gap-20">
        {total?.saved_pct !== undefined ? (
          <div className="shrink-0">
            <p className={`text-[200px] font-bold leading-none tabular-nums ${total.saved_pct > 0 ? 'text-emerald-600' : 'text-rose-600'}`} data-testid="slide-saved">
              {Math.abs(total.saved_pct)}%
            </p>
            <p className="mt-4 text-[40px] font-semibold text-slate-700">{total.saved_pct > 0 ? 'fewer tokens than v1' : 'more tokens than v1'}</p>
          </div>
        ) : (
          <div className="shrink-0">
            <p className="text-[64px] font-bold text-slate-500" data-testid="slide-saved">
              no baseline
            </p>
            <p className="mt-4 text-[32px] text-slate-600">{fmtInt(report.total_tokens)} tokens measured</p>
          </div>
        )}
        <div className="min-w-0 flex-1 space-y-6">
          {total && (
            <div className="grid grid-cols-3 gap-6">
              <Tile arm="v1" label={report.baseline === 'workspace' ? 'baseline' : 'v1'} value={total.baseline} />
              {total.lean !== undefined ? (
                <Tile arm="lean" label="lean" value={total.lean} note={total.saved_vs_lean_pct === undefined ? undefined : `tokens; v2 ${savedText(total.saved_vs_lean_pct)} against lean`} />
              ) : (
                <div />
              )}
              <Tile arm="v2" label="v2 (Heimdall)" value={total.tokens} />
            </div>
          )}
          {(based.length > 1 || !total) && (
            <ul className="space-y-2 text-[30px]">
              {report.roles.slice(0, MAX_ROLES).map((r) => (
                <li key={r.role} data-slide-role={r.role} className="flex items-baseline justify-between gap-6 border-b border-slate-100 pb-2">
                  <span className="font-medium">{r.role}</span>
                  <span className="font-mono tabular-nums text-slate-600">
                    {r.baseline !== undefined ? `${fmtInt(r.baseline)} → ` : ''}
                    {fmtInt(r.tokens)}
                  </span>
                  <span className="font-semibold text-emerald-700">{savedText(r.saved_pct)}</span>
                </li>
              ))}
              {report.roles.length > MAX_ROLES && <li className="text-[24px] text-slate-500">and {report.roles.length - MAX_ROLES} more roles</li>}
            </ul>
          )}
          {gsd && (
            <p className="text-[30px] text-slate-700" data-testid="slide-gsd">
              {gsd.plans.length} plans in {gsd.phases.length} phases
              {gsd.total.recall_pct !== undefined ? ` · content recall ${fmtShare(gsd.total.recall_pct)}` : ''}
              {gsd.total.completeness_pct !== undefined ? ` · completeness ${fmtShare(gsd.total.completeness_pct)}` : ''}
            </p>
          )}
        </div>
      </div>

      <div className="space-y-3 border-t-2 border-slate-100 pt-8 text-[24px] leading-snug text-slate-600">
        <p>{report.compared_with}</p>
        {(['v1', 'lean', 'v2'] as const).map((arm) =>
          report.arms[arm] ? (
            <p key={arm}>
              <span className="font-mono font-semibold text-slate-800">{arm}</span>: {report.arms[arm]}
            </p>
          ) : null,
        )}
        <p>
          Counted with <span className="font-semibold text-slate-800" data-testid="slide-tokenizer">{report.tokenizer}</span>; figures from{' '}
          <span className="font-mono">heimdall-ledger report{report.run ? ` --run ${report.run}` : ''}</span>.
        </p>
      </div>
    </div>
  );
});

function Tile({ arm, label, value, note }: { arm: 'v1' | 'lean' | 'v2'; label: string; value: number; note?: string }) {
  const tone = arm === 'v2' ? 'border-indigo-200 bg-indigo-50 text-indigo-900' : arm === 'lean' ? 'border-amber-200 bg-amber-50 text-amber-900' : 'border-slate-200 bg-slate-50 text-slate-800';
  return (
    <div className={`rounded-xl border-2 px-6 py-5 ${tone}`} data-slide-arm={arm}>
      <p className="text-[26px] font-semibold">{label}</p>
      <p className="mt-1 font-mono text-[52px] font-bold tabular-nums leading-tight">{fmtInt(value)}</p>
      <p className="text-[22px] opacity-80">{note ?? 'tokens'}</p>
    </div>
  );
}

/** File names keep to letters, digits, dot, dash and underscore. */
function slug(s: string): string {
  return s.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 60) || 'workspace';
}

/** What the PNG says, as text inside the file (tEXt chunks): the same figures as the picture. */
export function slideText(report: SavingsData): Record<string, string> {
  const figures = {
    workspace: report.workspace,
    run: report.run,
    kind: report.kind ?? null,
    date: report.date ?? null,
    tokenizer: report.tokenizer,
    baseline: report.baseline,
    roles: report.roles.map((r) => ({ role: r.role, baseline: r.baseline ?? null, lean: r.lean ?? null, tokens: r.tokens, saved_pct: r.saved_pct ?? null, saved_vs_lean_pct: r.saved_vs_lean_pct ?? null })),
    total: report.total ?? null,
  };
  return {
    Title: `Heimdall measured token savings: ${report.workspace}, ${report.run === NO_RUN ? 'lines without a run' : `run ${report.run}`}`,
    'Creation Time': report.date ?? '',
    Software: 'Heimdall Studio',
    'Heimdall-Savings': JSON.stringify(figures),
  };
}

/** Draw the slide node to a 1920x1080 PNG carrying its figures as text, and download it. */
export async function exportSlide(node: HTMLElement, report: SavingsData): Promise<void> {
  const { toPng } = await import('html-to-image');
  const url = await toPng(node, { width: SLIDE_WIDTH, height: SLIDE_HEIGHT, pixelRatio: 1, backgroundColor: '#ffffff', cacheBust: true });
  const bytes = withText(dataUrlBytes(url), slideText(report));
  const blob = new Blob([bytes as BlobPart], { type: 'image/png' });
  const href = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = href;
  a.download = `heimdall-savings-${slug(report.workspace)}-${slug(report.run === NO_RUN ? 'no-run' : (report.run ?? 'none'))}-${(report.date ?? '').slice(0, 10) || 'undated'}.png`;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(href), 10_000);
}
