/**
 * The phase board Studio shows: one phase's plans by status (waiting, ready, claimed, running,
 * done, failed), who holds each (HAID and herd address, with the claim), the lease time left, and
 * the measured tokens of each plan's v2 brief. Derived like `heimdall gsd ready` (model.ts), for an
 * observer: every agent's claim counts.
 *
 * Brief tokens are counted with the tokenizer from the brief `heimdall gsd start` would send now.
 * Building briefs reads the whole GSD tree, so a board keeps the counts in a `BriefTokenCache` (the
 * transport owns one per process) keyed by what a brief is made of: the task list, the capsules, the
 * symbols and units, and the plan's own file.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Ctx } from '../context.js';
import { type GsdModel, gsdBrief } from '../gsd/brief.js';
import { type TasksFile, loadGsdModel, readTasksFile, tasksFilePath } from '../gsd/importer.js';
import { unitsFilePath } from '../units/units.js';
import { type PlanState, PLAN_STATUSES, type PlanStatus, comparePhases } from './model.js';
import { type WirePorts, catchUpWire, derivePhase } from './run.js';

export interface BoardPlan extends PlanState {
  /** Tokens of the brief plus the reads it lists (what the bench and the ledger count), with the tokenizer named on the board. */
  brief_tokens: number | null;
  /** Why the count is missing (the brief could not be built). */
  brief_error?: string;
  /** Milliseconds until the holder's claim (and the wire lease) runs out; negative once passed. */
  lease_left_ms: number | null;
}

export interface BoardPhase {
  phase: string;
  /** The phase's folder under phases/ (`01-foundation`). */
  dir: string;
  plans: number;
  done: number;
}

export interface PhaseBoard {
  /** False before `heimdall import gsd`: the board says how to start. */
  imported: boolean;
  planning_dir: string | null;
  now: string;
  phases: BoardPhase[];
  /** The phase shown: the one asked for, else the first with a plan not done, else the last. */
  phase: string | null;
  columns: PlanStatus[];
  plans: BoardPlan[];
  counts: Record<PlanStatus, number>;
  tokenizer: string;
}

/** Brief token counts kept between board reads (one per process). */
export interface BriefTokenCache {
  get(key: string): number | undefined;
  set(key: string, tokens: number): void;
}

export function createBriefTokenCache(max = 2000): BriefTokenCache {
  const m = new Map<string, number>();
  return {
    get: (k) => m.get(k),
    set: (k, v) => {
      if (m.size >= max) m.delete(m.keys().next().value as string);
      m.set(k, v);
    },
  };
}

function stamp(file: string): string {
  try {
    const st = fs.statSync(file);
    return `${st.size}:${st.mtimeMs}`;
  } catch {
    return '-';
  }
}

function dirStamp(dir: string): string {
  try {
    return fs
      .readdirSync(dir)
      .filter((n) => n.endsWith('.md'))
      .sort()
      .map((n) => `${n}=${stamp(path.join(dir, n))}`)
      .join('|');
  } catch {
    return '-';
  }
}

function emptyCounts(): Record<PlanStatus, number> {
  return { waiting: 0, ready: 0, claimed: 0, running: 0, done: 0, failed: 0 };
}

/** Check a phase id a page asked for; an unknown one shows the default phase (a stale link). */
function pickPhase(phases: string[], states: PlanState[], asked?: string): string | null {
  if (asked !== undefined && phases.includes(asked)) return asked;
  const ordered = phases.filter((p) => p !== 'quick');
  return ordered.find((p) => states.some((s) => s.phase === p && s.status !== 'done')) ?? ordered[ordered.length - 1] ?? phases[0] ?? null;
}

/** The board of one phase (see the module comment). Writes nothing but the read model's catch-up. */
export async function phaseBoard(ctx: Ctx, wire: WirePorts, opts: { phase?: string; cache?: BriefTokenCache } = {}): Promise<PhaseBoard> {
  const now = ctx.clock.now();
  const tasks: TasksFile | undefined = readTasksFile(tasksFilePath(ctx));
  const base = { now: new Date(now).toISOString(), columns: [...PLAN_STATUSES], tokenizer: ctx.tokenizer.name };
  if (!tasks || typeof tasks.planning_dir !== 'string') {
    return { ...base, imported: false, planning_dir: null, phases: [], phase: null, plans: [], counts: emptyCounts() };
  }
  await catchUpWire(ctx, wire);
  const states = await derivePhase(ctx, wire.store, tasks);
  const phaseIds = [...new Set(tasks.tasks.map((t) => t.phase))].sort(comparePhases);
  const phases: BoardPhase[] = phaseIds.map((p) => {
    const of = states.filter((s) => s.phase === p);
    return { phase: p, dir: tasks.tasks.find((t) => t.phase === p)?.phase_dir ?? p, plans: of.length, done: of.filter((s) => s.status === 'done').length };
  });
  const phase = pickPhase(phaseIds, states, opts.phase);
  const shown = states.filter((s) => s.phase === phase);

  const sig = [stamp(tasksFilePath(ctx)), dirStamp(ctx.paths.capsulesDir), stamp(ctx.paths.symbols), stamp(unitsFilePath(ctx))].join('#');
  let model: GsdModel | undefined;
  const plans: BoardPlan[] = shown.map((s) => {
    const planStamp = s.plan_file ? stamp(path.join(tasks.planning_dir, s.plan_file)) : '-';
    const key = `${ctx.root}|${s.id}|${planStamp}|${sig}`;
    let brief_tokens: number | null = opts.cache?.get(key) ?? null;
    let brief_error: string | undefined;
    if (brief_tokens === null && s.plan_file) {
      try {
        model ??= loadGsdModel(ctx);
        brief_tokens = gsdBrief(ctx, s.id, model).total_tokens;
        opts.cache?.set(key, brief_tokens);
      } catch (e) {
        brief_error = (e as Error).message;
      }
    }
    const expires = s.holder?.expires_at ?? null;
    return { ...s, brief_tokens, ...(brief_error ? { brief_error } : {}), lease_left_ms: expires ? Date.parse(expires) - now : null };
  });
  const counts = emptyCounts();
  for (const p of plans) counts[p.status]++;
  return { ...base, imported: true, planning_dir: tasks.planning_dir, phases, phase, plans, counts };
}
