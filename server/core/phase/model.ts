/**
 * Where each plan of an imported GSD tree stands, derived (never stored) from three sources:
 *
 *  - protocol/tasks.json (`heimdall import gsd`): the plans, their phase, wave, dependencies and
 *    write sets, and whether a SUMMARY already existed when the tree was imported;
 *  - claims.json: who holds a plan (its claim, task = the plan id) and which files other agents hold;
 *  - the wire read model: one task run per attempt (`task:<plan>:attempt:<n>`), started, completed
 *    (verification passed or failed), released (a partial result) or abandoned (lease run out).
 *
 * A plan is `done` (imported with its SUMMARY, or an attempt completed and passed), else `claimed` /
 * `running` while an agent holds its claim (running once the wire says task.started), else `failed`
 * when its last attempt completed with verification failed (a new `start` retries it), else `ready`
 * when every dependency is done, every plan of the earlier phases is done (GSD runs phases in roadmap
 * order) and no other agent holds a file of its write set, else `waiting`, with every reason.
 *
 * The claim is the authority on who holds a plan (it is what keeps two executors apart); its wire
 * lease expires at the same instant (see run.ts). Pure: the caller supplies the data and the time.
 */
import path from 'node:path';
import { MAX_SURFACES, findCollisions, normalizeGlob, type Claim, type ClaimView } from '../claims/index.js';
import { HeimdallError } from '../errors.js';
import type { GsdTask, TasksFile } from '../gsd/importer.js';
import { comparePlanIds } from '../gsd/tree.js';
import { type TaskRun, leaseExpired } from '../wire/reducers/task.js';

/** The columns of the board, in order. */
export const PLAN_STATUSES = ['waiting', 'ready', 'claimed', 'running', 'done', 'failed'] as const;
export type PlanStatus = (typeof PLAN_STATUSES)[number];

/** Why a plan is not ready. */
export type WaitReason =
  /** A plan it depends on is not done. */
  | { kind: 'dependency'; plan: string; status: PlanStatus | 'unknown' }
  /** GSD runs phases in roadmap order: plans of an earlier phase are not done. */
  | { kind: 'phase'; phase: string; open: string[] }
  /** Another agent holds files of its write set. */
  | { kind: 'claim'; holder: string; address: string | null; task: string; claim: string; expires_at: string; overlaps: [string, string][] }
  /** Its last attempt failed: `heimdall gsd start` retries it. */
  | { kind: 'failed'; attempt: number; by: string | null }
  /** Its write set cannot be claimed as written (a path the glob language refuses). */
  | { kind: 'write_set'; error: string };

export interface PlanHolder {
  haid: string;
  address: string | null;
  claim: string;
  since: string;
  expires_at: string;
}

/** A typed result recorded by `heimdall gsd done` (protocol/results/<plan>.a<n>.json). */
export interface ResultRecord {
  plan: string;
  attempt: number;
  status: 'pass' | 'fail' | 'partial';
  by: string;
  at: string;
  /** The typed task_result message (validated against the message schema). */
  message: Record<string, unknown>;
  summary_file: string | null;
  capsule: string | null;
  note?: string;
}

export interface PlanState {
  id: string;
  phase: string;
  wave: number;
  title: string | null;
  depends: string[];
  write_set: string[];
  /** What `start` claims: the write set plus the plan's SUMMARY, as repository-relative globs. */
  surfaces: string[];
  plan_file: string | null;
  status: PlanStatus;
  /** True when `heimdall gsd start` would take it now (for the caller, whose own claims never block). */
  ready: boolean;
  /** Why it waits (or failed); empty otherwise. */
  reasons: WaitReason[];
  holder: PlanHolder | null;
  /** The latest attempt on the wire, and how many there were. */
  attempt: number | null;
  attempts: number;
  /** The wire lease of the running attempt (the same instant as its claim's expiry). */
  lease_expires_at: string | null;
  /** The latest attempt was left behind: its holder's lease ran out or its claim went away. */
  abandoned: { attempt: number; by: string; lease_expired_at: string | null } | null;
  /** The latest typed result recorded for it. */
  last_result: { attempt: number; status: ResultRecord['status']; by: string; at: string } | null;
  /** Where `done` came from: the import (a SUMMARY existed) or a passed attempt. */
  done_by: 'import' | 'wire' | null;
}

export interface PhaseInputs {
  tasks: TasksFile;
  /** Every claim with its status now (listClaims with history), holders' addresses included. */
  claims: ClaimView[];
  /** Task runs of the wire read model (any task; those of other tasks are ignored). */
  runs: TaskRun[];
  results: ResultRecord[];
  now: number;
  /** The agent asking: its own claims never block it. Absent: an observer (Studio), blocked by every claim. */
  caller?: string;
}

/** Where write sets are relative to: the folder holding the GSD planning folder. */
export function projectRoot(tasks: TasksFile): string {
  return path.dirname(tasks.planning_dir);
}

