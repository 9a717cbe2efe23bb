/**
 * The CSP/1 parser. It reads any CSP document (message, bare body, DEF/LAWS context, task template)
 * and returns a result; it never throws. Every error names the line, what was expected there, what
 * was found, and a correct example (house style: errors a person can act on).
 *
 * Grammar (the seed's, plus small fixed grammars for the bodies the seed leaves open; see README.md):
 *
 *   message  := "CSP/1" NL "FROM " id NL "TO " id NL "CTX " id NL "INTENT " intent NL NL body
 *   body     := task | result | error | patch | file | plan | query | mem
 *   task     := "TASK " id [NL "REQ " text] [NL "IN " list] [NL "OUT " text] [NL "OWNER " id]
 *               [NL "PRIORITY " ("P1"|"P2"|"P3")]
 *   result   := "RESULT " id NL "STATUS " ("OK"|"PARTIAL"|"FAIL") [NL "PRODUCED " list]
 *               [NL ("DATA " text | "DATA" NL block)]
 *   error    := "ERROR " id [NL "AT " id] NL "CAUSE " text [NL "NEXT " text]
 *   patch    := "PATCH " id NL "BASE " checkpoint (NL op)+ NL "APPLY -> " checkpoint
 *   op       := "+ DEF " NAME " = " text | "~ DEF " NAME " := " text | "- DEF " NAME
 *   file     := fileop (NL NL fileop)*
 *   fileop   := "FILEOP " id " " ("CREATE"|"WRITE"|"PATCH"|"DELETE"|"MOVE") NL "PATH " text
 *               [NL "TO " text] [NL "BASE " id] [NL "CONTENT" NL block]
 *   block    := "<<<" tag NL (any line but ">>>" tag)* ">>>" tag
 *   plan     := "PLAN " id NL "GOAL " text (NL "STEP " id " " id [" AFTER " list])+
 *   query    := "QUERY " id NL "ASK " text [NL "ABOUT " list]
 *   mem      := "MEM " id (NL "NODE " NAME " = " text)* (NL "EDGE " NAME " " NAME " " NAME)*
 *   context  := cblock (NL NL cblock)*      cblock := ("DEF " NAME " = " text)+ | "LAWS" (NL "- " law ": " text)+
 *   task_tpl := "CSP/1;" directive (";" directive)* [NL "RESULT{" field ("," field)* "}"]
 *               NL "TASK REQ:" text " IN:" text " OUT:" text
 */
import {
  CHECKPOINT_RE,
  Cursor,
  FENCE_TAG_RE,
  ID_RE,
  ID_RULE,
  LAW_ID_RE,
  type Line,
  NAME_RE,
  NAME_RULE,
  checkpointNumber,
  isList,
  isText,
  shown,
  splitKey,
  toLines,
} from './lexer.js';
import {
  BODY_KEYWORD,
  CSP_HEADER,
  type ContextBlock,
  type CspBody,
  type CspDocument,
  type CspError,
  type CspParseResult,
  type CspTaskTemplate,
  type Def,
  type ErrorBody,
  FILE_OPS,
  FILE_OPS_WITH_CONTENT,
  type FileBody,
  type FileOp,
  type FileOpKind,
  INTENTS,
  type Intent,
  type Law,
  type MemBody,
  type MemEdge,
  type MemNode,
  PRIORITIES,
  type PatchBody,
  type PatchOp,
  type PlanBody,
  type PlanStep,
  type Priority,
  type QueryBody,
  RESULT_STATUSES,
  type ResultBody,
  type ResultStatus,
  type TaskBody,
  type TplDirective,
  type TplResultField,
} from './types.js';

/** A complete, correct body per intent: the example an error shows when a body is out of shape. */
export const BODY_EXAMPLES: Record<Intent, string> = {
  TASK: 'TASK T001\nREQ find auth middleware\nIN SRC,LIB\nOUT FILE_REFS\nOWNER CODE_EXP\nPRIORITY P1',
  RESULT: 'RESULT T001\nSTATUS OK\nPRODUCED FILE_REFS_001\nDATA src/middleware/auth.ts:24-67',
  ERROR: 'ERROR E001\nAT T001\nCAUSE no matches found in SRC,LIB\nNEXT try broader scope',
  PATCH: 'PATCH P1\nBASE C0\n+ DEF NEW_ITEM = value\n~ DEF OLD_ITEM := new_value\n- DEF REMOVED_ITEM\nAPPLY -> C1',
  FILE: 'FILEOP F001 PATCH\nPATH src/file.ts\nBASE hash123\nCONTENT\n<<<\n@@ -100,3 +100,5 @@\n+new_line_here\n>>>',
  PLAN: 'PLAN PL1\nGOAL ship the auth refactor\nSTEP T001 CODE_EXP\nSTEP T002 CODER AFTER T001',
  QUERY: 'QUERY Q001\nASK which module owns token refresh?\nABOUT SRC,AUTH_MW',
  MEM: 'MEM M001\nNODE AUTH_MW = src/middleware/auth.ts:24-67\nEDGE AUTH_MW USES JWT',
};

