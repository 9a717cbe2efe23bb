/**
 * Running a GSD phase through Heimdall (issue 13): the ready queue, the wave conflict check, and
 * `start` / `done`, which join a plan's claim, its wire stream and its measured brief in one step.
 *
 * Streams and attempts. Every `start` that is not a resume opens a new attempt stream
 * `task:<plan>:attempt:<n>`, n = 1 + the highest attempt the read model knows for the plan, with
 * task.available, task.claimed and task.started appended as one batch (one lock, one write). A retry
 * after an abandoned, failed or partial attempt therefore never meets the old attempt's claim in the
 * reducer: the old stream keeps its history (stale, failed, released) and the new one starts clean.
 * `n` is chosen while the plan's claim is held, so no two agents can pick the same number.
 *
 * Claim TTL and wire lease are one thing. `start` claims the plan's surfaces for `ttl` minutes and
 * writes that very expiry as the task.claimed lease (`lease_expires_at`); running `start` again as
 * the holder renews both (the claim is extended, and the claimant's repeated task.claimed is a lease
 * renewal for the reducer). So the two always expire at the same instant: after it, the claim no
 * longer blocks anyone, `ready` lists the plan again (noting the abandoned attempt) and the wire shows
 * the attempt as stale. The claim decides who holds a plan; the wire records what happened.
 *
 * Order of writes. `start` checks everything it can first (the plan exists and is ready, the brief
 * builds), then claims (all or nothing, under the claims lock: exactly one of two overlapping starts
 * wins), then appends the wire batch; if that append fails the claim is released. `done` appends its
 * wire event before it writes the result and releases the claim, so another agent can claim the plan's
 * files only once the plan is recorded as finished; a `done` interrupted after its event can be run
 * again and finishes the remaining steps.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Ctx } from '../context.js';
import { HeimdallError, isHeimdallError } from '../errors.js';
import { type ClaimView, checkSurfaces, listClaims, makeClaim, normalizeGlob, overlappingPairs, releaseClaim } from '../claims/index.js';
import { capsulePath, readCapsule, writeCapsule } from '../capsules/capsules.js';
import { type GsdBrief, gsdBrief } from '../gsd/brief.js';
import { type GsdTask, type TasksFile, loadGsdModel, readTasksFile, summaryCapsule, tasksFilePath } from '../gsd/importer.js';
import { addressOfHaid } from '../identity/agent.js';
import { checkTreeHaid, readRegistry } from '../identity/registry.js';
import { logTokens, logTokensBatch } from '../ledger/ledger.js';
import { auditEntry, logAction } from '../log/protocolLog.js';
import { validateMessage } from '../messages/validate.js';
import { atomicWrite, readJsonFile, withLock } from '../planning/fsx.js';
import { isoSeconds } from '../ports.js';
import { WireListener } from '../wire/listener.js';
import type { WireLog } from '../wire/log.js';
import { emitWires } from '../wire/producer.js';
import type { TaskRun } from '../wire/reducers/task.js';
import type { ReadModelStore } from '../wire/store.js';
import { type PlanState, type ResultRecord, comparePhases, derivePlans, describeReason, projectRoot, summaryPath } from './model.js';

/** The wire log and read model of the composition root (runtime.exclusive hands them over). */
export interface WirePorts {
  log: WireLog;
  store: ReadModelStore;
}

export const GSD_RESULT_STATUSES = ['pass', 'fail', 'partial'] as const;
export type GsdResultStatus = (typeof GSD_RESULT_STATUSES)[number];

/** How many times a catch-up is retried when another process committed first. */
const CATCH_UP_ATTEMPTS = 50;

// ---------------------------------------------------------------------------------------------
// Inputs

/** protocol/tasks.json, or an `environment` error (exit 2) saying how to create it. */
export function requireTasks(ctx: Ctx): TasksFile {
  const tasks = readTasksFile(tasksFilePath(ctx));
  if (!tasks) {
    throw new HeimdallError('environment', `no GSD import in ${ctx.paths.protocolDir} (protocol/tasks.json is missing): run heimdall import gsd [--from DIR] first`);
  }
  if (typeof tasks.planning_dir !== 'string') {
    throw new HeimdallError('environment', `${tasksFilePath(ctx)} was written by an older import (no planning_dir); run heimdall import gsd again`);
  }
  return tasks;
}

