/**
 * CSP state on disk, under `.planning/csp/`, so another process (or another agent's CLI call) can
 * continue from where this one stopped:
 *
 *   csp/index.json            {"version":1,"head":"C2","chain":[{"patch":"P1","base":"C0","target":"C1","ts":"..."}, ...]}
 *   csp/checkpoints/C0.json   {"id":"C0","base":null,"patch":null,"defs":{"SRC":"src/"},"laws":[{"id":"L1","text":"..."}]}
 *   csp/patches/P1.csp        the patch exactly as applied (canonical CSP text)
 *
 * C0 and the patches are the record; checkpoint files after C0 are snapshots that can be rebuilt
 * (and are checked against the rebuild by `verifyState`). The index is written last, under the
 * index lock, so it is the commit point: a process killed mid-apply leaves at most an unreferenced
 * snapshot or patch file, which the next apply overwrites.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Ctx } from '../context.js';
import { HeimdallError } from '../errors.js';
import { auditEntry, logAction } from '../log/protocolLog.js';
import { type Audit, atomicWrite, readJsonFile, readTextFile, withLock } from '../planning/fsx.js';
import { dataMap } from '../planning/state.js';
import { NAME_PATTERN, NAME_RULE } from '../planning/ids.js';
import { isoSeconds } from '../ports.js';
import { formatCsp, sameData } from './format.js';
import { CHECKPOINT_RE, LAW_ID_RE, NAME_RE } from './lexer.js';
import { parseCsp } from './parse.js';
import { type ApplyOutcome, type Checkpoint, type PatchSummary, applyPatch, initialCheckpoint } from './state.js';
import type { CspContext, CspError, PatchBody } from './types.js';

export interface ChainEntry {
  patch: string;
  base: string;
  target: string;
  /** When it was applied (ISO-8601 UTC). */
  ts: string;
}

export interface CspIndex {
  version: 1;
  head: string;
  chain: ChainEntry[];
}

export interface CspPaths {
  dir: string;
  index: string;
  checkpointsDir: string;
  patchesDir: string;
}

/** Where the CSP state lives: `<planning root>/csp`. */
export function cspPaths(ctx: Ctx): CspPaths {
  const p = ctx.paths;
  return { dir: p.cspDir, index: p.cspIndex, checkpointsDir: p.cspCheckpointsDir, patchesDir: p.cspPatchesDir };
}

function checkpointFile(p: CspPaths, id: string): string {
  if (!CHECKPOINT_RE.test(id)) throw new HeimdallError('invalid', `invalid checkpoint id ${JSON.stringify(id)}: expected C0, C1, ...`);
  return path.join(p.checkpointsDir, `${id}.json`);
}

function patchFileName(id: string): string | undefined {
  return NAME_PATTERN.test(id) && !id.includes('..') ? `${id}.csp` : undefined;
}

function patchFile(p: CspPaths, id: string): string {
  const name = patchFileName(id);
  if (!name) throw new HeimdallError('environment', `${p.index} names patch ${JSON.stringify(id)}, which is not a valid file name`);
  return path.join(p.patchesDir, name);
}

function corrupt(file: string, what: string): HeimdallError {
  return new HeimdallError('environment', `${file} is not a CSP ${what} file as heimdall writes it; it was left untouched (restore it from git or fix it by hand)`);
}

function isStr(v: unknown): v is string {
  return typeof v === 'string';
}

/** The index, or undefined when no C0 was created yet. Throws `environment` on a damaged file. */
export function readIndex(ctx: Ctx): CspIndex | undefined {
  const p = cspPaths(ctx);
  const raw = readJsonFile(p.index) as Partial<CspIndex> | undefined;
  if (raw === undefined) return undefined;
  const ok =
    typeof raw === 'object' &&
    raw !== null &&
    raw.version === 1 &&
    isStr(raw.head) &&
    CHECKPOINT_RE.test(raw.head) &&
    Array.isArray(raw.chain) &&
    raw.chain.every((e, i) => e && isStr(e.patch) && e.base === `C${i}` && e.target === `C${i + 1}` && isStr(e.ts)) &&
    raw.head === `C${raw.chain.length}`;
  if (!ok) throw corrupt(p.index, 'index');
  return raw as CspIndex;
}