/** The line order of each body, as error messages state it. */
const BODY_ORDER: Record<Intent, string[]> = {
  TASK: ['TASK', 'REQ', 'IN', 'OUT', 'OWNER', 'PRIORITY'],
  RESULT: ['RESULT', 'STATUS', 'PRODUCED', 'DATA'],
  ERROR: ['ERROR', 'AT', 'CAUSE', 'NEXT'],
  PATCH: ['PATCH', 'BASE', '+', '~', '-', 'APPLY'],
  FILE: ['FILEOP', 'PATH', 'TO', 'BASE', 'CONTENT'],
  PLAN: ['PLAN', 'GOAL', 'STEP'],
  QUERY: ['QUERY', 'ASK', 'ABOUT'],
  MEM: ['MEM', 'NODE', 'EDGE'],
};

// A Map, not an object: a line starting with "constructor" or "__proto__" must not find anything.
const KEYWORD_TO_INTENT = new Map<string, Intent>(INTENTS.map((i) => [BODY_KEYWORD[i], i]));

const MESSAGE_EXAMPLE = 'CSP/1\nFROM MAIN\nTO CODE_EXP\nCTX C0\nINTENT TASK\n\nTASK T001\nREQ find auth middleware';
const CONTEXT_EXAMPLE = 'DEF SRC = src/\nDEF LIB = lib/\n\nLAWS\n- L1: Web search/fetch -> WEB_RES only';
const TPL_EXAMPLE = 'CSP/1;!prose;DATA ONLY\nRESULT{STATUS,DATA[file:line]}\nTASK REQ:<req> IN:<scope> OUT:<type>';

type ValueKind = 'id' | 'text' | 'list' | 'checkpoint' | readonly string[];

function valueOk(kind: ValueKind, v: string): boolean {
  if (Array.isArray(kind)) return kind.includes(v);
  switch (kind) {
    case 'id':
      return ID_RE.test(v);
    case 'text':
      return isText(v);
    case 'list':
      return isList(v);
    case 'checkpoint':
      return CHECKPOINT_RE.test(v);
    default:
      return false;
  }
}

function valueRule(kind: ValueKind): string {
  if (Array.isArray(kind)) return `one of ${kind.join(', ')}`;
  switch (kind) {
    case 'id':
      return ID_RULE;
    case 'text':
      return 'text (not empty, no leading or trailing spaces)';
    case 'list':
      return 'a comma-separated list without spaces (e.g. SRC,LIB)';
    case 'checkpoint':
      return 'a checkpoint id C0, C1, ...';
    default:
      return 'a value';
  }
}

function withCr(got: string, text: string | undefined): string {
  return text !== undefined && text.includes('\r') ? `${got} (it ends in a carriage return: CSP uses LF line endings)` : got;
}

/**
 * Read one `KEY value` line. A missing required line is reported at the current line, which is
 * consumed only when it is not a keyword of this block (so a missing line does not hide the next).
 */
function field(c: Cursor, key: string, kind: ValueKind, example: string, required: boolean, known: readonly string[]): string | undefined {
  const line = c.peek();
  const split = line ? splitKey(line.text) : undefined;
  if (!line || !split || split.key !== key) {
    if (!required) return undefined;
    c.error(c.where(), `the ${key} line: ${key} <${valueRule(kind)}>`, withCr(shown(line?.text), line?.text), example);
    if (line && line.text !== '' && split && !known.includes(split.key) && !(split.key.startsWith('<<<') || split.key.startsWith('>>>'))) c.next();
    return undefined;
  }
  c.next();
  if (split.rest === undefined || !valueOk(kind, split.rest)) {
    c.error(line.n, `${key} followed by one space and ${valueRule(kind)}`, withCr(shown(line.text), line.text), example);
    return undefined;
  }
  return split.rest;
}

/** After a body: every remaining line is out of place. */
function finish(c: Cursor, intent: Intent): void {
  const order = BODY_ORDER[intent];
  while (!c.atEnd()) {
    const line = c.next() as Line;
    if (line.text === '') {
      c.error(line.n, `no blank line inside a ${intent} body${intent === 'FILE' ? ' (only between FILEOP blocks)' : ''}`, shown(''), BODY_EXAMPLES[intent]);
      continue;
    }
    const { key } = splitKey(line.text);
    const k = /^[+~-]$/.test(line.text[0] ?? '') && intent === 'PATCH' ? line.text[0] : key;
    if (order.includes(k as string)) {
      c.error(line.n, `the lines of a ${intent} body in this order, each at most once: ${order.join(', ')}`, withCr(shown(line.text), line.text), BODY_EXAMPLES[intent]);
    } else {
      c.error(line.n, `the end of the message (a ${intent} body has the lines ${order.join(', ')})`, withCr(shown(line.text), line.text), BODY_EXAMPLES[intent]);
    }
  }
}

/**
 * A `<<<tag` ... `>>>tag` block. The content is exactly the lines between the fences joined by
 * newlines; an empty block is `<<<` directly followed by `>>>`. A block of one blank line would mean
 * the same empty text, so it is refused to keep one text per content.
 */