/** A plan of the import by id (`01-02`, `1-2` and the PLAN file path are accepted), or `not_found` listing the ids. */
export function findTask(tasks: TasksFile, ref: string): GsdTask {
  const want = typeof ref === 'string' ? ref.trim().replace(/^\.planning\//, '') : '';
  const plans = tasks.tasks;
  const hit =
    plans.find((t) => t.id === want) ??
    plans.find((t) => t.plan_file === want) ??
    plans.find((t) => t.id.toLowerCase() === want.toLowerCase()) ??
    (() => {
      const m = /^(\d+(?:\.\d+)*)-(\d+[a-z]?)$/i.exec(want);
      if (!m) return undefined;
      const n = (x: string) => x.replace(/^0+(?=\d)/, '').toLowerCase();
      return plans.find((t) => t.kind === 'phase' && n(t.phase) === n(m[1] as string) && n(t.plan) === n(m[2] as string));
    })();
  if (hit) return hit;
  const ids = plans.map((t) => t.id);
  throw new HeimdallError('not_found', `no plan ${JSON.stringify(ref)} in the GSD import of ${tasks.planning_dir}; plans: ${ids.slice(0, 12).join(', ')}${ids.length > 12 ? `, ... (${ids.length})` : ''}`);
}

/**
 * Bring the read model up to date with the log. Several agents' processes catch up at once; the
 * store refuses a commit computed from an offset another process already moved (`conflict`), so
 * the catch-up starts again from what that process committed.
 */
export async function catchUpWire(ctx: Ctx, wire: WirePorts): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await new WireListener(ctx, wire.log, wire.store).catchUp();
      return;
    } catch (e) {
      if (!isHeimdallError(e) || e.code !== 'conflict' || attempt >= CATCH_UP_ATTEMPTS) throw e;
      // Let the other process finish its commit before reading what it wrote.
      await new Promise((r) => setTimeout(r, Math.min(200, 5 * attempt) + Math.random() * 20));
    }
  }
}

const RESULT_FILE = /^(.+)\.a(\d+)\.json$/;

function resultFile(ctx: Ctx, plan: string, attempt: number): string {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/.test(plan) || plan.includes('..')) {
    throw new HeimdallError('invalid', `plan id ${JSON.stringify(plan)} cannot name a result file (letters, digits, ".", "_", "-")`);
  }
  return path.join(ctx.paths.taskResultsDir, `${plan}.a${attempt}.json`);
}

function isResult(v: unknown): v is ResultRecord {
  const r = v as ResultRecord;
  return (
    typeof r === 'object' &&
    r !== null &&
    typeof r.plan === 'string' &&
    Number.isInteger(r.attempt) &&
    (GSD_RESULT_STATUSES as readonly string[]).includes(r.status) &&
    typeof r.by === 'string' &&
    typeof r.at === 'string' &&
    typeof r.message === 'object' &&
    r.message !== null
  );
}

/** The recorded results of the plans of `ids` (protocol/results). A file that is not a result is reported, never guessed at. */
export function readResults(ctx: Ctx, ids: Set<string>): ResultRecord[] {
  let names: string[];
  try {
    names = fs.readdirSync(ctx.paths.taskResultsDir);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw e;
  }
  const out: ResultRecord[] = [];
  for (const n of names.sort()) {
    const m = RESULT_FILE.exec(n);
    if (!m || !ids.has(m[1] as string)) continue;
    const file = path.join(ctx.paths.taskResultsDir, n);
    const v = readJsonFile(file);
    if (!isResult(v) || v.plan !== m[1] || v.attempt !== Number(m[2])) {
      throw new HeimdallError('environment', `${file} is not a task result {"plan", "attempt", "status": pass|fail|partial, "by", "at", "message"} for plan ${m[1]} attempt ${m[2]}; the file was left untouched (fix it or restore it from git)`);
    }
    out.push(v);
  }
  return out;
}

/** The task runs of the import's plans, from the read model. */
async function planRuns(store: ReadModelStore, tasks: TasksFile): Promise<TaskRun[]> {
  const ids = new Set(tasks.tasks.map((t) => t.id));
  return (await store.tasks()).filter((r) => ids.has(r.task_id));
}

