/**
 * Conversion between CSP/1 messages and the typed JSON messages, both ways:
 *
 *   CSP TASK   <-> task_claim (message-schema.json)   and  TASK_DISPATCH (handshake, seed 003)
 *   CSP RESULT <-> task_result                        and  TASK_RESULT   (handshake, seed 003)
 *   CSP ERROR  <-> escalation
 *   CSP QUERY  <-> question
 *
 * Where fields map they are carried over; every field that has no counterpart is listed in
 * `unmapped` with its value and the reason, never dropped silently. Values the converter had to make
 * up (a message id, a severity, a constant) are listed in `derived`. The field table is in README.md.
 *
 * TASK_DISPATCH / TASK_RESULT (seed 003, protocol_version "2.0") are checked with the handshake
 * module's own validators (server/core/handshake/messages.ts), in both directions. Their schemas
 * require fields CSP does not carry (token_budget, reply_schema, tokens_spent): the caller supplies
 * them as options, and they are listed in `derived`.
 */
import { createHash } from 'node:crypto';
import { validateDispatch, validateResult } from '../handshake/messages.js';
import { validateMessage } from '../messages/validate.js';
import { formatCsp } from './format.js';
import { ID_RE, ID_RULE, LIST_ITEM_RE } from './lexer.js';
import { parseCsp } from './parse.js';
import type { CspBody, CspDocument, CspError, CspMessage, ErrorBody, Priority, QueryBody, ResultBody, ResultStatus, TaskBody } from './types.js';
import { isHeimdallError } from '../errors.js';
import { checkJsonDepth } from '../planning/fsx.js';

export interface MappingNote {
  /** A CSP line keyword (CSP -> JSON) or a JSON pointer (JSON -> CSP). */
  field: string;
  value: unknown;
  reason: string;
}

export const JSON_TARGETS = ['task_claim', 'TASK_DISPATCH', 'task_result', 'TASK_RESULT', 'escalation', 'question'] as const;
export type JsonTarget = (typeof JSON_TARGETS)[number];

/** Which targets each CSP intent converts to; the first is the default. */
export const TARGETS_BY_INTENT: Partial<Record<CspBody['intent'], JsonTarget[]>> = {
  TASK: ['task_claim', 'TASK_DISPATCH'],
  RESULT: ['task_result', 'TASK_RESULT'],
  ERROR: ['escalation'],
  QUERY: ['question'],
};

export const HANDSHAKE_PROTOCOL_VERSION = '2.0';

/** CSP PRIORITY <-> TASK_DISPATCH task.priority (low|normal|high|urgent; urgent has no CSP level above P1). */
export const PRIORITY_TO_DISPATCH: Record<Priority, string> = { P1: 'high', P2: 'normal', P3: 'low' };
const DISPATCH_TO_PRIORITY: Record<string, Priority> = { high: 'P1', normal: 'P2', low: 'P3' };
/** The handshake schemas' agent-id pattern (TASK_DISPATCH.from, TASK_RESULT.agent_id). */
const HANDSHAKE_AGENT_RE = /^[A-Za-z0-9][A-Za-z0-9_.@-]{0,99}$/;

export const STATUS_TO_TASK_RESULT_SCHEMA: Record<ResultStatus, 'pass' | 'partial' | 'fail'> = { OK: 'pass', PARTIAL: 'partial', FAIL: 'fail' };
export const STATUS_TO_HANDSHAKE: Record<ResultStatus, 'done' | 'partial' | 'error'> = { OK: 'done', PARTIAL: 'partial', FAIL: 'error' };

export type ToJsonResult =
  | { ok: true; target: JsonTarget; message: Record<string, unknown>; unmapped: MappingNote[]; derived: MappingNote[] }
  | { ok: false; errors: CspError[] };

export type FromJsonResult = { ok: true; text: string; message: CspMessage; unmapped: MappingNote[]; derived: MappingNote[] } | { ok: false; errors: CspError[] };