/** The SUMMARY a plan's executor writes, relative to the project (`.planning/phases/01-x/01-02-SUMMARY.md`). */
export function summaryPath(tasks: TasksFile, t: GsdTask): string | null {
  const rel = t.summary_file ?? (t.plan_file ? t.plan_file.replace(/plan(\.md)$/i, 'SUMMARY$1') : null);
  if (rel === null) return null;
  const planning = path.relative(projectRoot(tasks), tasks.planning_dir).split(path.sep).join('/');
  return planning ? `${planning}/${rel}` : rel;
}

/**
 * The surfaces `start` claims for a plan: its write set and its SUMMARY (so every plan's claim is
 * its own, even with an empty write set, and two agents can never start the same plan). A write set
 * longer than one claim allows is widened folder by folder (`src/a/x.ts`, `src/a/y.ts` -> `src/a/**`):
 * a wider claim can only add collisions, never miss one. Throws `invalid` for a path the glob
 * language refuses.
 */
export function planSurfaces(tasks: TasksFile, t: GsdTask): string[] {
  const out: string[] = [];
  const summary = summaryPath(tasks, t);
  for (const f of [...t.write_set, ...(summary ? [summary] : [])]) {
    let g: string;
    try {
      g = normalizeGlob(f);
    } catch (e) {
      throw new HeimdallError('invalid', `plan ${t.id}: its write set names ${JSON.stringify(f)}, which cannot be claimed (${(e as Error).message}); fix files_modified in ${t.plan_file ?? 'the plan'} and import again`);
    }
    if (!out.includes(g)) out.push(g);
  }
  return widen(out, MAX_SURFACES);
}

/** Replace the most crowded folder's entries with `folder/**` until at most `max` surfaces are left. */
function widen(surfaces: string[], max: number): string[] {
  let cur = [...surfaces];
  while (cur.length > max) {
    const byDir = new Map<string, string[]>();
    for (const s of cur) {
      const dir = s.includes('/') ? s.slice(0, s.lastIndexOf('/')) : '';
      if (!dir) continue;
      byDir.set(dir, [...(byDir.get(dir) ?? []), s]);
    }
    const [dir, members] = [...byDir].sort((a, b) => b[1].length - a[1].length || b[0].split('/').length - a[0].split('/').length || (a[0] < b[0] ? -1 : 1))[0] ?? [];
    if (!dir || !members || members.length < 2) {
      // Every folder holds one surface: step every surface up one level.
      const up = [...new Set(cur.map((s) => (s.includes('/') ? `${s.split('/').slice(0, -1).join('/')}/**` : '**')))];
      if (up.length >= cur.length) return ['**'];
      cur = up;
      continue;
    }
    cur = [...cur.filter((s) => !members.includes(s)), `${dir}/**`];
  }
  return cur;
}

const LEASED = new Set(['claimed', 'started', 'planned', 'blocked']);

function iso(ms: number | null | undefined): string | null {
  return ms === null || ms === undefined ? null : new Date(ms).toISOString();
}

/** Phases in roadmap order; `quick` tasks stand apart and never wait for a phase. */
export function comparePhases(a: string, b: string): number {
  if (a === b) return 0;
  if (a === 'quick') return 1;
  if (b === 'quick') return -1;
  return comparePlanIds(a, b);
}