/** Every plan's state now, for `caller` (whose own claims never block it). Reads only (the read model must be caught up). */
export async function derivePhase(ctx: Ctx, store: ReadModelStore, tasks: TasksFile, caller?: string): Promise<PlanState[]> {
  const ids = new Set(tasks.tasks.map((t) => t.id));
  return derivePlans({
    tasks,
    claims: listClaims(ctx, { history: true }).claims,
    runs: await planRuns(store, tasks),
    results: readResults(ctx, ids),
    now: ctx.clock.now(),
    caller,
  });
}

function stateOf(states: PlanState[], id: string): PlanState {
  const s = states.find((x) => x.id === id);
  if (!s) throw new HeimdallError('internal', `plan ${id} vanished from the derived state`);
  return s;
}

function who(ctx: Ctx, haid: string): string {
  const root = readRegistry(ctx).root;
  const address = root ? addressOfHaid(root, haid) : null;
  return address ? `${haid} (${address})` : haid;
}

// ---------------------------------------------------------------------------------------------
// ready

export interface ReadyReport {
  planning_dir: string;
  now: string;
  /** The agent the answer is for (its own claims never block it), null for an observer. */
  agent: { haid: string; address: string | null } | null;
  /** The phase asked for, or null for every phase. */
  phase: string | null;
  /** Every plan in scope is done. */
  complete: boolean;
  counts: Record<PlanState['status'], number>;
  /** Plan ids `start` would take now, in phase, wave and id order. */
  ready: string[];
  phases: { phase: string; waves: { wave: number; plans: PlanState[] }[] }[];
}

function groupByWave(states: PlanState[]): ReadyReport['phases'] {
  const phases = [...new Set(states.map((s) => s.phase))].sort(comparePhases);
  return phases.map((phase) => {
    const of = states.filter((s) => s.phase === phase);
    const waves = [...new Set(of.map((s) => s.wave))].sort((a, b) => a - b);
    return { phase, waves: waves.map((wave) => ({ wave, plans: of.filter((s) => s.wave === wave) })) };
  });
}

function countStates(states: PlanState[]): ReadyReport['counts'] {
  const counts = { waiting: 0, ready: 0, claimed: 0, running: 0, done: 0, failed: 0 };
  for (const s of states) counts[s.status]++;
  return counts;
}

/** Check a phase id against the import, or `not_found` listing the phases. */
function checkPhase(tasks: TasksFile, phase: string): string {
  const phases = [...new Set(tasks.tasks.map((t) => t.phase))].sort(comparePhases);
  const want = phase.trim();
  const hit = phases.find((p) => p === want) ?? phases.find((p) => /^\d/.test(want) && comparePhases(p, want) === 0 && p !== 'quick') ?? phases.find((p) => Number(p) === Number(want) && /^\d+$/.test(want));
  if (!hit) throw new HeimdallError('not_found', `no phase ${JSON.stringify(phase)} in the GSD import; phases: ${phases.join(', ')}`);
  return hit;
}

/**
 * `heimdall gsd ready`: the plans `start` would take now (dependencies done, earlier phases done, no
 * file held by another agent), wave by wave, with the reasons of every other plan. Writes nothing
 * but the read model's catch-up.
 */
export async function gsdReady(ctx: Ctx, wire: WirePorts, opts: { haid?: string; phase?: string } = {}): Promise<ReadyReport> {
  const tasks = requireTasks(ctx);
  const haid = opts.haid === undefined ? undefined : checkTreeHaid(ctx, opts.haid, 'agent');
  const phase = opts.phase === undefined ? undefined : checkPhase(tasks, opts.phase);
  await catchUpWire(ctx, wire);
  const all = await derivePhase(ctx, wire.store, tasks, haid);
  const states = phase === undefined ? all : all.filter((s) => s.phase === phase);
  const root = readRegistry(ctx).root;
  return {
    planning_dir: tasks.planning_dir,
    now: new Date(ctx.clock.now()).toISOString(),
    agent: haid ? { haid, address: root ? addressOfHaid(root, haid) : null } : null,
    phase: phase ?? null,
    complete: states.every((s) => s.status === 'done'),
    counts: countStates(states),
    ready: states.filter((s) => s.ready).map((s) => s.id),
    phases: groupByWave(states),
  };
}