function contentBlock(c: Cursor, after: string): { content: string; fence: string } | undefined {
  const open = c.peek();
  const example = `${after}\n<<<\nany text, even lines like CSP/1 or >>>x\n>>>`;
  if (!open || !open.text.startsWith('<<<') || !FENCE_TAG_RE.test(open.text.slice(3))) {
    c.error(c.where(), `a content block opening with <<< (optionally <<<TAG, TAG of letters, digits, _) on the line after ${after}`, withCr(shown(open?.text), open?.text), example);
    return undefined;
  }
  c.next();
  const fence = open.text.slice(3);
  const close = `>>>${fence}`;
  const body: string[] = [];
  for (;;) {
    const l = c.next();
    if (!l) {
      c.error(open.n, `a line ${close} closing the content block opened at line ${open.n}`, shown(undefined), example);
      return undefined;
    }
    if (l.text === close) break;
    body.push(l.text);
  }
  if (body.length === 1 && body[0] === '') {
    c.error(open.n + 1, 'no lone blank line in a content block: an empty content is written as <<< directly followed by >>>', shown(''), `${after}\n<<<\n>>>`);
    return undefined;
  }
  return { content: body.join('\n'), fence };
}

function parseTask(c: Cursor): TaskBody | undefined {
  const known = BODY_ORDER.TASK;
  const id = field(c, 'TASK', 'id', 'TASK T001', true, known);
  const req = field(c, 'REQ', 'text', 'REQ find auth middleware', false, known);
  const inList = field(c, 'IN', 'list', 'IN SRC,LIB', false, known);
  const out = field(c, 'OUT', 'text', 'OUT FILE_REFS', false, known);
  const owner = field(c, 'OWNER', 'id', 'OWNER CODE_EXP', false, known);
  const priority = field(c, 'PRIORITY', PRIORITIES, 'PRIORITY P1', false, known);
  finish(c, 'TASK');
  if (id === undefined) return undefined;
  const b: TaskBody = { intent: 'TASK', id };
  if (req !== undefined) b.req = req;
  if (inList !== undefined) b.in = inList.split(',');
  if (out !== undefined) b.out = out;
  if (owner !== undefined) b.owner = owner;
  if (priority !== undefined) b.priority = priority as Priority;
  return b;
}

function parseResult(c: Cursor): ResultBody | undefined {
  const known = BODY_ORDER.RESULT;
  const id = field(c, 'RESULT', 'id', 'RESULT T001', true, known);
  const status = field(c, 'STATUS', RESULT_STATUSES, 'STATUS OK', true, known);
  const produced = field(c, 'PRODUCED', 'list', 'PRODUCED FILE_REFS_001', false, known);
  let data: string | undefined;
  let dataBlock: { fence: string } | undefined;
  const line = c.peek();
  if (line && line.text === 'DATA') {
    c.next();
    const blk = contentBlock(c, 'DATA');
    if (blk) {
      data = blk.content;
      dataBlock = { fence: blk.fence };
    }
  } else {
    data = field(c, 'DATA', 'text', 'DATA src/middleware/auth.ts:24-67', false, known);
  }
  finish(c, 'RESULT');
  if (id === undefined || status === undefined) return undefined;
  const b: ResultBody = { intent: 'RESULT', id, status: status as ResultStatus };
  if (produced !== undefined) b.produced = produced.split(',');
  if (data !== undefined) b.data = data;
  if (dataBlock) b.dataBlock = dataBlock;
  return b;
}

function parseError(c: Cursor): ErrorBody | undefined {
  const known = BODY_ORDER.ERROR;
  const id = field(c, 'ERROR', 'id', 'ERROR E001', true, known);
  const at = field(c, 'AT', 'id', 'AT T001', false, known);
  const cause = field(c, 'CAUSE', 'text', 'CAUSE no matches found in SRC,LIB', true, known);
  const next = field(c, 'NEXT', 'text', 'NEXT try broader scope or different keywords', false, known);
  finish(c, 'ERROR');
  if (id === undefined || cause === undefined) return undefined;
  // Keys in line order (id, at, cause, next), so the JSON reads like the text.
  const b: ErrorBody = { intent: 'ERROR', id, ...(at !== undefined ? { at } : {}), cause };
  if (next !== undefined) b.next = next;
  return b;
}

const OP_FORMS = {
  '+': { re: /^\+ DEF ([^ ]*) = (.*)$/, example: '+ DEF NEW_ITEM = value', what: '+ DEF <NAME> = <value> (add a DEF)' },
  '~': { re: /^~ DEF ([^ ]*) := (.*)$/, example: '~ DEF OLD_ITEM := new_value', what: '~ DEF <NAME> := <value> (change a DEF)' },
  '-': { re: /^- DEF ([^ ]*)$/, example: '- DEF REMOVED_ITEM', what: '- DEF <NAME> (remove a DEF)' },
} as const;