export interface ToJsonOptions {
  /** Which typed message to produce (default: the first of TARGETS_BY_INTENT for the intent). */
  target?: JsonTarget;
  /** msg_id for task_claim / task_result (default: derived from the CSP text's hash). */
  msgId?: string;
  /** escalation severity (default "blocker": a CSP ERROR reports work that could not be done). */
  severity?: 'blocker' | 'warning' | 'info';
  /** TASK_DISPATCH task.token_budget (required by the handshake schema; CSP has no budget). */
  tokenBudget?: number;
  /** TASK_DISPATCH task.reply_schema (default "structured": a CSP reply is a RESULT block). */
  replySchema?: 'prose' | 'structured' | 'json';
  /** TASK_RESULT tokens_spent (required by the handshake schema; CSP has no token count). */
  tokensSpent?: number;
  /** TASK_RESULT remaining (required for a partial result; CSP has no remaining-work field). */
  remaining?: string[];
}

export interface FromJsonOptions {
  /** Header values the JSON does not carry: typed messages name no recipient and no state. */
  from?: string;
  to?: string;
  ctx?: string;
}

function fail(expected: string, got: string, example: string, line = 0): { ok: false; errors: CspError[] } {
  return { ok: false, errors: [{ line, expected, got, example }] };
}

function note(field: string, value: unknown, reason: string): MappingNote {
  return { field, value, reason };
}

const NO_HEADER = (target: string) => `${target} has no field for it`;

function derivedMsgId(doc: CspMessage): string {
  return `csp-${createHash('sha256').update(formatCsp(doc)).digest('hex').slice(0, 16)}`;
}

function taskToJson(m: CspMessage, b: TaskBody, target: JsonTarget, opts: ToJsonOptions): ToJsonResult {
  const unmapped: MappingNote[] = [];
  const derived: MappingNote[] = [];
  if (target === 'task_claim') {
    const msgId = opts.msgId ?? derivedMsgId(m);
    if (!opts.msgId) derived.push(note('/msg_id', msgId, 'CSP messages carry no message id: derived from the hash of the CSP text'));
    const out: Record<string, unknown> = { type: 'task_claim', from: m.from, msg_id: msgId, task: b.id };
    if (b.in) out.symbols = [...b.in];
    unmapped.push(note('TO', m.to, `${NO_HEADER('task_claim')} (a claim is not addressed)`));
    unmapped.push(note('CTX', m.ctx, NO_HEADER('task_claim')));
    if (b.req !== undefined) unmapped.push(note('REQ', b.req, 'task_claim references the task by id and carries no requirement text'));
    if (b.out !== undefined) unmapped.push(note('OUT', b.out, NO_HEADER('task_claim')));
    if (b.owner !== undefined) unmapped.push(note('OWNER', b.owner, 'task_claim has no owner field (the claimer is `from`)'));
    if (b.priority !== undefined) unmapped.push(note('PRIORITY', b.priority, NO_HEADER('task_claim')));
    return checked(target, out, unmapped, derived);
  }
  if (b.req === undefined) return fail('a REQ line: TASK_DISPATCH requires a brief, and REQ is the brief', `TASK ${b.id} without REQ`, 'REQ find auth middleware');
  if (opts.tokenBudget === undefined) {
    return fail('a token budget: TASK_DISPATCH requires task.token_budget, which CSP does not carry (pass --token-budget N)', 'no --token-budget', '--token-budget 4000');
  }
  const task: Record<string, unknown> = {
    task_id: b.id,
    priority: b.priority !== undefined ? PRIORITY_TO_DISPATCH[b.priority] : 'normal',
    reply_schema: opts.replySchema ?? 'structured',
    token_budget: opts.tokenBudget,
  };
  const out: Record<string, unknown> = { type: 'TASK_DISPATCH', protocol_version: HANDSHAKE_PROTOCOL_VERSION };
  if (HANDSHAKE_AGENT_RE.test(m.from)) out.from = m.from;
  else unmapped.push(note('FROM', m.from, 'TASK_DISPATCH from allows letters, digits and _ . @ - only'));
  out.task = task;
  out.brief = b.req;
  derived.push(note('/protocol_version', HANDSHAKE_PROTOCOL_VERSION, 'constant of the handshake protocol'));
  if (b.priority === undefined) derived.push(note('/task/priority', 'normal', 'the TASK has no PRIORITY; the handshake requires one'));
  if (!opts.replySchema) derived.push(note('/task/reply_schema', 'structured', 'CSP replies are RESULT blocks (change with --reply-schema)'));
  derived.push(note('/task/token_budget', opts.tokenBudget, 'from --token-budget'));
  unmapped.push(note('TO', m.to, NO_HEADER('TASK_DISPATCH')));
  unmapped.push(note('CTX', m.ctx, NO_HEADER('TASK_DISPATCH')));
  if (b.in !== undefined) unmapped.push(note('IN', b.in, 'TASK_DISPATCH has no scope field (requirements name MCP servers and capabilities, not files)'));
  if (b.out !== undefined) unmapped.push(note('OUT', b.out, 'TASK_DISPATCH reply_schema is prose|structured|json, not an output type'));
  if (b.owner !== undefined) unmapped.push(note('OWNER', b.owner, NO_HEADER('TASK_DISPATCH')));
  return checked(target, out, unmapped, derived);
}

