/**
 * Measured runs. A run is one measurement (a demo wave, a GSD bench) whose ledger lines share a
 * `run` id. Each line says which arm of the comparison it belongs to:
 *  - `v1`: what the orchestrator sends without Heimdall (the run's own baseline);
 *  - `lean`: what a careful person would send without Heimdall (GSD bench only);
 *  - `v2` (or no `arm`, as every line written before arms existed): what Heimdall sends, measured.
 * A GSD bench line also names its `phase` and `plan`, so a run can be broken down per phase and per
 * plan from the ledger alone.
 *
 * Beside the lines, a run has a record in `protocol/runs/<run>.json`: what was measured, when, on
 * which workspace, with which tokenizer, what each arm is, and kind-specific details (the bench's
 * recall and ablation). The record explains the lines; every token figure is recomputed from the
 * lines, so a record can never claim a saving the ledger does not hold.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Ctx } from '../context.js';
import { HeimdallError } from '../errors.js';
import { auditEntry } from '../log/protocolLog.js';
import { atomicWrite, readJsonFile, withLock } from '../planning/fsx.js';
import { checkName } from '../planning/ids.js';
import { PROTOCOL_VERSION, checkStateVersion } from '../planning/version.js';

export const ARMS = ['v1', 'lean', 'v2'] as const;
export type Arm = (typeof ARMS)[number];

export function isArm(v: unknown): v is Arm {
  return typeof v === 'string' && (ARMS as readonly string[]).includes(v);
}

/** The arm a ledger line counts toward: lines without one are measured (v2) lines. */
export function armOf(entry: { arm?: unknown }): Arm {
  return isArm(entry.arm) ? entry.arm : 'v2';
}

export interface RunRecord {
  version: string;
  run: string;
  /** What produced the run: `demo`, `bench-gsd`, ... */
  kind: string;
  /** ISO-8601 UTC. */
  created: string;
  /** The project measured (a folder name), so a screenshot says what it shows. */
  workspace: string;
  /** The tokenizer every counted line of the run used. */
  tokenizer: string;
  /** One sentence per arm saying what its text is. */
  arms: Partial<Record<Arm, string>>;
  /** Kind-specific figures (for `bench-gsd`: the bench's JSON: recall, ablation, per-plan reads). */
  details?: unknown;
}

export type RunInput = Omit<RunRecord, 'version' | 'created'> & { created?: string };

function runsDir(ctx: Ctx): string {
  return ctx.paths.runsDir;
}

function runFile(ctx: Ctx, run: string): string {
  return path.join(runsDir(ctx), `${checkName('run', run)}.json`);
}

function isRecord(v: unknown): v is RunRecord {
  const r = v as RunRecord;
  return (
    typeof r === 'object' &&
    r !== null &&
    typeof r.run === 'string' &&
    typeof r.kind === 'string' &&
    typeof r.created === 'string' &&
    typeof r.workspace === 'string' &&
    typeof r.tokenizer === 'string' &&
    typeof r.arms === 'object' &&
    r.arms !== null
  );
}

/** Write (or replace) the record of a run. Its ledger lines are written by `logTokens` with `run`. */
export function recordRun(ctx: Ctx, input: RunInput): RunRecord {
  const file = runFile(ctx, input.run);
  for (const k of Object.keys(input.arms)) {
    if (!isArm(k)) throw new HeimdallError('invalid', `unknown arm ${JSON.stringify(k)}; expected one of ${ARMS.join(', ')}`);
  }
  const record: RunRecord = {
    version: PROTOCOL_VERSION,
    run: input.run,
    kind: input.kind,
    created: input.created ?? new Date(ctx.clock.now()).toISOString(),
    workspace: input.workspace,
    tokenizer: input.tokenizer,
    arms: input.arms,
    ...(input.details !== undefined ? { details: input.details } : {}),
  };
  withLock(file, () => atomicWrite(file, `${JSON.stringify(record, null, 2)}\n`, auditEntry(ctx, 'ledger', 'run', `${record.run} (${record.kind}, ${record.workspace})`)));
  return record;
}

/** The record of one run; undefined when the run has none (runs from before records existed). */
export function readRun(ctx: Ctx, run: string): RunRecord | undefined {
  const file = runFile(ctx, run);
  const data = readJsonFile(file);
  if (data === undefined) return undefined;
  if (!isRecord(data)) {
    throw new HeimdallError('environment', `${file} must hold a run record {"version","run","kind","created","workspace","tokenizer","arms"}; the file was left untouched`);
  }
  checkStateVersion(file, data.version);
  return data;
}

/** Every run record, oldest first. */
export function listRuns(ctx: Ctx): RunRecord[] {
  let names: string[];
  try {
    names = fs.readdirSync(runsDir(ctx));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw new HeimdallError('environment', `cannot read ${runsDir(ctx)}: ${(e as Error).message}`);
  }
  const out: RunRecord[] = [];
  for (const n of names) {
    if (!n.endsWith('.json') || n.startsWith('.')) continue;
    const r = readRun(ctx, n.slice(0, -'.json'.length));
    if (r) out.push(r);
  }
  return out.sort((a, b) => a.created.localeCompare(b.created) || a.run.localeCompare(b.run));
}