function parsePatch(c: Cursor, headerCtx?: { ctx: string }): PatchBody | undefined {
  const known = BODY_ORDER.PATCH;
  const id = field(c, 'PATCH', 'id', 'PATCH P1', true, known);
  const baseLine = c.where();
  const base = field(c, 'BASE', 'checkpoint', 'BASE C0', true, known);
  if (base !== undefined && headerCtx && headerCtx.ctx !== base) {
    c.error(baseLine, `BASE equal to the message's CTX ${headerCtx.ctx} (a patch is written against the state its sender holds)`, shown(`BASE ${base}`), `CTX ${base} in the header with BASE ${base}`);
  }
  const ops: PatchOp[] = [];
  const touched = new Map<string, number>();
  let bad = false;
  for (;;) {
    const line = c.peek();
    if (!line) break;
    const sign = line.text[0] as '+' | '~' | '-' | undefined;
    if (sign !== '+' && sign !== '~' && sign !== '-') break;
    c.next();
    const form = OP_FORMS[sign];
    const m = form.re.exec(line.text);
    if (!m) {
      c.error(line.n, `a patch line ${form.what}, with one space between the parts`, withCr(shown(line.text), line.text), form.example);
      bad = true;
      continue;
    }
    const name = m[1] as string;
    if (!NAME_RE.test(name)) {
      c.error(line.n, `a DEF name: ${NAME_RULE}`, shown(name), form.example);
      bad = true;
      continue;
    }
    if (sign !== '-' && !isText(m[2] as string)) {
      c.error(line.n, 'a value after the name: text, not empty, no leading or trailing spaces', withCr(shown(line.text), line.text), form.example);
      bad = true;
      continue;
    }
    const prev = touched.get(name);
    if (prev !== undefined) {
      c.error(line.n, `each DEF at most once per patch (${name} is already touched at line ${prev})`, shown(line.text), `${form.example}   (and no other line for that DEF)`);
      bad = true;
      continue;
    }
    touched.set(name, line.n);
    if (sign === '+') ops.push({ op: 'add', name, value: m[2] as string });
    else if (sign === '~') ops.push({ op: 'change', name, value: m[2] as string });
    else ops.push({ op: 'remove', name });
  }
  if (ops.length === 0 && !bad) {
    c.error(c.where(), 'at least one patch line: + DEF <NAME> = <value>, ~ DEF <NAME> := <value> or - DEF <NAME>', shown(c.peek()?.text), BODY_EXAMPLES.PATCH);
  }
  let target: string | undefined;
  const line = c.peek();
  const expectedTarget = base !== undefined ? `C${checkpointNumber(base) + 1}` : 'C1';
  if (line && splitKey(line.text).key === 'APPLY') {
    c.next();
    const m = /^APPLY -> (.*)$/.exec(line.text);
    if (!m || !CHECKPOINT_RE.test(m[1] as string)) {
      c.error(line.n, 'APPLY -> <checkpoint id> (the checkpoint this patch produces)', withCr(shown(line.text), line.text), `APPLY -> ${expectedTarget}`);
    } else if (base !== undefined && m[1] !== expectedTarget) {
      c.error(line.n, `APPLY -> ${expectedTarget}: the checkpoint right after BASE ${base} (C0 -> P1 -> C1 -> P2 -> C2 ...)`, shown(line.text), `APPLY -> ${expectedTarget}`);
    } else target = m[1];
  } else {
    c.error(c.where(), 'the closing line APPLY -> <checkpoint id>', withCr(shown(line?.text), line?.text), `APPLY -> ${expectedTarget}`);
  }
  finish(c, 'PATCH');
  if (id === undefined || base === undefined || target === undefined || bad || ops.length === 0) return undefined;
  return { intent: 'PATCH', id, base, ops, target };
}

function parseFileOp(c: Cursor): FileOp | undefined {
  const known = BODY_ORDER.FILE;
  const head = c.next() as Line;
  const m = /^FILEOP ([^ ]*) ([^ ]*)$/.exec(head.text);
  let id: string | undefined;
  let op: FileOpKind | undefined;
  if (!m || !ID_RE.test(m[1] as string) || !(FILE_OPS as readonly string[]).includes(m[2] as string)) {
    c.error(head.n, `FILEOP <id> <${FILE_OPS.join('|')}>`, withCr(shown(head.text), head.text), 'FILEOP F001 PATCH');
  } else {
    id = m[1] as string;
    op = m[2] as FileOpKind;
  }
  const path = field(c, 'PATH', 'text', 'PATH src/file.ts', true, known);
  const toLine = c.where();
  const to = field(c, 'TO', 'text', 'TO src/new_name.ts', op === 'MOVE', known);
  if (to !== undefined && op !== undefined && op !== 'MOVE') {
    c.error(toLine, 'TO only in a MOVE (the new path)', shown(`TO ${to}`), 'FILEOP F002 MOVE\nPATH src/old.ts\nTO src/new.ts');
  }
  const base = field(c, 'BASE', 'id', 'BASE hash123', false, known);
  let content: { content: string; fence: string } | undefined;
  const cl = c.peek();
  const wantsContent = op !== undefined && FILE_OPS_WITH_CONTENT.includes(op);
  if (cl && cl.text === 'CONTENT') {
    c.next();
    content = contentBlock(c, 'CONTENT');
    if (op !== undefined && !wantsContent) {
      c.error(cl.n, `no CONTENT in a ${op} (only ${FILE_OPS_WITH_CONTENT.join(', ')} carry content)`, shown(cl.text), `FILEOP ${id ?? 'F001'} ${op}\nPATH ${path ?? 'src/file.ts'}`);
    }
  } else if (wantsContent) {
    c.error(c.where(), `CONTENT followed by a <<< >>> block (a ${op} carries content)`, withCr(shown(cl?.text), cl?.text), 'CONTENT\n<<<\n+new_line_here\n>>>');
    return undefined;
  }
  if (id === undefined || op === undefined || path === undefined) return undefined;
  if (op === 'MOVE' && to === undefined) return undefined;
  if (wantsContent && content === undefined) return undefined;
  const f: FileOp = { id, op, path };
  if (to !== undefined) f.to = to;
  if (base !== undefined) f.base = base;
  if (content && wantsContent) {
    f.content = content.content;
    f.fence = content.fence;
  }
  return f;
}