function checkpointToJson(cp: Checkpoint): string {
  const defs = dataMap<string>();
  for (const d of cp.defs) defs[d.name] = d.value;
  return `${JSON.stringify({ id: cp.id, base: cp.base, patch: cp.patch, defs, laws: cp.laws }, null, 2)}\n`;
}

function readCheckpointFile(file: string): Checkpoint | undefined {
  const raw = readJsonFile(file) as Record<string, unknown> | undefined;
  if (raw === undefined) return undefined;
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw corrupt(file, 'checkpoint');
  const defs = raw.defs as Record<string, unknown>;
  const laws = raw.laws as { id?: unknown; text?: unknown }[];
  const ok =
    isStr(raw.id) &&
    CHECKPOINT_RE.test(raw.id) &&
    (raw.base === null || isStr(raw.base)) &&
    (raw.patch === null || isStr(raw.patch)) &&
    typeof defs === 'object' &&
    defs !== null &&
    !Array.isArray(defs) &&
    Object.entries(defs).every(([k, v]) => NAME_RE.test(k) && isStr(v)) &&
    Array.isArray(laws) &&
    laws.every((l) => l && isStr(l.id) && LAW_ID_RE.test(l.id) && isStr(l.text));
  if (!ok) throw corrupt(file, 'checkpoint');
  return {
    id: raw.id as string,
    base: raw.base as string | null,
    patch: raw.patch as string | null,
    defs: Object.entries(defs).map(([name, value]) => ({ name, value: value as string })),
    laws: laws.map((l) => ({ id: l.id as string, text: l.text as string })),
  };
}

export type InitResult = { ok: true; checkpoint: Checkpoint } | { ok: false; errors: CspError[] };

/**
 * Create C0 from a DEF/LAWS document (or empty). Refused when C0 exists: the record starts once, and
 * later state only comes from patches.
 */
export function initState(ctx: Ctx, context?: CspContext): InitResult {
  const p = cspPaths(ctx);
  return withLock(p.index, () => {
    const index = readIndex(ctx);
    if (index) {
      const errors = [
        {
          line: 0,
          expected: `no CSP state yet: C0 exists already (head ${index.head}); change state with a PATCH against ${index.head}`,
          got: 'heimdall csp init',
          example: `heimdall csp apply patch.csp   (PATCH P${index.chain.length + 1} / BASE ${index.head} / ... / APPLY -> C${index.chain.length + 1})`,
        },
      ];
      logAction(ctx, 'csp', 'refuse', `init: C0 exists (head ${index.head})`);
      return { ok: false, errors };
    }
    const c0 = initialCheckpoint(context);
    atomicWrite(checkpointFile(p, 'C0'), checkpointToJson(c0));
    // The index is the commit point: the action's protocol.log line is committed with it.
    writeIndex(p, { version: 1, head: 'C0', chain: [] }, auditEntry(ctx, 'csp', 'init', `C0 (${c0.defs.length} DEFs, ${c0.laws.length} LAWS)`));
    return { ok: true, checkpoint: c0 };
  });
}

function writeIndex(p: CspPaths, index: CspIndex, audit?: Audit): void {
  atomicWrite(p.index, `${JSON.stringify(index, null, 2)}\n`, audit);
}

/** The patch's line numbers in its canonical text: a message has 6 header lines before PATCH. */
function patchLines(kind: 'message' | 'body'): { base: number; op: (i: number) => number } {
  const first = kind === 'message' ? 7 : 1;
  return { base: first + 1, op: (i) => first + 2 + i };
}

export type ApplyResult =
  | { ok: true; applied: boolean; patch: string; base: string; target: string; summary: PatchSummary; checkpoint: Checkpoint }
  | { ok: false; errors: CspError[] };

function summaryText(s: PatchSummary): string {
  return `+${s.added.length} ~${s.changed.length} -${s.removed.length}`;
}

/**
 * Apply a PATCH (a full message with INTENT PATCH, or a bare PATCH block) to the current checkpoint
 * and persist the result. Refusals come back as `{ok: false, errors}` with the line of the offending
 * patch line; re-applying a patch already in the chain with the same text is a no-op (`applied:
 * false`), so an agent may safely retry.
 */