function resultToJson(m: CspMessage, b: ResultBody, target: JsonTarget, opts: ToJsonOptions): ToJsonResult {
  const unmapped: MappingNote[] = [];
  const derived: MappingNote[] = [];
  if (target === 'task_result') {
    const msgId = opts.msgId ?? derivedMsgId(m);
    if (!opts.msgId) derived.push(note('/msg_id', msgId, 'CSP messages carry no message id: derived from the hash of the CSP text'));
    const out = { type: 'task_result', from: m.from, msg_id: msgId, task: b.id, status: STATUS_TO_TASK_RESULT_SCHEMA[b.status] };
    unmapped.push(note('TO', m.to, NO_HEADER('task_result')));
    unmapped.push(note('CTX', m.ctx, NO_HEADER('task_result')));
    if (b.produced !== undefined) unmapped.push(note('PRODUCED', b.produced, 'task_result names one capsule and one commit, not a list of produced ids/files'));
    if (b.data !== undefined) unmapped.push(note('DATA', b.data, 'task_result carries no content (messages reference artifacts by id)'));
    return checked(target, out, unmapped, derived);
  }
  if (opts.tokensSpent === undefined) {
    return fail('a token count: TASK_RESULT requires tokens_spent, which CSP does not carry (pass --tokens-spent N)', 'no --tokens-spent', '--tokens-spent 3240');
  }
  const out: Record<string, unknown> = { type: 'TASK_RESULT', protocol_version: HANDSHAKE_PROTOCOL_VERSION, task_id: b.id };
  if (HANDSHAKE_AGENT_RE.test(m.from)) out.agent_id = m.from;
  else unmapped.push(note('FROM', m.from, 'TASK_RESULT agent_id allows letters, digits and _ . @ - only'));
  out.status = STATUS_TO_HANDSHAKE[b.status];
  out.tokens_spent = opts.tokensSpent;
  // DATA is the result's text: the error summary of a FAIL (the schema requires one), else the summary.
  if (b.status === 'FAIL') {
    if (b.data === undefined || b.data === '') return fail('DATA in a FAIL RESULT: it becomes TASK_RESULT error_summary, which the schema requires for status "error"', `RESULT ${b.id} without DATA`, 'DATA token refresh test fails on expiry edge');
    out.error_summary = b.data;
  } else if (b.data !== undefined) out.summary = b.data;
  if (b.status === 'PARTIAL') {
    if (!opts.remaining?.length) return fail('what remains: a partial TASK_RESULT requires remaining, which CSP does not carry (pass --remaining TEXT)', 'no --remaining', '--remaining "update the callers in src/api"');
    out.remaining = [...opts.remaining];
    derived.push(note('/remaining', opts.remaining, 'from --remaining'));
  }
  if (b.produced !== undefined) out.artifacts = { files_changed: [...b.produced] };
  derived.push(note('/protocol_version', HANDSHAKE_PROTOCOL_VERSION, 'constant of the handshake protocol'));
  derived.push(note('/tokens_spent', opts.tokensSpent, 'from --tokens-spent'));
  unmapped.push(note('TO', m.to, NO_HEADER('TASK_RESULT')));
  unmapped.push(note('CTX', m.ctx, NO_HEADER('TASK_RESULT')));
  return checked(target, out, unmapped, derived);
}

function errorToJson(m: CspMessage, b: ErrorBody, opts: ToJsonOptions): ToJsonResult {
  const severity = opts.severity ?? 'blocker';
  const out: Record<string, unknown> = { type: 'escalation', from: m.from, msg_id: b.id, reason: b.cause, severity };
  if (b.at !== undefined) out.refs = [b.at];
  const derived = opts.severity ? [] : [note('/severity', severity, 'CSP ERROR has no severity: an error reports work that could not be done, so "blocker" (change with --severity)')];
  const unmapped = [note('TO', m.to, NO_HEADER('escalation')), note('CTX', m.ctx, NO_HEADER('escalation'))];
  if (b.next !== undefined) unmapped.push(note('NEXT', b.next, 'escalation has no suggested-action field'));
  return checked('escalation', out, unmapped, derived);
}