function parseFile(c: Cursor): FileBody | undefined {
  const ops: FileOp[] = [];
  let ok = true;
  const ids = new Map<string, number>();
  for (;;) {
    const n = c.where();
    const op = parseFileOp(c);
    if (op) {
      const prev = ids.get(op.id);
      if (prev !== undefined) {
        c.error(n, `a FILEOP id not used before in this message (${op.id} is at line ${prev})`, shown(`FILEOP ${op.id} ${op.op}`), `FILEOP F${String(ops.length + 1).padStart(3, '0')} ${op.op}`);
        ok = false;
      } else ids.set(op.id, n);
      ops.push(op);
    } else ok = false;
    // One blank line, then another FILEOP block.
    if (c.peek()?.text === '' && c.peek(1) && splitKey((c.peek(1) as Line).text).key === 'FILEOP') {
      c.next();
      continue;
    }
    break;
  }
  finish(c, 'FILE');
  return ok && ops.length > 0 ? { intent: 'FILE', ops } : undefined;
}

function parsePlan(c: Cursor): PlanBody | undefined {
  const known = BODY_ORDER.PLAN;
  const id = field(c, 'PLAN', 'id', 'PLAN PL1', true, known);
  const goal = field(c, 'GOAL', 'text', 'GOAL ship the auth refactor', true, known);
  const steps: PlanStep[] = [];
  const seen = new Map<string, number>();
  let bad = false;
  while (c.key() === 'STEP') {
    const line = c.next() as Line;
    const ex = 'STEP T002 CODER AFTER T001';
    const m = /^STEP ([^ ]*) ([^ ]*)(?: AFTER ([^ ]*))?$/.exec(line.text);
    if (!m || !ID_RE.test(m[1] as string) || !ID_RE.test(m[2] as string) || (m[3] !== undefined && !isList(m[3]))) {
      c.error(line.n, 'STEP <task id> <owner agent id>, optionally followed by AFTER <task id>,<task id>', withCr(shown(line.text), line.text), ex);
      bad = true;
      continue;
    }
    const step: PlanStep = { task: m[1] as string, owner: m[2] as string };
    if (m[3] !== undefined) {
      step.after = m[3].split(',');
      const unknown = step.after.filter((a) => !seen.has(a));
      if (unknown.length > 0) {
        c.error(line.n, `AFTER naming only steps listed above it (unknown: ${unknown.join(', ')})`, shown(line.text), 'STEP T001 CODE_EXP\nSTEP T002 CODER AFTER T001');
        bad = true;
      }
    }
    if (seen.has(step.task)) {
      c.error(line.n, `each task once per plan (${step.task} is already at line ${seen.get(step.task)})`, shown(line.text), ex);
      bad = true;
      continue;
    }
    seen.set(step.task, line.n);
    steps.push(step);
  }
  if (steps.length === 0 && !bad) c.error(c.where(), 'at least one STEP <task id> <owner> line', shown(c.peek()?.text), BODY_EXAMPLES.PLAN);
  finish(c, 'PLAN');
  if (id === undefined || goal === undefined || bad || steps.length === 0) return undefined;
  return { intent: 'PLAN', id, goal, steps };
}

function parseQuery(c: Cursor): QueryBody | undefined {
  const known = BODY_ORDER.QUERY;
  const id = field(c, 'QUERY', 'id', 'QUERY Q001', true, known);
  const ask = field(c, 'ASK', 'text', 'ASK which module owns token refresh?', true, known);
  const about = field(c, 'ABOUT', 'list', 'ABOUT SRC,AUTH_MW', false, known);
  finish(c, 'QUERY');
  if (id === undefined || ask === undefined) return undefined;
  const b: QueryBody = { intent: 'QUERY', id, ask };
  if (about !== undefined) b.about = about.split(',');
  return b;
}

