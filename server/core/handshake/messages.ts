/**
 * The three handshake messages (protocol_version 2.0): SESSION_ANNOUNCE, TASK_DISPATCH and
 * TASK_RESULT. Each has one draft-07 schema file in ./schemas, compiled with the same
 * `compileValidator` as every other message; the schema is the contract, and the checks here only
 * add what JSON Schema cannot say (a deadline that is a real instant, an output_schema that compiles).
 * Validators return `{valid, errors}` and never throw on bad input.
 */
import { type ValidationError, type ValidationResult, type Validator, compileValidator } from '../messages/ajv.js';
import announceSchema from './schemas/session-announce.schema.json';
import dispatchSchema from './schemas/task-dispatch.schema.json';
import resultSchema from './schemas/task-result.schema.json';
import { isHeimdallError } from '../errors.js';
import { checkJsonDepth } from '../planning/fsx.js';

/** The version this build speaks. Majors must match; minors are compatible (must-ignore). */
export const HANDSHAKE_VERSION = '2.0';

export const SESSION_ANNOUNCE_SCHEMA: object = announceSchema;
export const TASK_DISPATCH_SCHEMA: object = dispatchSchema;
export const TASK_RESULT_SCHEMA: object = resultSchema;

export type McpHealth = Record<string, string>;

export interface SessionAnnounce {
  type: 'SESSION_ANNOUNCE';
  protocol_version: string;
  worker: { agent_id: string; model: string; model_tier: string; context_window: number };
  capabilities: { tools: string[]; mcp_servers: string[] };
  mcp_health: McpHealth;
  session: { context_id?: string; active_tasks: number; repo_state: { branch?: string; clean: boolean }; session_fresh?: boolean };
}

export type Priority = 'low' | 'normal' | 'high' | 'urgent';
export type ReplySchema = 'prose' | 'structured' | 'json';

export interface TaskDispatch {
  type: 'TASK_DISPATCH';
  protocol_version: string;
  from?: string;
  task: { task_id: string; priority: Priority; reply_schema: ReplySchema; token_budget: number; mode?: 'read' | 'write'; output_schema?: object };
  requirements?: { required_mcp?: string[]; required_capabilities?: string[] };
  deadline?: string;
  brief: string;
}

export type ResultStatus = 'done' | 'blocked' | 'error' | 'partial';

export interface TaskResult {
  type: 'TASK_RESULT';
  protocol_version: string;
  task_id: string;
  agent_id?: string;
  status: ResultStatus;
  tokens_spent: number;
  next_steps?: string[];
  blocked_reason?: string | null;
  error_summary?: string;
  remaining?: string[];
  summary?: string;
  artifacts?: { pr?: string; files_changed?: string[]; [k: string]: unknown };
  output?: unknown;
}

const vAnnounce = compileValidator(announceSchema);
const vDispatch = compileValidator(dispatchSchema);
const vResult = compileValidator(resultSchema);

function notObject(what: string): ValidationResult {
  return { valid: false, errors: [{ path: '/', message: `must be a JSON object (a ${what} message)` }] };
}

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function validateAnnounce(m: unknown): ValidationResult {
  if (!isObj(m)) return notObject('SESSION_ANNOUNCE');
  const r = vAnnounce(m);
  if (!r.valid) return r;
  const errors: ValidationError[] = [];
  const a = m as unknown as SessionAnnounce;
  for (const name of Object.keys(a.mcp_health)) {
    if (!a.capabilities.mcp_servers.includes(name)) errors.push({ path: `/mcp_health/${name}`, message: `reports a server that capabilities.mcp_servers does not list (${a.capabilities.mcp_servers.join(', ') || 'none'})` });
  }
  return { valid: errors.length === 0, errors };
}

export function validateDispatch(m: unknown): ValidationResult {
  if (!isObj(m)) return notObject('TASK_DISPATCH');
  const r = vDispatch(m);
  if (!r.valid) return r;
  const d = m as unknown as TaskDispatch;
  const errors: ValidationError[] = [];
  if (d.deadline !== undefined && !Number.isFinite(Date.parse(d.deadline))) {
    errors.push({ path: '/deadline', message: 'must be a real ISO-8601 instant, e.g. 2026-05-31T21:00:00Z' });
  }
  if (d.task.output_schema !== undefined) {
    if (d.task.reply_schema !== 'json') errors.push({ path: '/task/output_schema', message: 'is only meaningful with reply_schema "json"' });
    else {
      try {
        compileOutputSchema(d.task.output_schema)({});
      } catch (e) {
        errors.push({ path: '/task/output_schema', message: `is not a usable JSON Schema: ${(e as Error).message}` });
      }
    }
  }
  return { valid: errors.length === 0, errors };
}

/**
 * Compile a dispatch's output_schema. Its top-level `$id` is dropped: ajv refuses a second schema
 * with the same id, and every dispatch parses its own copy.
 */
export function compileOutputSchema(schema: object): Validator {
  const { $id: _ignored, ...rest } = schema as Record<string, unknown>;
  return compileValidator(rest);
}

export function validateResult(m: unknown): ValidationResult {
  if (!isObj(m)) return notObject('TASK_RESULT');
  return vResult(m);
}

export type HandshakeMessage = SessionAnnounce | TaskDispatch | TaskResult;

/** Parse JSON text and validate it as the expected type; never throws. */
export function parseHandshake<T extends HandshakeMessage>(
  text: string,
  expected: T['type'],
): { valid: true; message: T; errors: [] } | { valid: false; errors: ValidationError[] } {
  let v: unknown;
  try {
    checkJsonDepth(text, `the ${expected}`);
    v = JSON.parse(text);
  } catch (e) {
    return { valid: false, errors: [{ path: '/', message: isHeimdallError(e) ? e.message : `not valid JSON: ${(e as Error).message}` }] };
  }
  const check = expected === 'SESSION_ANNOUNCE' ? validateAnnounce : expected === 'TASK_DISPATCH' ? validateDispatch : validateResult;
  const r = check(v);
  return r.valid ? { valid: true, message: v as T, errors: [] } : { valid: false, errors: r.errors };
}

/** The major number of "2.0" (NaN when malformed). */
export function majorVersion(v: string): number {
  const m = /^(\d+)\.\d+$/.exec(v);
  return m ? Number(m[1]) : Number.NaN;
}

export function formatErrors(errors: ValidationError[]): string {
  return errors.map((e) => `${e.path} ${e.message}`).join('; ');
}