export function applyPatchText(ctx: Ctx, text: string): ApplyResult {
  const parsed = parseCsp(text);
  if (!parsed.ok) return { ok: false, errors: parsed.errors };
  const doc = parsed.message;
  if ((doc.kind !== 'message' && doc.kind !== 'body') || doc.body.intent !== 'PATCH') {
    return {
      ok: false,
      errors: [{ line: 1, expected: 'a PATCH: a message with INTENT PATCH, or a bare PATCH block', got: doc.kind === 'message' || doc.kind === 'body' ? `a ${doc.body.intent} ${doc.kind}` : `a ${doc.kind} document`, example: 'PATCH P1\nBASE C0\n+ DEF NEW_ITEM = value\nAPPLY -> C1' }],
    };
  }
  const patch = doc.body as PatchBody;
  const lines = patchLines(doc.kind);
  if (!patchFileName(patch.id)) {
    return { ok: false, errors: [{ line: lines.base - 1, expected: `a patch id usable as a file name: ${NAME_RULE}`, got: patch.id, example: 'PATCH P1' }] };
  }
  const canonical = formatCsp(doc);
  const p = cspPaths(ctx);
  return withLock(p.index, (): ApplyResult => {
    const index = readIndex(ctx);
    if (!index) {
      return { ok: false, errors: [{ line: lines.base, expected: 'a checkpoint C0 to patch: create it first with `heimdall csp init [defs.csp]`', got: 'no CSP state under .planning/csp', example: 'heimdall csp init project.csp' }] };
    }
    const done = index.chain.find((e) => e.patch === patch.id);
    if (done) {
      const same = readPatchText(p, patch.id) === canonical;
      if (same) {
        const checkpoint = readCheckpoint(ctx, done.target, index);
        return { ok: true, applied: false, patch: patch.id, base: done.base, target: done.target, summary: summarize(patch), checkpoint };
      }
      logAction(ctx, 'csp', 'refuse', `${patch.id}: id already used by ${done.base} -> ${done.target} with other content`);
      return { ok: false, errors: [{ line: lines.base - 1, expected: `a new patch id: ${patch.id} was applied already (${done.base} -> ${done.target}) with other content`, got: `PATCH ${patch.id}`, example: `PATCH P${index.chain.length + 1}` }] };
    }
    const head = readCheckpoint(ctx, index.head, index);
    const outcome: ApplyOutcome = applyPatch(head, patch, lines);
    if (!outcome.ok) {
      logAction(ctx, 'csp', 'refuse', `${patch.id} on ${index.head}: ${outcome.errors.map((e) => `line ${e.line}: ${e.got}`).join('; ')}`);
      return outcome;
    }
    const cp = outcome.checkpoint;
    atomicWrite(patchFile(p, patch.id), canonical);
    atomicWrite(checkpointFile(p, cp.id), checkpointToJson(cp));
    writeIndex(
      p,
      { version: 1, head: cp.id, chain: [...index.chain, { patch: patch.id, base: patch.base, target: cp.id, ts: isoSeconds(ctx.clock.now()) }] },
      auditEntry(ctx, 'csp', 'apply', `${patch.id} ${patch.base} -> ${cp.id} (${summaryText(outcome.summary)})`),
    );
    return { ok: true, applied: true, patch: patch.id, base: patch.base, target: cp.id, summary: outcome.summary, checkpoint: cp };
  });
}

function summarize(patch: PatchBody): PatchSummary {
  return {
    added: patch.ops.filter((o) => o.op === 'add').map((o) => o.name),
    changed: patch.ops.filter((o) => o.op === 'change').map((o) => o.name),
    removed: patch.ops.filter((o) => o.op === 'remove').map((o) => o.name),
  };
}

function readPatchText(p: CspPaths, id: string): string | undefined {
  return readTextFile(patchFile(p, id));
}

function requireIndex(ctx: Ctx): CspIndex {
  const index = readIndex(ctx);
  if (!index) throw new HeimdallError('not_found', 'no CSP state under .planning/csp: create C0 with `heimdall csp init [defs.csp]`');
  return index;
}