function parseMem(c: Cursor): MemBody | undefined {
  const known = BODY_ORDER.MEM;
  const id = field(c, 'MEM', 'id', 'MEM M001', true, known);
  const nodes: MemNode[] = [];
  const edges: MemEdge[] = [];
  const names = new Map<string, number>();
  let bad = false;
  while (c.key() === 'NODE') {
    const line = c.next() as Line;
    const m = /^NODE ([^ ]*) = (.*)$/.exec(line.text);
    if (!m || !NAME_RE.test(m[1] as string) || !isText(m[2] as string)) {
      c.error(line.n, `NODE <NAME> = <value>, NAME being ${NAME_RULE}`, withCr(shown(line.text), line.text), 'NODE AUTH_MW = src/middleware/auth.ts:24-67');
      bad = true;
      continue;
    }
    const prev = names.get(m[1] as string);
    if (prev !== undefined) {
      c.error(line.n, `each NODE once per MEM message (${m[1]} is already at line ${prev})`, shown(line.text), 'NODE JWT = lib/utils/jwt.ts:12-45');
      bad = true;
      continue;
    }
    names.set(m[1] as string, line.n);
    nodes.push({ name: m[1] as string, value: m[2] as string });
  }
  while (c.key() === 'EDGE') {
    const line = c.next() as Line;
    const m = /^EDGE ([^ ]*) ([^ ]*) ([^ ]*)$/.exec(line.text);
    if (!m || !NAME_RE.test(m[1] as string) || !NAME_RE.test(m[2] as string) || !NAME_RE.test(m[3] as string)) {
      c.error(line.n, `EDGE <FROM> <RELATION> <TO>, three upper-case names (${NAME_RULE})`, withCr(shown(line.text), line.text), 'EDGE AUTH_MW USES JWT');
      bad = true;
      continue;
    }
    edges.push({ from: m[1] as string, rel: m[2] as string, to: m[3] as string });
  }
  if (nodes.length === 0 && edges.length === 0 && !bad) {
    c.error(c.where(), 'at least one NODE <NAME> = <value> or EDGE <FROM> <RELATION> <TO> line', shown(c.peek()?.text), BODY_EXAMPLES.MEM);
  }
  finish(c, 'MEM');
  if (id === undefined || bad || nodes.length + edges.length === 0) return undefined;
  return { intent: 'MEM', id, nodes, edges };
}

function parseBody(c: Cursor, intent: Intent, headerCtx?: { ctx: string }): CspBody | undefined {
  switch (intent) {
    case 'TASK':
      return parseTask(c);
    case 'RESULT':
      return parseResult(c);
    case 'ERROR':
      return parseError(c);
    case 'PATCH':
      return parsePatch(c, headerCtx);
    case 'FILE':
      return parseFile(c);
    case 'PLAN':
      return parsePlan(c);
    case 'QUERY':
      return parseQuery(c);
    case 'MEM':
      return parseMem(c);
    default: {
      const never: never = intent;
      return never;
    }
  }
}

const HEADER_FIELDS = [
  { key: 'FROM', kind: 'id' as ValueKind, what: 'the sending agent', example: 'FROM MAIN' },
  { key: 'TO', kind: 'id' as ValueKind, what: 'the receiving agent', example: 'TO CODE_EXP' },
  { key: 'CTX', kind: 'id' as ValueKind, what: 'the state version or checkpoint the sender holds', example: 'CTX C0' },
  { key: 'INTENT', kind: INTENTS as readonly string[] as ValueKind, what: 'the message type', example: 'INTENT TASK' },
];

function parseMessage(lines: Line[]): { doc?: CspDocument; errors: CspError[] } {
  const c = new Cursor(lines.slice(1), lines.length + 1);
  const values: Record<string, string | undefined> = {};
  const keys = HEADER_FIELDS.map((h) => h.key);
  HEADER_FIELDS.forEach((h, j) => {
    const line = c.peek();
    const key = line ? splitKey(line.text).key : undefined;
    const expected = `line ${j + 2} of a message: ${h.key} <${valueRule(h.kind)}> (${h.what})`;
    if (line && key === h.key) {
      c.next();
      const rest = splitKey(line.text).rest;
      if (rest === undefined || !valueOk(h.kind, rest)) c.error(line.n, `${h.key} followed by one space and ${valueRule(h.kind)}`, withCr(shown(line.text), line.text), h.example);
      else values[h.key] = rest;
      return;
    }
    c.error(c.where(), expected, withCr(shown(line?.text), line?.text), h.example);
    // Consume a malformed header line, but not a later header line, the blank separator or the body.
    if (line && line.text !== '' && !keys.slice(j + 1).includes(key as string) && !(key !== undefined && KEYWORD_TO_INTENT.has(key))) c.next();
  });
  // The blank separator line.
  const sep = c.peek();
  if (sep && sep.text === '') {
    c.next();
    while (c.peek()?.text === '') {
      const l = c.next() as Line;
      c.error(l.n, 'the body right after the one blank line that ends the header', shown(''), MESSAGE_EXAMPLE);
    }
  } else {
    c.error(c.where(), 'a blank line between the header (FROM, TO, CTX, INTENT) and the body', withCr(shown(sep?.text), sep?.text), MESSAGE_EXAMPLE);
    if (sep && sep.text.startsWith('INTENT')) c.next();
  }
  const declared = values.INTENT as Intent | undefined;
  const first = c.peek();
  const firstKey = first ? splitKey(first.text).key : undefined;
  const actual = firstKey !== undefined ? KEYWORD_TO_INTENT.get(firstKey) : undefined;
  let body: CspBody | undefined;
  if (!first) {
    c.error(c.where(), `a body block${declared ? ` starting with ${BODY_KEYWORD[declared]} <id>` : ''} (Matching body block)`, shown(undefined), declared ? BODY_EXAMPLES[declared] : BODY_EXAMPLES.TASK);
  } else if (declared && actual !== declared) {
    c.error(first.n, `a body matching INTENT ${declared}: its first line is ${BODY_KEYWORD[declared]} <id>`, withCr(shown(first.text), first.text), BODY_EXAMPLES[declared]);
  } else if (!declared && !actual) {
    c.error(first.n, `a body starting with one of ${INTENTS.map((i) => BODY_KEYWORD[i]).join(', ')}`, withCr(shown(first.text), first.text), BODY_EXAMPLES.TASK);
  } else {
    // With a missing or unknown INTENT the body is still parsed, to report its errors too.
    body = parseBody(c, (declared ?? actual) as Intent, values.CTX !== undefined ? { ctx: values.CTX } : undefined);
  }
  if (c.errors.length > 0 || !body || values.FROM === undefined || values.TO === undefined || values.CTX === undefined) return { errors: c.errors };
  return { doc: { kind: 'message', from: values.FROM, to: values.TO, ctx: values.CTX, body }, errors: [] };
}

