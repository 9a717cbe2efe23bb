'use client';
/**
 * A GSD bench run (`heimdall bench gsd DIR --record`): the three arms (v1, lean, v2) per phase and
 * per plan, computed by the core from the run's ledger lines, with content recall and the mechanism
 * ablation from the run record's details. A details object missing parts shows what it has and says
 * what it lacks.
 */
import type { ReactNode } from 'react';
import { Card } from '@/components/ui/Card';
import { fmtInt } from '@/components/ui/format';
import { ablationName, figureHeading, fmtFigure, fmtShare, otherRecall, savedText } from './format';
import { PhaseArms } from './LedgerCharts';
import type { GsdData } from './types';

const MISSING_WORDS: Record<string, string> = {
  'run record': 'the run record itself (so no recall, ablation or plan paths)',
  details: 'the bench details (recall, ablation, plan paths)',
  plans: 'per-plan details (paths and recall)',
  phases: 'per-phase details (recall per phase)',
  recall: 'content recall',
  total: 'run totals (completeness, plans found and imported)',
  'total.completeness_pct': 'completeness',
  'total.plans_found': 'plans found',
  'total.plans_imported': 'plans imported',
  ablation: 'the ablation',
};

const tok = (n: number | undefined) => (n === undefined ? '—' : fmtInt(n));
const pct = (n: number | undefined) => (n === undefined ? '—' : savedText(n));

function Th({ children, right = false }: { children: ReactNode; right?: boolean }) {
  return (
    <th scope="col" className={`px-3 py-2 ${right ? 'text-right' : 'text-left'}`}>
      {children}
    </th>
  );
}

function Fact({ label, value, testId, sub }: { label: string; value: string; testId: string; sub?: string }) {
  return (
    <div className="rounded-md border border-slate-100 bg-slate-50/60 px-3 py-2 dark:border-slate-800 dark:bg-slate-800/50">
      <p className="text-xs text-slate-500">{label}</p>
      <p className="font-mono text-lg font-semibold tabular-nums text-slate-900 dark:text-slate-100" data-testid={testId}>
        {value}
      </p>
      {sub ? (
        <p className="text-[11px] text-slate-500" data-testid={`${testId}-sub`}>
          {sub}
        </p>
      ) : null}
    </div>
  );
}

/** v2's recall, with the other arms' in the tooltip. */
function RecallCell({ pct, arms }: { pct: number | undefined; arms: { v1?: number; lean?: number } | undefined }) {
  const others = otherRecall(arms);
  return (
    <td className="px-3 py-1.5 text-right" data-figure="recall" title={others ? `recall ${others}` : undefined}>
      {fmtShare(pct)}
    </td>
  );
}

/** The figures a phase row and a plan row share: the three arms, both savings and v2's recall. */
type ArmRow = { v1?: number; lean?: number; v2?: number; saved_pct?: number; saved_vs_lean_pct?: number; recall_pct?: number; recall_arms?: { v1?: number; lean?: number } };

function ArmHeadings() {
  return (
    <>
      <Th right>v1</Th>
      <Th right>lean</Th>
      <Th right>v2</Th>
      <Th right>v2 vs v1</Th>
      <Th right>v2 vs lean</Th>
      <Th right>Recall v2</Th>
    </>
  );
}

function ArmCells({ row }: { row: ArmRow }) {
  return (
    <>
      <td className="px-3 py-1.5 text-right" data-arm="v1">{tok(row.v1)}</td>
      <td className="px-3 py-1.5 text-right" data-arm="lean">{tok(row.lean)}</td>
      <td className="px-3 py-1.5 text-right" data-arm="v2">{tok(row.v2)}</td>
      <td className="px-3 py-1.5 text-right" data-figure="saved">{pct(row.saved_pct)}</td>
      <td className="px-3 py-1.5 text-right" data-figure="saved-lean">{pct(row.saved_vs_lean_pct)}</td>
      <RecallCell pct={row.recall_pct} arms={row.recall_arms} />
    </>
  );
}

