/**
 * CSP/1 (Compact State Protocol) document model. One parsed document is one of four kinds:
 *
 * - `message`: the full form, `CSP/1` / FROM / TO / CTX / INTENT / blank line / body.
 * - `body`: a bare body block (the seed shows PATCH and FILEOP blocks this way); it parses, but the
 *   VALIDATION checklist does not accept it as a message because it has no header.
 * - `context`: DEF groups and LAWS blocks (the project preamble a checkpoint C0 starts from).
 * - `task_tpl`: the compact template for spawning subagents (`CSP/1;!prose;DATA ONLY` ...).
 *
 * The model is plain data (JSON-serialisable), so `heimdall csp parse` prints it and
 * `heimdall csp format` reads it back.
 */

export const CSP_HEADER = 'CSP/1';

export const INTENTS = ['PLAN', 'TASK', 'RESULT', 'ERROR', 'QUERY', 'PATCH', 'FILE', 'MEM'] as const;
export type Intent = (typeof INTENTS)[number];

/** The keyword a body of each intent starts with: FILE bodies are FILEOP blocks. */
export const BODY_KEYWORD: Record<Intent, string> = {
  PLAN: 'PLAN',
  TASK: 'TASK',
  RESULT: 'RESULT',
  ERROR: 'ERROR',
  QUERY: 'QUERY',
  PATCH: 'PATCH',
  FILE: 'FILEOP',
  MEM: 'MEM',
};

export const PRIORITIES = ['P1', 'P2', 'P3'] as const;
export type Priority = (typeof PRIORITIES)[number];

export const RESULT_STATUSES = ['OK', 'PARTIAL', 'FAIL'] as const;
export type ResultStatus = (typeof RESULT_STATUSES)[number];

export const FILE_OPS = ['CREATE', 'WRITE', 'PATCH', 'DELETE', 'MOVE'] as const;
export type FileOpKind = (typeof FILE_OPS)[number];
/** File operations that carry a CONTENT block (the others must not). */
export const FILE_OPS_WITH_CONTENT: readonly FileOpKind[] = ['CREATE', 'WRITE', 'PATCH'];

/** Work order. Only the TASK line is required: after the first TASK, agents refer to it by id. */
export interface TaskBody {
  intent: 'TASK';
  id: string;
  req?: string;
  in?: string[];
  out?: string;
  owner?: string;
  priority?: Priority;
}

/** Response to a TASK. DATA is one line, or a `<<<` `>>>` block when `dataBlock` is set. */
export interface ResultBody {
  intent: 'RESULT';
  id: string;
  status: ResultStatus;
  produced?: string[];
  data?: string;
  /** DATA was written as a content block; `fence` is the block's tag ('' for plain `<<<`/`>>>`). */
  dataBlock?: { fence: string };
}

export interface ErrorBody {
  intent: 'ERROR';
  id: string;
  at?: string;
  cause: string;
  next?: string;
}

export type PatchOp =
  | { op: 'add'; name: string; value: string }
  | { op: 'change'; name: string; value: string }
  | { op: 'remove'; name: string };

/** A delta from checkpoint `base` to checkpoint `target` (always the one after `base`). */
export interface PatchBody {
  intent: 'PATCH';
  id: string;
  base: string;
  ops: PatchOp[];
  target: string;
}

export interface FileOp {
  id: string;
  op: FileOpKind;
  path: string;
  /** MOVE only: the new path. */
  to?: string;
  /** Optional version (hash) of the file the operation was computed against. */
  base?: string;
  /** CREATE, WRITE, PATCH: the exact text between the fences. */
  content?: string;
  /** Tag of the content block's fences ('' for plain `<<<`/`>>>`). */
  fence?: string;
}

/** FILE intent: one or more FILEOP blocks, separated by one blank line. */
export interface FileBody {
  intent: 'FILE';
  ops: FileOp[];
}

export interface PlanStep {
  task: string;
  owner: string;
  after?: string[];
}

export interface PlanBody {
  intent: 'PLAN';
  id: string;
  goal: string;
  steps: PlanStep[];
}

export interface QueryBody {
  intent: 'QUERY';
  id: string;
  ask: string;
  about?: string[];
}

export interface MemNode {
  name: string;
  value: string;
}
export interface MemEdge {
  from: string;
  rel: string;
  to: string;
}

/** A memory-graph update: NODE lines, then EDGE lines; at least one of either. */
export interface MemBody {
  intent: 'MEM';
  id: string;
  nodes: MemNode[];
  edges: MemEdge[];
}

export type CspBody = TaskBody | ResultBody | ErrorBody | PatchBody | FileBody | PlanBody | QueryBody | MemBody;

export interface CspMessage {
  kind: 'message';
  from: string;
  to: string;
  ctx: string;
  body: CspBody;
}

export interface CspBodyDocument {
  kind: 'body';
  body: CspBody;
}

export interface Def {
  name: string;
  value: string;
}
export interface Law {
  /** L1, L2, ... */
  id: string;
  text: string;
}

export type ContextBlock = { kind: 'defs'; defs: Def[] } | { kind: 'laws'; laws: Law[] };

/** DEF groups and LAWS blocks, separated by one blank line. */
export interface CspContext {
  kind: 'context';
  blocks: ContextBlock[];
}

/** `!prose` forbids a kind of output; `DATA ONLY` restricts output to one kind. */
export type TplDirective = { kind: 'not'; term: string } | { kind: 'only'; term: string };

export interface TplResultField {
  name: string;
  /** The bracketed shape hint: DATA[file:line] -> "file:line". */
  shape?: string;
}

export interface CspTaskTemplate {
  kind: 'task_tpl';
  directives: TplDirective[];
  result?: TplResultField[];
  task: { req: string; in: string; out: string };
}

export type CspDocument = CspMessage | CspBodyDocument | CspContext | CspTaskTemplate;
export type CspDocumentKind = CspDocument['kind'];

/**
 * One parse or validation problem, written for a person: where (1-based line; 0 means the problem is
 * in structured input rather than in a CSP line), what was expected, what was there, and a correct
 * example to copy.
 */
export interface CspError {
  line: number;
  expected: string;
  got: string;
  example: string;
}

export type CspParseResult = { ok: true; message: CspDocument } | { ok: false; errors: CspError[] };

/** Render errors one per line, as the CLI prints them. */
export function formatCspErrors(errors: CspError[]): string {
  return errors
    .map((e) => {
      const example = e.example
        .split('\n')
        .map((l, i) => (i === 0 ? l : l === '' ? '' : `       ${l}`))
        .join('\n');
      return `${e.line > 0 ? `line ${e.line}` : 'input'}: expected ${e.expected}; got ${e.got}\n  e.g. ${example}`;
    })
    .join('\n');
}