function parseBodyDocument(lines: Line[], intent: Intent): { doc?: CspDocument; errors: CspError[] } {
  const c = new Cursor(lines, lines.length + 1);
  const body = parseBody(c, intent);
  if (c.errors.length > 0 || !body) return { errors: c.errors };
  return { doc: { kind: 'body', body }, errors: [] };
}

function parseContext(lines: Line[]): { doc?: CspDocument; errors: CspError[] } {
  const c = new Cursor(lines, lines.length + 1);
  const blocks: ContextBlock[] = [];
  const defNames = new Map<string, number>();
  const lawIds = new Map<string, number>();
  for (;;) {
    const line = c.peek() as Line;
    const key = splitKey(line.text).key;
    let stray = false;
    if (key === 'DEF') {
      const defs: Def[] = [];
      while (c.key() === 'DEF') {
        const l = c.next() as Line;
        const m = /^DEF ([^ ]*) = (.*)$/.exec(l.text);
        if (!m || !NAME_RE.test(m[1] as string) || !isText(m[2] as string)) {
          c.error(l.n, `DEF <NAME> = <value>, NAME being ${NAME_RULE}, value text without leading or trailing spaces`, withCr(shown(l.text), l.text), 'DEF SRC = src/');
          continue;
        }
        const prev = defNames.get(m[1] as string);
        if (prev !== undefined) {
          c.error(l.n, `each DEF once (${m[1]} is already defined at line ${prev}; change it with a PATCH: ~ DEF ${m[1]} := <value>)`, shown(l.text), `~ DEF ${m[1]} := ${m[2]}`);
          continue;
        }
        defNames.set(m[1] as string, l.n);
        defs.push({ name: m[1] as string, value: m[2] as string });
      }
      blocks.push({ kind: 'defs', defs });
    } else if (line.text === 'LAWS') {
      c.next();
      const laws: Law[] = [];
      while (c.peek() && (c.peek() as Line).text.startsWith('-')) {
        const l = c.next() as Line;
        const m = /^- ([^ ]*): (.*)$/.exec(l.text);
        if (!m || !LAW_ID_RE.test(m[1] as string) || !isText(m[2] as string)) {
          c.error(l.n, '- L<n>: <law text> (a law id L1, L2, ... then a colon and the law)', withCr(shown(l.text), l.text), '- L1: Web search/fetch -> WEB_RES only');
          continue;
        }
        const prev = lawIds.get(m[1] as string);
        if (prev !== undefined) {
          c.error(l.n, `each law id once (${m[1]} is already at line ${prev})`, shown(l.text), `- L${lawIds.size + 1}: ${m[2]}`);
          continue;
        }
        lawIds.set(m[1] as string, l.n);
        laws.push({ id: m[1] as string, text: m[2] as string });
      }
      if (laws.length === 0) c.error(c.where(), 'at least one law line after LAWS: - L1: <law>', withCr(shown(c.peek()?.text), c.peek()?.text), 'LAWS\n- L1: Web search/fetch -> WEB_RES only');
      blocks.push({ kind: 'laws', laws });
    } else {
      c.next();
      stray = true;
      c.error(line.n, 'a DEF <NAME> = <value> line or LAWS (a context document holds DEF groups and LAWS blocks separated by one blank line)', withCr(shown(line.text), line.text), CONTEXT_EXAMPLE);
    }
    if (c.atEnd()) break;
    const sep = c.peek() as Line;
    if (sep.text !== '') {
      // Blocks are separated by exactly one blank line; a stray line was reported above already.
      const k = splitKey(sep.text).key;
      if (!stray && (k === 'DEF' || sep.text === 'LAWS')) c.error(sep.n, 'a blank line before a new block', shown(sep.text), CONTEXT_EXAMPLE);
      continue;
    }
    c.next();
    if (c.atEnd() || (c.peek() as Line).text === '') {
      const l = c.peek();
      c.error(l?.n ?? c.where(), 'one blank line between blocks, then a DEF line or LAWS (no blank line at the end)', shown(l?.text), CONTEXT_EXAMPLE);
      while (!c.atEnd() && (c.peek() as Line).text === '') c.next();
      if (c.atEnd()) break;
    }
  }
  if (c.errors.length > 0) return { errors: c.errors };
  return { doc: { kind: 'context', blocks }, errors: [] };
}