export function GsdRunView({ gsd }: { gsd: GsdData }) {
  const t = gsd.total;
  const ablationKeys = [...new Set(gsd.ablation.flatMap((a) => Object.keys(a.figures)))];
  return (
    <section aria-label="GSD bench run" className="space-y-4" data-testid="gsd-run">
      <Card title="GSD bench: three arms" description="v1: what a GSD executor reads today; lean: a careful hand-trimmed brief; v2: the Heimdall delta brief. From this run's ledger lines.">
        <div className="grid grid-cols-2 gap-3 sm:grid-cols-4 xl:grid-cols-8" data-testid="gsd-total">
          <Fact label="v1 tokens" value={tok(t.v1)} testId="gsd-total-v1" />
          <Fact label="lean tokens" value={tok(t.lean)} testId="gsd-total-lean" />
          <Fact label="v2 tokens" value={tok(t.v2)} testId="gsd-total-v2" />
          <Fact label="v2 against v1" value={pct(t.saved_pct)} testId="gsd-total-saved" />
          <Fact label="v2 against lean" value={pct(t.saved_vs_lean_pct)} testId="gsd-total-saved-lean" />
          <Fact label="content recall (v2)" value={fmtShare(t.recall_pct)} testId="gsd-total-recall" sub={otherRecall(t.recall_arms)} />
          <Fact label="completeness" value={fmtShare(t.completeness_pct)} testId="gsd-total-completeness" />
          <Fact
            label="plans imported / found"
            value={t.plans_imported === undefined && t.plans_found === undefined ? '—' : `${t.plans_imported ?? '—'} / ${t.plans_found ?? '—'}`}
            testId="gsd-total-plans"
          />
        </div>
        {gsd.missing.length > 0 && (
          <p className="mt-3 rounded-md bg-amber-50 px-3 py-2 text-xs text-amber-900 dark:bg-amber-950 dark:text-amber-200" data-testid="gsd-missing">
            Not in the run record: {gsd.missing.map((m) => MISSING_WORDS[m] ?? m).join(', ')}. Shown: what the ledger lines hold.
          </p>
        )}
      </Card>

      <div className="grid gap-4 xl:grid-cols-2">
        <Card title="Per phase" description="Tokens per arm; the label is v2's saving against v1">
          <PhaseArms gsd={gsd} />
        </Card>
        <Card title="Per phase, in figures" bodyClassName="overflow-x-auto p-0">
          <table className="w-full whitespace-nowrap text-sm" data-testid="gsd-phases">
            <thead>
              <tr className="border-b border-slate-100 text-xs font-medium uppercase tracking-wide text-slate-500">
                <Th>Phase</Th>
                <Th right>Plans</Th>
                <ArmHeadings />
              </tr>
            </thead>
            <tbody className="font-mono text-[13px] tabular-nums">
              {gsd.phases.map((p) => (
                <tr key={p.phase} data-phase={p.phase} className="border-b border-slate-50 last:border-0">
                  <th scope="row" className="px-3 py-1.5 text-left font-sans font-medium">
                    {p.phase}
                  </th>
                  <td className="px-3 py-1.5 text-right">{p.plans}</td>
                  <ArmCells row={p} />
                </tr>
              ))}
            </tbody>
          </table>
        </Card>
      </div>

      <Card title={`Per plan (${gsd.plans.length})`} bodyClassName="max-h-[28rem] overflow-auto p-0">
        <table className="w-full whitespace-nowrap text-sm" data-testid="gsd-plans">
          <thead className="sticky top-0 bg-white dark:bg-slate-900">
            <tr className="border-b border-slate-100 text-xs font-medium uppercase tracking-wide text-slate-500">
              <Th>Plan</Th>
              <Th>Phase</Th>
              <Th>File</Th>
              <ArmHeadings />
            </tr>
          </thead>
          <tbody className="font-mono text-[13px] tabular-nums">
            {gsd.plans.map((p) => (
              <tr key={`${p.phase}/${p.plan}`} data-plan={p.plan} className="border-b border-slate-50 last:border-0">
                <th scope="row" className="px-3 py-1.5 text-left font-medium">
                  {p.plan}
                </th>
                <td className="px-3 py-1.5 font-sans text-slate-600">{p.phase}</td>
                <td className="max-w-72 truncate px-3 py-1.5 text-[12px] text-slate-500" title={p.path}>
                  {p.path ?? '—'}
                </td>
                <ArmCells row={p} />
              </tr>
            ))}
          </tbody>
        </table>
      </Card>

      <Card title="Mechanism ablation" description="v2 with one mechanism switched off at a time, as the bench measured it (run record details)" bodyClassName="overflow-x-auto p-0">
        {gsd.ablation.length === 0 ? (
          <p className="px-4 py-5 text-sm text-slate-500" data-testid="gsd-ablation-missing">
            This run&apos;s record holds no ablation.
          </p>
        ) : (
          <table className="w-full whitespace-nowrap text-sm" data-testid="gsd-ablation">
            <thead>
              <tr className="border-b border-slate-100 text-xs font-medium uppercase tracking-wide text-slate-500">
                <Th>Variant</Th>
                {ablationKeys.map((k) => (
                  <Th key={k} right>
                    {figureHeading(k)}
                  </Th>
                ))}
              </tr>
            </thead>
            <tbody className="font-mono text-[13px] tabular-nums">
              {gsd.ablation.map((a) => (
                <tr key={a.name} data-variant={a.name} className="border-b border-slate-50 last:border-0">
                  <th scope="row" className="px-3 py-1.5 text-left font-sans font-medium">
                    {ablationName(a.name, a.label)}
                  </th>
                  {ablationKeys.map((k) => (
                    <td key={k} className="px-3 py-1.5 text-right" data-figure={k}>
                      {a.figures[k] === undefined ? '—' : fmtFigure(k, a.figures[k] as number)}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </Card>
    </section>
  );
}