// ---------------------------------------------------------------------------------------------
// check-wave

export interface WaveOverlap {
  plans: [string, string];
  /** [file of the first plan, file of the second] pairs that could be the same path. */
  files: [string, string][];
}

export interface WaveCheck {
  phase: string;
  wave: number;
  plans: { id: string; write_set: string[] }[];
  overlaps: WaveOverlap[];
  /** True when no two plans of the wave write the same file. */
  ok: boolean;
}

/** The phase `check-wave` looks at by default: the first (in roadmap order) with a plan not done. */
function currentPhase(states: PlanState[]): string | undefined {
  const phases = [...new Set(states.map((s) => s.phase))].filter((p) => p !== 'quick').sort(comparePhases);
  return phases.find((p) => states.some((s) => s.phase === p && s.status !== 'done'));
}

/**
 * `heimdall gsd check-wave N`: every pair of plans of wave N (of `phase`, default the current phase)
 * whose write sets overlap, by the claims' own glob-overlap test. Reads only.
 */
export async function checkWave(ctx: Ctx, wire: WirePorts | undefined, req: { wave: number; phase?: string }): Promise<WaveCheck> {
  const tasks = requireTasks(ctx);
  if (!Number.isInteger(req.wave) || req.wave < 0) throw new HeimdallError('invalid', `a wave is a whole number (0, 1, 2, ...), got ${JSON.stringify(req.wave)}`);
  let phase: string;
  if (req.phase !== undefined) phase = checkPhase(tasks, req.phase);
  else {
    if (!wire) throw new HeimdallError('usage', 'name the phase (--phase N): finding the current one needs the wire read model');
    await catchUpWire(ctx, wire);
    const cur = currentPhase(await derivePhase(ctx, wire.store, tasks));
    if (cur === undefined) throw new HeimdallError('not_found', 'every phase of the GSD import is done; name one with --phase N');
    phase = cur;
  }
  const of = tasks.tasks.filter((t) => t.phase === phase);
  const plans = of.filter((t) => t.wave === req.wave).sort((a, b) => (a.id < b.id ? -1 : 1));
  if (plans.length === 0) {
    const waves = [...new Set(of.map((t) => t.wave))].sort((a, b) => a - b);
    throw new HeimdallError('not_found', `phase ${phase} has no wave ${req.wave}; its waves: ${waves.join(', ')}`);
  }
  const globs = new Map<string, string[]>();
  for (const t of plans) {
    const list: string[] = [];
    for (const f of t.write_set) {
      try {
        list.push(normalizeGlob(f));
      } catch (e) {
        throw new HeimdallError('invalid', `plan ${t.id}: its write set names ${JSON.stringify(f)}, which is not a path the overlap test accepts (${(e as Error).message})`);
      }
    }
    globs.set(t.id, list);
  }
  const overlaps: WaveOverlap[] = [];
  for (let i = 0; i < plans.length; i++) {
    for (let j = i + 1; j < plans.length; j++) {
      const a = plans[i] as GsdTask;
      const b = plans[j] as GsdTask;
      const files = overlappingPairs(globs.get(a.id) ?? [], globs.get(b.id) ?? []);
      if (files.length) overlaps.push({ plans: [a.id, b.id], files });
    }
  }
  return { phase, wave: req.wave, plans: plans.map((t) => ({ id: t.id, write_set: t.write_set })), overlaps, ok: overlaps.length === 0 };
}

// ---------------------------------------------------------------------------------------------
// start

export interface StartRequest {
  haid: string;
  plan: string;
  ttlMinutes?: number;
}

export interface StartResult {
  plan: string;
  phase: string;
  wave: number;
  attempt: number;
  stream_id: string;
  /** The caller already held the plan: its claim and lease were renewed, no new attempt was opened. */
  resumed: boolean;
  agent: { haid: string; address: string | null };
  claim: ClaimView;
  lease_expires_at: string;
  /** The v2 brief (what `heimdall brief gsd` prints), counted with the tokenizer. */
  brief: GsdBrief;
  ledger: { msg_id: string; tokens: number };
}