function queryToJson(m: CspMessage, b: QueryBody): ToJsonResult {
  const out: Record<string, unknown> = { type: 'question', from: m.from, msg_id: b.id, question: b.ask };
  if (b.about !== undefined) out.refs = [...b.about];
  return checked('question', out, [note('TO', m.to, NO_HEADER('question')), note('CTX', m.ctx, NO_HEADER('question'))], []);
}

/** Validate what was produced: schema messages with ajv, handshake messages with the shape check. */
function checked(target: JsonTarget, out: Record<string, unknown>, unmapped: MappingNote[], derived: MappingNote[]): ToJsonResult {
  const r = target === 'TASK_DISPATCH' ? validateDispatch(out) : target === 'TASK_RESULT' ? validateResult(out) : validateMessage(out);
  if (!r.valid) {
    return {
      ok: false,
      errors: r.errors.map((e) => ({
        line: 0,
        expected: `a ${target} message valid against its schema: ${e.path} ${e.message}`,
        got: JSON.stringify(out).slice(0, 160),
        example: JSON_EXAMPLE[target] as string,
      })),
    };
  }
  return { ok: true, target, message: out, unmapped, derived };
}

/**
 * Convert a CSP message (text or parsed) to a typed JSON message. Only full messages convert (the
 * header carries the sender). Never throws.
 */
export function cspToJson(input: string | CspDocument, opts: ToJsonOptions = {}): ToJsonResult {
  let doc: CspDocument;
  if (typeof input === 'string') {
    const r = parseCsp(input);
    if (!r.ok) return r;
    doc = r.message;
  } else doc = input;
  if (doc.kind !== 'message') return fail('a CSP message (CSP/1 header, FROM, TO, CTX, INTENT, body)', `a ${doc.kind} document`, 'CSP/1\nFROM MAIN\nTO CODE_EXP\nCTX C0\nINTENT TASK\n\nTASK T001', 1);
  const targets = TARGETS_BY_INTENT[doc.body.intent];
  if (!targets) {
    return fail(
      `a TASK, RESULT, ERROR or QUERY message (INTENT ${doc.body.intent} has no typed JSON counterpart)`,
      `INTENT ${doc.body.intent}`,
      'INTENT TASK',
      5,
    );
  }
  const target = opts.target ?? (targets[0] as JsonTarget);
  if (!targets.includes(target)) return fail(`a target for INTENT ${doc.body.intent}: ${targets.join(' or ')}`, target, `--target ${targets[0]}`);
  const b = doc.body;
  switch (b.intent) {
    case 'TASK':
      return taskToJson(doc, b, target, opts);
    case 'RESULT':
      return resultToJson(doc, b, target, opts);
    case 'ERROR':
      return errorToJson(doc, b, opts);
    case 'QUERY':
      return queryToJson(doc, b);
    default:
      return fail('a TASK, RESULT, ERROR or QUERY message', `INTENT ${b.intent}`, 'INTENT TASK', 5);
  }
}

// ---------------------------------------------------------------------------------------------
// JSON -> CSP

type Json = Record<string, unknown>;

