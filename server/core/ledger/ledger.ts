/**
 * Mechanism 6, the token ledger: one JSON line per message or spawn in ledger.jsonl, v1 baselines
 * in baselines.json; savings.ts computes every figure from them; no percentage is ever hard-coded.
 *
 * Every line says where its number came from: `source: "tokenizer"` (counted here, with the
 * tokenizer named) or `source: "reported"` (given by the caller, e.g. a provider's usage figure).
 */
import type { Ctx } from '../context.js';
import { HeimdallError } from '../errors.js';
import { auditEntry } from '../log/protocolLog.js';
import { appendLines, parseJsonText, readLines } from '../planning/fsx.js';
import { checkName } from '../planning/ids.js';
import { isNonNegInt, readVersionedMap, updateVersionedMap } from '../planning/state.js';
import { isoSeconds } from '../ports.js';
import { ARMS, type Arm, isArm } from './runs.js';

export interface LedgerEntry {
  ts: string;
  role: string;
  kind: string;
  tokens: number;
  msg_id: string;
  source: 'tokenizer' | 'reported';
  /** Set when source is "tokenizer". */
  tokenizer?: string;
  /** Optional run id, so one demo or bench run can be reported on its own. */
  run?: string;
  /** Which arm of its run the line belongs to (runs.ts); absent means a measured (v2) line. */
  arm?: Arm;
  /** The GSD phase and plan a bench line measures. */
  phase?: string;
  plan?: string;
}

export interface LogInput {
  role: string;
  kind: string;
  msgId: string;
  tokens?: number;
  /** Counted with the tokenizer when `tokens` is absent. */
  text?: string;
  run?: string;
  arm?: Arm;
  phase?: string;
  plan?: string;
}

export function logTokens(ctx: Ctx, input: LogInput): LedgerEntry {
  const entry = ledgerEntry(ctx, input);
  // A torn line is set aside (not terminated) so ledger.jsonl stays one JSON object per line.
  appendLines(ctx.paths.ledger, [JSON.stringify(entry)], { torn: 'set-aside', audit: auditEntry(ctx, 'ledger', 'log', `${entry.role}/${entry.kind}=${entry.tokens}`) });
  return entry;
}

/**
 * Log many lines at once (a bench run): one locked append of all lines and one protocol.log line,
 * instead of one of each per line.
 */
export function logTokensBatch(ctx: Ctx, inputs: LogInput[], summary: string): LedgerEntry[] {
  const entries = inputs.map((i) => ledgerEntry(ctx, i));
  if (entries.length === 0) return entries;
  appendLines(
    ctx.paths.ledger,
    entries.map((e) => JSON.stringify(e)),
    { torn: 'set-aside', audit: auditEntry(ctx, 'ledger', 'log', `${entries.length} lines: ${summary}`) },
  );
  return entries;
}

function ledgerEntry(ctx: Ctx, input: LogInput): LedgerEntry {
  checkName('role', input.role);
  checkName('kind', input.kind);
  checkName('msg', input.msgId);
  if (input.run !== undefined) checkName('run', input.run);
  if (input.arm !== undefined && !isArm(input.arm)) throw new HeimdallError('usage', `--arm must be one of ${ARMS.join(', ')}, got ${JSON.stringify(input.arm)}`);
  if (input.phase !== undefined) checkName('phase', input.phase);
  if (input.plan !== undefined) checkName('plan', input.plan);
  let entry: LedgerEntry;
  if (input.tokens !== undefined) {
    if (!isNonNegInt(input.tokens)) throw new HeimdallError('usage', `--tokens must be a non-negative integer, got ${input.tokens}`);
    entry = { ts: isoSeconds(ctx.clock.now()), role: input.role, kind: input.kind, tokens: input.tokens, msg_id: input.msgId, source: 'reported' };
  } else {
    if (input.text === undefined) throw new HeimdallError('usage', 'give --tokens N, or the text to count on stdin or with --text-file');
    entry = {
      ts: isoSeconds(ctx.clock.now()),
      role: input.role,
      kind: input.kind,
      tokens: ctx.tokenizer.count(input.text),
      msg_id: input.msgId,
      source: 'tokenizer',
      tokenizer: ctx.tokenizer.name,
    };
  }
  if (input.run) entry.run = input.run;
  if (input.arm) entry.arm = input.arm;
  if (input.phase) entry.phase = input.phase;
  if (input.plan) entry.plan = input.plan;
  return entry;
}

export interface LedgerRead {
  entries: LedgerEntry[];
  /** A cut-short last line (a writer died mid-line): reported, not fatal. */
  tornLine?: number;
}

function isEntry(v: unknown): v is LedgerEntry {
  const e = v as LedgerEntry;
  return typeof e === 'object' && e !== null && typeof e.role === 'string' && typeof e.kind === 'string' && isNonNegInt(e.tokens);
}

export function readLedger(ctx: Ctx): LedgerRead {
  const { lines, torn } = readLines(ctx.paths.ledger);
  const entries: LedgerEntry[] = [];
  lines.forEach((line, i) => {
    if (line.trim() === '') return;
    const v = parseJsonText(line, `${ctx.paths.ledger}:${i + 1}`, {
      code: 'environment',
      example: 'one object per line like {"role":"orchestration","kind":"delta_brief","tokens":3300,"msg_id":"b1"}. The file was left untouched.',
    });
    if (!isEntry(v)) {
      throw new HeimdallError('environment', `${ctx.paths.ledger}:${i + 1}: expected "role", "kind" (strings) and "tokens" (a non-negative integer). The file was left untouched.`);
    }
    entries.push(v);
  });
  return torn ? { entries, tornLine: torn.lineNumber } : { entries };
}

const roleKey = (k: string) => checkName('role', k);

export function readBaselines(ctx: Ctx): Record<string, number> {
  return readVersionedMap(ctx.paths.baselines, 'baselines', isNonNegInt, 'non-negative integer token counts', { keyCheck: roleKey });
}

export function setBaseline(ctx: Ctx, role: string, tokens: number): void {
  checkName('role', role);
  if (!isNonNegInt(tokens)) throw new HeimdallError('usage', `--tokens must be a non-negative integer, got ${tokens}`);
  updateVersionedMap(
    ctx.paths.baselines,
    'baselines',
    isNonNegInt,
    'non-negative integer token counts',
    (m) => {
      m[role] = tokens;
    },
    { keyCheck: roleKey, audit: () => auditEntry(ctx, 'ledger', 'baseline', `${role}=${tokens}`) },
  );
}

// Every savings figure (report, delta, Studio) is computed once, in savings.ts.
export { computeDelta, formatPct, report, type Delta, type LedgerReport } from './savings.js';