function parseTemplate(lines: Line[]): { doc?: CspDocument; errors: CspError[] } {
  const c = new Cursor(lines, lines.length + 1);
  const head = c.next() as Line;
  const directives: TplDirective[] = [];
  const parts = head.text.slice(CSP_HEADER.length + 1).split(';');
  for (const p of parts) {
    const not = /^!([^\s;!]+)$/.exec(p);
    const only = /^([^\s;]+) ONLY$/.exec(p);
    if (not) directives.push({ kind: 'not', term: not[1] as string });
    else if (only) directives.push({ kind: 'only', term: only[1] as string });
    else {
      c.error(head.n, 'directives after CSP/1; separated by ";", each !TERM (forbid) or TERM ONLY (restrict)', withCr(shown(p), p), TPL_EXAMPLE.split('\n')[0] as string);
    }
  }
  let result: TplResultField[] | undefined;
  const r = c.peek();
  if (r && r.text.startsWith('RESULT')) {
    c.next();
    const m = /^RESULT\{(.*)\}$/.exec(r.text);
    const fields = m ? (m[1] as string).split(',').map((f) => /^([A-Z][A-Z0-9_]{0,63})(?:\[([^[\]\s]+)\])?$/.exec(f)) : [null];
    if (!m || fields.some((f) => !f)) {
      c.error(r.n, 'RESULT{FIELD,FIELD[shape]}: upper-case field names, an optional [shape] hint, comma-separated, no spaces', withCr(shown(r.text), r.text), 'RESULT{STATUS,DATA[file:line]}');
    } else {
      result = fields.map((f) => {
        const fm = f as RegExpExecArray;
        return fm[2] !== undefined ? { name: fm[1] as string, shape: fm[2] } : { name: fm[1] as string };
      });
    }
  }
  let task: CspTaskTemplate['task'] | undefined;
  const t = c.peek();
  const m = t ? /^TASK REQ:(.+?) IN:(.+?) OUT:(.+)$/.exec(t.text) : null;
  if (t && splitKey(t.text).key === 'TASK') c.next();
  if (!m || ![m[1], m[2], m[3]].every((v) => isText(v as string))) {
    c.error(t?.n ?? c.where(), 'TASK REQ:<req> IN:<scope> OUT:<type> (each value text without leading or trailing spaces)', withCr(shown(t?.text), t?.text), 'TASK REQ:find auth middleware IN:SRC,LIB OUT:FILE_REFS');
  } else task = { req: m[1] as string, in: m[2] as string, out: m[3] as string };
  while (!c.atEnd()) {
    const l = c.next() as Line;
    c.error(l.n, 'the end of the template (CSP/1;... header, optional RESULT{...} line, TASK line)', withCr(shown(l.text), l.text), TPL_EXAMPLE);
  }
  if (c.errors.length > 0 || !task) return { errors: c.errors };
  const doc: CspTaskTemplate = { kind: 'task_tpl', directives, ...(result ? { result } : {}), task };
  return { doc, errors: [] };
}

function parseAny(text: unknown): CspParseResult {
  if (typeof text !== 'string') {
    return { ok: false, errors: [{ line: 0, expected: 'CSP text (a string)', got: text === null ? 'null' : typeof text, example: MESSAGE_EXAMPLE }] };
  }
  const lines = toLines(text);
  const first = (lines[0] as Line).text;
  const key = splitKey(first).key;
  let r: { doc?: CspDocument; errors: CspError[] };
  if (first === CSP_HEADER) r = parseMessage(lines);
  else if (first.startsWith(`${CSP_HEADER};`)) r = parseTemplate(lines);
  else if (KEYWORD_TO_INTENT.has(key)) r = parseBodyDocument(lines, KEYWORD_TO_INTENT.get(key) as Intent);
  else if (key === 'DEF' || first === 'LAWS') r = parseContext(lines);
  else {
    const got = first.startsWith(CSP_HEADER) ? withCr(shown(first), first) : shown(first);
    r = {
      errors: [{ line: 1, expected: 'the header line CSP/1 (or a bare body block, a DEF/LAWS block, or a CSP/1;... task template)', got, example: MESSAGE_EXAMPLE }],
    };
  }
  if (r.doc && r.errors.length === 0) return { ok: true, message: r.doc };
  return { ok: false, errors: r.errors.length > 0 ? r.errors : [{ line: 1, expected: 'a complete CSP document', got: 'an incomplete one', example: MESSAGE_EXAMPLE }] };
}

/** Marker in `got` for a parser bug, so tests can tell a bug from a refused input. */
export const INTERNAL_ERROR_MARK = 'an internal parser error';

/**
 * Parse one CSP/1 document. Never throws: every problem, including a bug in the parser itself,
 * comes back as `{ok: false, errors}` with line, expected, got and example.
 */
export function parseCsp(text: unknown): CspParseResult {
  try {
    return parseAny(text);
  } catch (e) {
    return { ok: false, errors: [{ line: 0, expected: 'input the parser can read', got: `${INTERNAL_ERROR_MARK}: ${(e as Error).message}`, example: MESSAGE_EXAMPLE }] };
  }
}