function refuse(id: string, s: PlanState, caller: string): HeimdallError {
  const reasons = s.reasons.filter((r) => r.kind !== 'failed');
  const claim = reasons.find((r) => r.kind === 'claim');
  const text = reasons.map(describeReason).join('; ');
  return new HeimdallError('conflict', `cannot start ${id} for ${caller}: it ${reasons.length === 1 && claim ? 'needs files that are held: ' : ''}${text}. See heimdall gsd ready.`, {
    plan: id,
    reasons,
  });
}

function streamId(plan: string, attempt: number): string {
  return `task:${plan}:attempt:${attempt}`;
}

/**
 * `heimdall gsd start PLAN`: claim the plan's whole write set (and its SUMMARY) for the caller, all
 * or nothing; append task.available, task.claimed (with the claim's expiry as the lease) and
 * task.started on a new attempt stream; log the brief to the ledger; return the brief. Started
 * again by its holder, it renews the claim and the lease and returns the brief again.
 */
export async function gsdStart(ctx: Ctx, wire: WirePorts, req: StartRequest): Promise<StartResult> {
  const haid = checkTreeHaid(ctx, req.haid, 'agent');
  const tasks = requireTasks(ctx);
  const task = findTask(tasks, req.plan);
  const id = task.id;
  await catchUpWire(ctx, wire);
  let s = stateOf(await derivePhase(ctx, wire.store, tasks, haid), id);
  const holder = (h: NonNullable<PlanState['holder']>) => `${h.address ?? h.haid}${h.address ? ` [${h.haid}]` : ''}`;
  if (s.status === 'done') throw new HeimdallError('conflict', `${id} is already done (${s.done_by === 'import' ? 'its SUMMARY existed when the tree was imported' : `attempt ${s.attempt} passed`}); nothing to start`, { plan: id });
  const mine = s.holder?.haid === haid;
  if (s.holder && !mine) {
    throw new HeimdallError('conflict', `${id} is already started by ${holder(s.holder)}: it holds claim ${s.holder.claim} for task ${id} until ${s.holder.expires_at}`, {
      plan: id,
      holder: s.holder,
    });
  }
  const bad = s.reasons.find((r) => r.kind === 'write_set');
  if (bad) throw new HeimdallError('invalid', bad.error, { plan: id });
  if (!mine && s.reasons.some((r) => r.kind !== 'failed')) throw refuse(id, s, who(ctx, haid));
  const surfaces = checkSurfaces(s.surfaces);

  // The brief before anything is written: a plan whose brief cannot be built is not started.
  const brief = gsdBrief(ctx, id, loadGsdModel(ctx));

  // All or nothing, under the claims lock: of two overlapping starts exactly one gets here.
  const claimed = makeClaim(ctx, { haid, surfaces, task: id, ttlMinutes: req.ttlMinutes });
  const claim = claimed.claim;
  let attempt: number;
  let resumed = false;
  try {
    await catchUpWire(ctx, wire);
    const states = await derivePhase(ctx, wire.store, tasks, haid);
    s = stateOf(states, id);
    if (s.status === 'done') throw new HeimdallError('conflict', `${id} was finished while it was being started (attempt ${s.attempt}); nothing to start`, { plan: id });
    const runs = (await wire.store.tasks({ task_id: id })).sort((a, b) => a.attempt - b.attempt);
    const latest = runs[runs.length - 1];
    const sender = `agent:${haid}`;
    const base = { wire: '1.1' as const, correlation_id: `gsd:phase:${task.phase}`, causation_id: null, sender };
    const lease = claim.expires_at;
    // wire_id and ts are filled in by the producer (prepareWire), stream_seq by the log.
    let drafts: Record<string, unknown>[];
    if (latest && latest.claim?.agent === haid && latest.progress !== null && latest.progress !== 'complete') {
      // The holder starts it again: renew the lease on the same attempt (a claimant's repeated claim is a renewal).
      resumed = true;
      attempt = latest.attempt;
      const sid = streamId(id, attempt);
      drafts = [{ ...base, stream_id: sid, type: 'task.claimed', payload: { task_id: id, attempt, agent: haid, lease_expires_at: lease } }];
      if (latest.progress === 'claimed') drafts.push({ ...base, stream_id: sid, type: 'task.started', payload: { task_id: id, attempt, agent: haid } });
    } else {
      attempt = (runs.reduce((m, r) => Math.max(m, r.attempt), 0) || 0) + 1;
      const sid = streamId(id, attempt);
      drafts = [
        { ...base, stream_id: sid, type: 'task.available', payload: { task_id: id, attempt, ...(task.title ? { title: task.title.slice(0, 200) } : {}), role: 'executor' } },
        { ...base, stream_id: sid, type: 'task.claimed', payload: { task_id: id, attempt, agent: haid, role: 'executor', lease_expires_at: lease } },
        { ...base, stream_id: sid, type: 'task.started', payload: { task_id: id, attempt, agent: haid } },
      ];
    }
    await emitWires(ctx, wire.log, drafts);
  } catch (e) {
    // Nothing of this start may stay behind: give the files back (a renewed claim stays as it was).
    if (!claimed.extended) {
      try {
        releaseClaim(ctx, { by: haid, id: claim.id, reason: `gsd start ${id} did not complete: ${(e as Error).message.slice(0, 300)}` });
      } catch {
        /* the claim expires by itself; the original error is what the caller must see */
      }
    }
    throw e;
  }
  const msgId = `gsd.${id}.a${attempt}.brief`;
  const line = logTokens(ctx, { role: 'orchestration', kind: 'gsd_brief', msgId, text: brief.counted_text, phase: task.phase, plan: id });
  logAction(ctx, 'gsd', resumed ? 'resume' : 'start', `${id} attempt ${attempt} by ${haid} claim ${claim.id} lease until ${claim.expires_at}; brief ${line.tokens} tokens`);
  const root = readRegistry(ctx).root;
  return {
    plan: id,
    phase: task.phase,
    wave: task.wave,
    attempt,
    stream_id: streamId(id, attempt),
    resumed,
    agent: { haid, address: root ? addressOfHaid(root, haid) : null },
    claim,
    lease_expires_at: claim.expires_at,
    brief,
    ledger: { msg_id: msgId, tokens: line.tokens },
  };
}