function readC0(ctx: Ctx): Checkpoint {
  const file = checkpointFile(cspPaths(ctx), 'C0');
  const c0 = readCheckpointFile(file);
  if (!c0) throw new HeimdallError('environment', `${file} is missing: C0 is the root of the CSP record and cannot be rebuilt (restore it from git)`);
  return c0;
}

/**
 * Rebuild checkpoint `id` from C0 and the patches, ignoring the stored snapshots. Throws `not_found`
 * for an unknown checkpoint and `environment` when a stored patch is missing or no longer applies.
 */
export function rebuildCheckpoint(ctx: Ctx, id: string, index: CspIndex = requireIndex(ctx)): Checkpoint {
  const p = cspPaths(ctx);
  const n = CHECKPOINT_RE.test(id) ? Number(id.slice(1)) : Number.NaN;
  if (!(n <= index.chain.length)) throw new HeimdallError('not_found', `no checkpoint ${JSON.stringify(id)}: the chain is C0..${index.head}`);
  let cp = readC0(ctx);
  for (const entry of index.chain.slice(0, n)) {
    const text = readPatchText(p, entry.patch);
    if (text === undefined) throw new HeimdallError('environment', `${patchFile(p, entry.patch)} is missing: ${entry.base} -> ${entry.target} cannot be rebuilt (restore it from git)`);
    const parsed = parseCsp(text);
    const doc = parsed.ok ? parsed.message : undefined;
    if (!doc || (doc.kind !== 'message' && doc.kind !== 'body') || doc.body.intent !== 'PATCH') {
      throw new HeimdallError('environment', `${patchFile(p, entry.patch)} is not a PATCH any more${parsed.ok ? '' : ` (line ${parsed.errors[0]?.line}: expected ${parsed.errors[0]?.expected})`}`);
    }
    const out = applyPatch(cp, doc.body as PatchBody, patchLines(doc.kind));
    if (!out.ok) throw new HeimdallError('environment', `${patchFile(p, entry.patch)} no longer applies to ${cp.id}: line ${out.errors[0]?.line}: expected ${out.errors[0]?.expected}`);
    cp = out.checkpoint;
  }
  return cp;
}

/** A checkpoint: its stored snapshot, or rebuilt from C0 and the patches when the snapshot is missing. */
export function readCheckpoint(ctx: Ctx, id: string, index: CspIndex = requireIndex(ctx)): Checkpoint {
  const n = CHECKPOINT_RE.test(id) ? Number(id.slice(1)) : Number.NaN;
  if (!(n <= index.chain.length)) throw new HeimdallError('not_found', `no checkpoint ${JSON.stringify(id)}: the chain is C0..${index.head}`);
  return readCheckpointFile(checkpointFile(cspPaths(ctx), id)) ?? rebuildCheckpoint(ctx, id, index);
}

export interface StateReport {
  head: string;
  /** `C0 -> P1 -> C1 -> ...`, the seed's notation. */
  chain: string;
  index: CspIndex;
}

/** The head and the chain, for `heimdall csp state`. */
export function stateReport(ctx: Ctx): StateReport {
  const index = requireIndex(ctx);
  const chain = ['C0', ...index.chain.flatMap((e) => [e.patch, e.target])].join(' -> ');
  return { head: index.head, chain, index };
}

export interface VerifyReport {
  ok: boolean;
  checked: string[];
  problems: string[];
}

/** Rebuild every checkpoint from C0 and the patches and compare it with its stored snapshot. */
export function verifyState(ctx: Ctx): VerifyReport {
  const index = requireIndex(ctx);
  const p = cspPaths(ctx);
  const checked: string[] = [];
  const problems: string[] = [];
  for (let n = 0; n <= index.chain.length; n++) {
    const id = `C${n}`;
    let rebuilt: Checkpoint;
    try {
      rebuilt = rebuildCheckpoint(ctx, id, index);
    } catch (e) {
      problems.push((e as Error).message);
      break;
    }
    const file = checkpointFile(p, id);
    const stored = readCheckpointFile(file);
    if (!stored) problems.push(`${file} is missing (the rebuild from C0 and the patches stands in for it)`);
    else if (!sameData(stored, rebuilt)) problems.push(`${file} differs from the rebuild from C0 and the patches`);
    checked.push(id);
  }
  return { ok: problems.length === 0, checked, problems };
}