/** Derive every plan's state (see the module comment). */
export function derivePlans(inp: PhaseInputs): PlanState[] {
  const { tasks, now } = inp;
  const list = [...tasks.tasks].sort((a, b) => comparePhases(a.phase, b.phase) || a.wave - b.wave || comparePlanIds(a.id, b.id));
  const ids = new Set(list.map((t) => t.id));
  const runsOf = new Map<string, TaskRun[]>();
  for (const r of inp.runs) {
    if (!ids.has(r.task_id)) continue;
    runsOf.set(r.task_id, [...(runsOf.get(r.task_id) ?? []), r]);
  }
  for (const rs of runsOf.values()) rs.sort((a, b) => a.attempt - b.attempt);
  const resultsOf = new Map<string, ResultRecord>();
  for (const r of inp.results) {
    const cur = resultsOf.get(r.plan);
    if (!cur || r.attempt > cur.attempt || (r.attempt === cur.attempt && r.at > cur.at)) resultsOf.set(r.plan, r);
  }
  const active = inp.claims.filter((c) => c.status === 'active');
  // The gate's own test (findCollisions) over the active claims, as Claim records.
  const activeClaims = active.map((c) => ({ ...c, status: 'active' as const })) as Claim[];

  // Pass 1: done, held or failed (each plan's own facts).
  const states = new Map<string, PlanState>();
  for (const t of list) {
    const runs = runsOf.get(t.id) ?? [];
    const latest = runs[runs.length - 1];
    const passed = runs.some((r) => r.progress === 'complete' && r.verification_status === 'passed');
    const own = active.filter((c) => c.task === t.id).sort((a, b) => (a.created_at < b.created_at ? 1 : -1))[0];
    const last = resultsOf.get(t.id);
    let surfaces: string[] = [];
    let surfaceError: string | undefined;
    try {
      surfaces = planSurfaces(tasks, t);
    } catch (e) {
      surfaceError = (e as Error).message;
    }
    const s: PlanState = {
      id: t.id,
      phase: t.phase,
      wave: t.wave,
      title: t.title ?? null,
      depends: t.depends,
      write_set: t.write_set,
      surfaces,
      plan_file: t.plan_file,
      status: 'waiting',
      ready: false,
      reasons: surfaceError ? [{ kind: 'write_set', error: surfaceError }] : [],
      holder: own ? { haid: own.haid, address: own.address, claim: own.id, since: own.created_at, expires_at: own.expires_at } : null,
      attempt: latest?.attempt ?? null,
      attempts: runs.length,
      lease_expires_at: null,
      abandoned: null,
      last_result: last ? { attempt: last.attempt, status: last.status, by: last.by, at: last.at } : null,
      done_by: null,
    };
    if (passed || t.status === 'done') {
      s.status = 'done';
      s.done_by = passed ? 'wire' : 'import';
      s.holder = null;
    } else if (own) {
      const mine = latest && latest.claim?.agent === own.haid && latest.progress !== null && LEASED.has(latest.progress);
      s.status = mine && latest.progress !== 'claimed' ? 'running' : 'claimed';
      s.lease_expires_at = mine ? iso(latest.claim?.lease_expires_ms) : null;
    } else if (latest && latest.progress === 'complete' && latest.verification_status === 'failed') {
      s.status = 'failed';
      s.reasons = [{ kind: 'failed', attempt: latest.attempt, by: latest.completed_by }];
    } else if (latest && latest.progress !== null && LEASED.has(latest.progress) && latest.claim) {
      // Held on the wire but by no claim: its lease ran out, or its claim was released for it.
      s.abandoned = { attempt: latest.attempt, by: latest.claim.agent, lease_expired_at: leaseExpired(latest, now) ? iso(latest.claim.lease_expires_ms) : null };
    }
    states.set(t.id, s);
  }

  // Pass 2: readiness of the rest, against dependencies, earlier phases and other agents' claims.
  const phases = [...new Set(list.map((t) => t.phase))].sort(comparePhases);
  const openOf = new Map<string, string[]>();
  for (const p of phases) openOf.set(p, list.filter((t) => t.phase === p && states.get(t.id)?.status !== 'done').map((t) => t.id));
  for (const t of list) {
    const s = states.get(t.id) as PlanState;
    // A failed plan gets the same checks: they say whether a retry could start now.
    if (s.status !== 'waiting' && s.status !== 'failed') continue;
    for (const d of t.depends) {
      const dep = states.get(d);
      if (!dep) continue; // the import reported and dropped it
      if (dep.status !== 'done') s.reasons.push({ kind: 'dependency', plan: d, status: dep.status });
    }
    if (t.phase !== 'quick') {
      for (const p of phases) {
        if (p === t.phase || p === 'quick' || comparePhases(p, t.phase) > 0) continue;
        const open = openOf.get(p) ?? [];
        if (open.length) s.reasons.push({ kind: 'phase', phase: p, open });
      }
    }
    if (s.surfaces.length) {
      // Claims of other tasks only: a claim on this very plan would have made it claimed above.
      const others = activeClaims.filter((c) => c.task !== t.id);
      for (const c of findCollisions(others, inp.caller ?? '', s.surfaces, now)) {
        const view = active.find((v) => v.id === c.id);
        s.reasons.push({ kind: 'claim', holder: c.holder, address: view?.address ?? null, task: c.task, claim: c.id, expires_at: c.expires_at, overlaps: c.overlaps });
      }
    }
    if (s.status === 'failed') continue;
    s.status = s.reasons.length ? 'waiting' : 'ready';
    s.ready = s.status === 'ready';
  }
  return list.map((t) => states.get(t.id) as PlanState);
}

/** One line per reason, for the CLI and error messages. */
export function describeReason(r: WaitReason): string {
  switch (r.kind) {
    case 'dependency':
      return `waits on ${r.plan} (${r.status})`;
    case 'phase':
      return `waits on phase ${r.phase} (${r.open.length} plan${r.open.length === 1 ? '' : 's'} not done: ${r.open.slice(0, 6).join(', ')}${r.open.length > 6 ? ', ...' : ''})`;
    case 'claim':
      return `${r.address ?? r.holder} holds ${[...new Set(r.overlaps.map(([, h]) => h))].join(', ')} for task ${r.task} (claim ${r.claim}, until ${r.expires_at})`;
    case 'failed':
      return `attempt ${r.attempt} failed${r.by ? ` (${r.by})` : ''}: heimdall gsd start retries it`;
    case 'write_set':
      return r.error;
  }
}