// ---------------------------------------------------------------------------------------------
// done

export interface DoneRequest {
  haid: string;
  plan: string;
  status: GsdResultStatus;
  /** One line on what happened (kept in the result; the release reason of a partial result). */
  note?: string;
  /** The commit that holds the work (hex). */
  commit?: string;
  /** Acceptance criteria met (integers). */
  criteria?: number[];
}

export interface DoneResult {
  plan: string;
  attempt: number;
  status: GsdResultStatus;
  agent: { haid: string; address: string | null };
  /** The typed task_result, valid against the message schema. */
  result: Record<string, unknown>;
  result_file: string;
  /** The SUMMARY the executor wrote, relative to the project, when there is one. */
  summary_file: string | null;
  capsule: { id: string; tokens: number } | null;
  /** Why no capsule was written although a SUMMARY exists. */
  capsule_skipped?: string;
  /** The wire event that closed the attempt (none when a previous `done` already appended it). */
  event: 'task.complete' | 'agent.lease.released' | null;
  released: string[];
  ledger: { lines: number; tokens: number };
  /** True when this call finished a `done` that was interrupted after its wire event. */
  recovered: boolean;
}

/** Check a done request's fields; `invalid` with what was expected. */
function checkDone(req: DoneRequest): void {
  if (!(GSD_RESULT_STATUSES as readonly string[]).includes(req.status)) {
    throw new HeimdallError('invalid', `status must be one of ${GSD_RESULT_STATUSES.join(', ')}, got ${JSON.stringify(req.status)}`);
  }
  if (req.note !== undefined && (typeof req.note !== 'string' || req.note.length > 2000 || /[\u0000-\u001f\u007f]/.test(req.note))) {
    throw new HeimdallError('invalid', 'note must be one line of text, at most 2000 characters');
  }
}

/**
 * `heimdall gsd done PLAN --status pass|fail|partial`: by the agent holding the plan only. Appends
 * task.complete (verification passed or failed) or, for a partial result, agent.lease.released
 * (the plan is ready again, for a new attempt); writes the typed task_result and, for a pass, the
 * plan's capsule from its SUMMARY; logs both to the ledger; releases the plan's claim.
 */