function isObj(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Every leaf of a JSON object as pointer -> value (arrays are leaves: they map or not as a whole). */
function leaves(v: unknown, prefix = ''): Map<string, unknown> {
  const out = new Map<string, unknown>();
  if (isObj(v)) {
    for (const [k, x] of Object.entries(v)) for (const [p, y] of leaves(x, `${prefix}/${k}`)) out.set(p, y);
  } else out.set(prefix, v);
  return out;
}

const ONE_LINE_TEXT = /^\S(?:[^\n\r]*\S)?$/;

const JSON_EXAMPLE: Record<string, string> = {
  task_claim: '{"type":"task_claim","from":"CODE_EXP","msg_id":"m1","task":"T001","symbols":["SRC","LIB"]}',
  task_result: '{"type":"task_result","from":"CODE_EXP","msg_id":"m2","task":"T001","status":"pass"}',
  escalation: '{"type":"escalation","from":"CODE_EXP","msg_id":"E001","reason":"no matches found","severity":"blocker","refs":["T001"]}',
  question: '{"type":"question","from":"CODER","msg_id":"Q001","question":"which module owns token refresh?"}',
  TASK_DISPATCH: '{"type":"TASK_DISPATCH","protocol_version":"2.0","task":{"task_id":"abc-123","priority":"high","reply_schema":"structured","token_budget":4000},"brief":"Refactor the auth module"}',
  TASK_RESULT: '{"type":"TASK_RESULT","protocol_version":"2.0","task_id":"abc-123","status":"done","tokens_spent":3240,"artifacts":{"files_changed":["src/auth.py"]}}',
};

/** Tracks which JSON leaves were used; the rest become `unmapped`. */
class Consumer {
  readonly all: Map<string, unknown>;
  readonly used = new Set<string>();
  readonly reasons = new Map<string, string>();
  constructor(json: Json) {
    this.all = leaves(json);
  }
  use(...paths: string[]): void {
    for (const p of paths) this.used.add(p);
  }
  why(path: string, reason: string): void {
    this.reasons.set(path, reason);
  }
  rest(target = 'CSP'): MappingNote[] {
    const out: MappingNote[] = [];
    for (const [p, v] of this.all) {
      if (this.used.has(p) || v === null || v === undefined) continue;
      out.push(note(p, v, this.reasons.get(p) ?? `${target} has no field for it`));
    }
    return out;
  }
}

/**
 * Convert a typed JSON message (task_claim, task_result, escalation, question, TASK_DISPATCH,
 * TASK_RESULT) to a CSP message. The header values JSON lacks come from `opts` (and are listed in
 * `derived`); a value CSP cannot hold on its line is listed in `unmapped` or, for a required line,
 * refused. Never throws.
 */
export function jsonToCsp(input: unknown, opts: FromJsonOptions = {}): FromJsonResult {
  let json: unknown = input;
  if (typeof input === 'string') {
    try {
      checkJsonDepth(input, 'the JSON input');
      json = JSON.parse(input);
    } catch (e) {
      return fail('a JSON object (one typed message)', isHeimdallError(e) ? e.message : `text that is not JSON: ${(e as Error).message}`, JSON_EXAMPLE.task_claim as string);
    }
  }
  if (!isObj(json)) return fail('a JSON object (one typed message)', JSON.stringify(json)?.slice(0, 80) ?? String(json), JSON_EXAMPLE.task_claim as string);
  const type = json.type;
  const handshake = type === 'TASK_DISPATCH' || type === 'TASK_RESULT';
  if (!handshake && !['task_claim', 'task_result', 'escalation', 'question'].includes(type as string)) {
    return fail(
      'a message of type task_claim, task_result, escalation, question, TASK_DISPATCH or TASK_RESULT (the ones with a CSP counterpart)',
      `/type ${JSON.stringify(type)}`,
      JSON_EXAMPLE.task_claim as string,
    );
  }
  const v = type === 'TASK_DISPATCH' ? validateDispatch(json) : type === 'TASK_RESULT' ? validateResult(json) : validateMessage(json);
  if (!v.valid) {
    return { ok: false, errors: v.errors.map((e) => ({ line: 0, expected: `a valid ${String(type)} message: ${e.path} ${e.message}`, got: JSON.stringify(json).slice(0, 160), example: JSON_EXAMPLE[type as string] as string })) };
  }
  const c = new Consumer(json);
  c.use('/type');
  const derived: MappingNote[] = [];
  const errors: CspError[] = [];
  const header = (key: 'FROM' | 'TO' | 'CTX', fromJson: unknown, opt: string | undefined, flag: string, what: string): string | undefined => {
    const value = typeof fromJson === 'string' ? fromJson : opt;
    if (value === undefined) {
      errors.push({ line: 0, expected: `${key} for the CSP header: ${String(type)} does not carry ${what}, so pass ${flag} <id>`, got: 'nothing', example: `${flag} ${key === 'CTX' ? 'C0' : key === 'TO' ? 'MAIN' : 'CODE_EXP'}` });
      return undefined;
    }
    if (!ID_RE.test(value)) {
      errors.push({ line: 0, expected: `${key} as ${ID_RULE}`, got: JSON.stringify(value), example: `${flag} ${key === 'CTX' ? 'C0' : 'MAIN'}` });
      return undefined;
    }
    if (typeof fromJson !== 'string') derived.push(note(key, value, `not in ${String(type)}: taken from ${flag}`));
    return value;
  };
  // The sender: `from` in the typed messages and TASK_DISPATCH, `agent_id` in TASK_RESULT.
  const senderKey = type === 'TASK_RESULT' ? 'agent_id' : 'from';
  const from = header('FROM', json[senderKey], opts.from, '--from', 'a sender');
  if (typeof json[senderKey] === 'string') c.use(`/${senderKey}`);
  const to = header('TO', undefined, opts.to, '--to', 'a recipient');
  const ctx = header('CTX', undefined, opts.ctx, '--ctx', 'a state reference');

  const idOf = (path: string, value: unknown, line: string): string | undefined => {
    if (typeof value === 'string' && ID_RE.test(value)) {
      c.use(path);
      return value;
    }
    errors.push({ line: 0, expected: `${path} usable as the CSP ${line} id: ${ID_RULE}`, got: JSON.stringify(value), example: `${line} T001` });
    return undefined;
  };
  const textOf = (path: string, value: unknown, line: string): string | undefined => {
    if (typeof value === 'string' && ONE_LINE_TEXT.test(value)) {
      c.use(path);
      return value;
    }
    c.why(path, `CSP ${line} holds one line of text without leading or trailing spaces`);
    return undefined;
  };
  const listOf = (path: string, value: unknown, line: string): string[] | undefined => {
    if (Array.isArray(value) && value.length > 0 && value.every((x) => typeof x === 'string' && LIST_ITEM_RE.test(x))) {
      c.use(path);
      return value as string[];
    }
    if (Array.isArray(value) && value.length === 0) c.use(path); // an empty list says nothing
    else c.why(path, `CSP ${line} holds a comma-separated list of items without spaces or commas`);
    return undefined;
  };

  let body: CspBody | undefined;
  switch (type) {
    case 'task_claim': {
      c.why('/msg_id', 'CSP messages carry no message id');
      c.why('/ts', 'CSP messages carry no send time');
      c.why('/capsules', 'CSP TASK has no capsule list (IN carries the symbols)');
      const id = idOf('/task', json.task, 'TASK');
      const inList = listOf('/symbols', json.symbols, 'IN');
      if (id !== undefined) body = { intent: 'TASK', id, ...(inList ? { in: inList } : {}) };
      break;
    }
    case 'TASK_DISPATCH': {
      c.use('/protocol_version');
      const task = json.task as Json;
      const id = idOf('/task/task_id', task.task_id, 'TASK');
      const req = json.brief !== undefined ? textOf('/brief', json.brief, 'REQ') : undefined;
      let priority: Priority | undefined;
      if (typeof task.priority === 'string') {
        priority = Object.hasOwn(DISPATCH_TO_PRIORITY, task.priority) ? DISPATCH_TO_PRIORITY[task.priority] : undefined;
        if (priority) c.use('/task/priority');
        else c.why('/task/priority', task.priority === 'urgent' ? 'CSP PRIORITY has no level above P1 (high)' : 'CSP PRIORITY is P1|P2|P3, mapped from high|normal|low only');
      }
      c.why('/task/reply_schema', 'CSP TASK has no reply-format field (OUT is an output type, not prose|structured|json)');
      c.why('/task/token_budget', 'CSP TASK has no budget field');
      c.why('/deadline', 'CSP TASK has no deadline field');
      c.why('/requirements/required_mcp', 'CSP TASK has no MCP-server requirement field');
      c.why('/requirements/required_capabilities', 'CSP TASK has no capability requirement field');
      c.why('/task/mode', 'CSP TASK has no read/write mode field');
      c.why('/task/output_schema', 'CSP TASK has no output schema field');
      if (id !== undefined) body = { intent: 'TASK', id, ...(req !== undefined ? { req } : {}), ...(priority ? { priority } : {}) };
      break;
    }
    case 'task_result': {
      c.why('/msg_id', 'CSP messages carry no message id');
      c.why('/ts', 'CSP messages carry no send time');
      c.why('/criteria', 'CSP RESULT has no acceptance-criteria field');
      c.why('/commit', 'CSP RESULT has no commit field (PRODUCED would not say which item is the commit)');
      c.why('/capsule', 'CSP RESULT has no capsule field (PRODUCED would not say which item is the capsule)');
      const id = idOf('/task', json.task, 'RESULT');
      const status = ({ pass: 'OK', partial: 'PARTIAL', fail: 'FAIL' } as const)[json.status as 'pass' | 'partial' | 'fail'];
      c.use('/status');
      if (id !== undefined) body = { intent: 'RESULT', id, status };
      break;
    }
    case 'TASK_RESULT': {
      c.use('/protocol_version');
      const id = idOf('/task_id', json.task_id, 'RESULT');
      const st = json.status as 'done' | 'blocked' | 'error' | 'partial';
      const status: ResultStatus = st === 'done' ? 'OK' : st === 'partial' ? 'PARTIAL' : 'FAIL';
      if (st === 'blocked') c.why('/status', 'CSP STATUS has no BLOCKED: written as FAIL (send a CSP ERROR with AT and CAUSE to keep the reason)');
      else c.use('/status');
      c.why('/blocked_reason', 'CSP RESULT has no reason field');
      c.why('/tokens_spent', 'CSP RESULT has no token-count field');
      c.why('/next_steps', 'CSP RESULT has no next-steps field');
      c.why('/artifacts/pr', 'CSP RESULT has no pull-request field');
      c.why('/remaining', 'CSP RESULT has no remaining-work field');
      c.why('/output', 'CSP RESULT carries DATA as text (mapped from summary), not structured output');
      const produced = isObj(json.artifacts) ? listOf('/artifacts/files_changed', json.artifacts.files_changed, 'PRODUCED') : undefined;
      // DATA is the result's text (a <<< >>> block when it is not one line): the error summary of an
      // error, else the summary; the other one, if both are given, is reported.
      const textKey = st === 'error' ? 'error_summary' : 'summary';
      const data = typeof json[textKey] === 'string' ? (json[textKey] as string) : undefined;
      if (data !== undefined) c.use(`/${textKey}`);
      c.why(st === 'error' ? '/summary' : '/error_summary', `CSP RESULT has one DATA, which carries ${textKey} here`);
      if (id !== undefined) body = { intent: 'RESULT', id, status, ...(produced ? { produced } : {}), ...(data !== undefined ? { data } : {}) };
      break;
    }
    case 'escalation': {
      c.why('/ts', 'CSP messages carry no send time');
      c.why('/severity', 'CSP ERROR has no severity');
      const id = idOf('/msg_id', json.msg_id, 'ERROR');
      const cause = textOf('/reason', json.reason, 'CAUSE');
      if (cause === undefined) errors.push({ line: 0, expected: '/reason as one line of text for CAUSE (CAUSE is required)', got: JSON.stringify(json.reason).slice(0, 120), example: '"reason": "no matches found in SRC,LIB"' });
      const refs = Array.isArray(json.refs) ? (json.refs as string[]) : [];
      let at: string | undefined;
      if (refs.length === 1 && ID_RE.test(refs[0] as string)) {
        at = refs[0];
        c.use('/refs');
      } else if (refs.length === 0) c.use('/refs');
      else c.why('/refs', 'CSP ERROR has one AT reference: only a single id maps');
      if (id !== undefined && cause !== undefined) body = { intent: 'ERROR', id, ...(at ? { at } : {}), cause };
      break;
    }
    case 'question': {
      c.why('/ts', 'CSP messages carry no send time');
      const id = idOf('/msg_id', json.msg_id, 'QUERY');
      const ask = textOf('/question', json.question, 'ASK');
      if (ask === undefined) errors.push({ line: 0, expected: '/question as one line of text for ASK (ASK is required)', got: JSON.stringify(json.question).slice(0, 120), example: '"question": "which module owns token refresh?"' });
      const about = json.refs !== undefined ? listOf('/refs', json.refs, 'ABOUT') : undefined;
      if (id !== undefined && ask !== undefined) body = { intent: 'QUERY', id, ask, ...(about ? { about } : {}) };
      break;
    }
    default:
      break;
  }
  if (errors.length > 0 || !body || from === undefined || to === undefined || ctx === undefined) {
    return { ok: false, errors: errors.length > 0 ? errors : [{ line: 0, expected: 'a convertible message', got: JSON.stringify(json).slice(0, 160), example: JSON_EXAMPLE[type as string] as string }] };
  }
  const message: CspMessage = { kind: 'message', from, to, ctx, body };
  return { ok: true, text: formatCsp(message), message, unmapped: c.rest(), derived };
}