export async function gsdDone(ctx: Ctx, wire: WirePorts, req: DoneRequest): Promise<DoneResult> {
  const haid = checkTreeHaid(ctx, req.haid, 'agent');
  checkDone(req);
  const tasks = requireTasks(ctx);
  const task = findTask(tasks, req.plan);
  const id = task.id;
  await catchUpWire(ctx, wire);
  const claims = listClaims(ctx, { history: true }).claims.filter((c) => c.task === id);
  const other = claims.find((c) => c.status === 'active' && c.haid !== haid);
  if (other) {
    throw new HeimdallError('forbidden', `${id} is held by ${other.address ?? other.haid} (claim ${other.id}, until ${other.expires_at}), not by ${who(ctx, haid)}: only the agent holding a plan records its result`, {
      plan: id,
      holder: other.haid,
    });
  }
  const mine = claims.filter((c) => c.haid === haid && (c.status === 'active' || c.status === 'expired'));
  const runs = (await wire.store.tasks({ task_id: id })).sort((a, b) => a.attempt - b.attempt);
  const latest = runs[runs.length - 1];
  if (mine.length === 0 || !latest) {
    throw new HeimdallError('forbidden', `${who(ctx, haid)} does not hold ${id}${latest?.claim ? ` (attempt ${latest.attempt} is ${latest.claim.agent}'s)` : ''}: start it first (heimdall gsd start ${id})`, { plan: id });
  }
  const attempt = latest.attempt;
  const file = resultFile(ctx, id, attempt);
  const recorded = fs.existsSync(file);
  const running = latest.claim?.agent === haid && latest.progress !== null && latest.progress !== 'complete';
  const closedPass = latest.progress === 'complete' && latest.completed_by === haid;
  const closedPartial = latest.progress === null && latest.released && latest.claim === null;
  let recovered = false;
  if (!running) {
    const matches =
      (closedPass && ((req.status === 'pass' && latest.verification_status === 'passed') || (req.status === 'fail' && latest.verification_status === 'failed'))) || (closedPartial && req.status === 'partial');
    if (recorded || !matches) {
      throw new HeimdallError(
        recorded ? 'conflict' : 'forbidden',
        recorded
          ? `the result of ${id} attempt ${attempt} is already recorded (${path.relative(ctx.root, file)}); start it again for a new attempt`
          : `${who(ctx, haid)} has no running attempt of ${id} (attempt ${attempt} is ${latest.progress ?? 'released'}${latest.verification_status ? `, ${latest.verification_status}` : ''}): start it first (heimdall gsd start ${id})`,
        { plan: id },
      );
    }
    recovered = true;
  }

  // The SUMMARY the executor wrote, and (for a pass) the capsule the import would write from it.
  const summaryRel = summaryPath(tasks, task);
  const summaryAbs = summaryRel ? path.join(projectRoot(tasks), summaryRel) : undefined;
  const summaryExists = summaryAbs !== undefined && fs.existsSync(summaryAbs);
  let capsule: ReturnType<typeof summaryCapsule>;
  let skipped: string | undefined;
  if (summaryExists && req.status === 'pass') {
    capsule = summaryCapsule(ctx, task, tasks.planning_dir, path.relative(tasks.planning_dir, summaryAbs as string).split(path.sep).join('/'));
    if (!capsule) skipped = `${summaryRel} is not a SUMMARY the import can read`;
    else {
      const existing = fs.existsSync(capsulePath(ctx, id)) ? readCapsule(ctx, id).text : undefined;
      if (existing !== undefined && existing !== capsule.text && !(tasks.owned?.capsules ?? []).includes(id)) {
        skipped = `capsule ${id} already exists and was not written by an import; left as it is`;
        capsule = undefined;
      }
    }
  }
  const now = ctx.clock.now();
  const message: Record<string, unknown> = {
    type: 'task_result',
    from: haid,
    msg_id: `gsd.${id}.a${attempt}.result`,
    ts: isoSeconds(now),
    task: id,
    status: req.status,
    ...(req.criteria !== undefined ? { criteria: req.criteria } : {}),
    ...(req.commit !== undefined ? { commit: req.commit } : {}),
    ...(capsule ? { capsule: id } : {}),
  };
  const v = validateMessage(message);
  if (!v.valid) throw new HeimdallError('invalid', `the task_result is not valid, nothing was recorded: ${v.errors.map((e) => `${e.path} ${e.message}`).join('; ')}`, v.errors);

  // 1. The wire event that closes the attempt (skipped when an interrupted `done` already appended it).
  let event: DoneResult['event'] = null;
  if (running) {
    const base = { wire: '1.1' as const, correlation_id: `gsd:phase:${task.phase}`, causation_id: null, sender: `agent:${haid}`, stream_id: streamId(id, attempt) };
    const sha = summaryExists ? crypto.createHash('sha256').update(fs.readFileSync(summaryAbs as string)).digest('hex') : undefined;
    const draft =
      req.status === 'partial'
        ? { ...base, type: 'agent.lease.released' as const, payload: { task_id: id, attempt, agent: haid, reason: `partial result${req.note ? `: ${req.note}` : ''}`.slice(0, 2000) } }
        : {
            ...base,
            type: 'task.complete' as const,
            payload: {
              task_id: id,
              attempt,
              agent: haid,
              verification_status: req.status === 'pass' ? ('passed' as const) : ('failed' as const),
              ...(summaryExists && summaryRel ? { output_ref: summaryRel, ...(sha ? { sha256: sha } : {}) } : {}),
            },
          };
    await emitWires(ctx, wire.log, [draft]);
    event = draft.type;
  }

  // 2. The capsule (a pass with a SUMMARY), marked as the import's own so a later import keeps it in step.
  let capsuleOut: DoneResult['capsule'] = null;
  if (capsule) {
    writeCapsule(ctx, id, capsule.input);
    const tf = tasksFilePath(ctx);
    withLock(tf, () => {
      const cur = readTasksFile(tf);
      if (!cur || (cur.owned?.capsules ?? []).includes(id)) return;
      cur.owned = { ...cur.owned, capsules: [...(cur.owned?.capsules ?? []), id].sort() };
      atomicWrite(tf, `${JSON.stringify(cur, null, 2)}\n`, auditEntry(ctx, 'gsd', 'own', `capsule ${id} kept in step with its SUMMARY by heimdall import gsd`));
    });
  }

  // 3. The typed result, then both messages on the ledger (counted), then the claim goes.
  const record: ResultRecord = {
    plan: id,
    attempt,
    status: req.status,
    by: haid,
    at: isoSeconds(now),
    message,
    summary_file: summaryExists ? (summaryRel as string) : null,
    capsule: capsule ? id : null,
    ...(req.note ? { note: req.note } : {}),
  };
  fs.mkdirSync(ctx.paths.taskResultsDir, { recursive: true });
  withLock(file, () => atomicWrite(file, `${JSON.stringify(record, null, 2)}\n`, auditEntry(ctx, 'gsd', 'done', `${id} attempt ${attempt} ${req.status} by ${haid}${capsule ? ` capsule ${id}` : ''}`)));
  const lines = logTokensBatch(
    ctx,
    [
      { role: 'orchestration', kind: 'task_result', msgId: message.msg_id as string, text: JSON.stringify(message), phase: task.phase, plan: id },
      ...(capsule ? [{ role: 'orchestration', kind: 'capsule', msgId: `gsd.${id}.a${attempt}.capsule`, text: capsule.text, phase: task.phase, plan: id }] : []),
    ],
    `gsd done ${id} attempt ${attempt}`,
  );
  if (capsule) capsuleOut = { id, tokens: (lines[1] as { tokens: number }).tokens };
  const released: string[] = [];
  for (const c of mine) {
    try {
      releaseClaim(ctx, { by: haid, id: c.id, reason: `gsd done ${id}: ${req.status}` });
      released.push(c.id);
    } catch (e) {
      if (!isHeimdallError(e) || e.code !== 'not_found') throw e;
    }
  }
  const root = readRegistry(ctx).root;
  return {
    plan: id,
    attempt,
    status: req.status,
    agent: { haid, address: root ? addressOfHaid(root, haid) : null },
    result: message,
    result_file: path.relative(path.dirname(ctx.root), file),
    summary_file: summaryExists ? (summaryRel as string) : null,
    capsule: capsuleOut,
    ...(skipped ? { capsule_skipped: skipped } : {}),
    event,
    released,
    ledger: { lines: lines.length, tokens: lines.reduce((n, l) => n + l.tokens, 0) },
    recovered,
  };
}
