/**
 * The CSP/1 formatter: one canonical text per document, so `formatCsp(parse(text)) === text` for
 * every text the parser accepts (with the final newline the formatter always writes).
 *
 * `formatCsp` trusts its input's types (it is called with parser output and typed objects).
 * `formatUnknown` is for input from outside (the CLI's JSON): it checks the shape first and proves
 * the output by parsing it back, so it returns errors instead of writing text that means something
 * else.
 */
import { HeimdallError } from '../errors.js';
import { parseCsp } from './parse.js';
import { checkDocumentShape } from './shape.js';
import {
  BODY_KEYWORD,
  CSP_HEADER,
  type CspBody,
  type CspDocument,
  type CspError,
  type CspTaskTemplate,
  type FileOp,
} from './types.js';

/** A fence tag that no content line collides with: '' when no line is `>>>`, else END, END1, ... */
export function chooseFence(content: string, preferred = ''): string {
  const lines = new Set(content.split('\n'));
  if (!lines.has(`>>>${preferred}`)) return preferred;
  for (let i = 0; ; i++) {
    const tag = i === 0 ? 'END' : `END${i}`;
    if (!lines.has(`>>>${tag}`)) return tag;
  }
}

function block(content: string, fence: string | undefined): string[] {
  const tag = chooseFence(content, fence ?? '');
  return [`<<<${tag}`, ...(content === '' ? [] : content.split('\n')), `>>>${tag}`];
}

function fileOpLines(f: FileOp): string[] {
  const out = [`FILEOP ${f.id} ${f.op}`, `PATH ${f.path}`];
  if (f.to !== undefined) out.push(`TO ${f.to}`);
  if (f.base !== undefined) out.push(`BASE ${f.base}`);
  if (f.content !== undefined) out.push('CONTENT', ...block(f.content, f.fence));
  return out;
}

/** A value that cannot sit on one line goes into a block. */
function needsBlock(v: string): boolean {
  return v.includes('\n') || v.includes('\r') || v === '' || /^\s|\s$/.test(v);
}

/** The body's lines, in the grammar's fixed order. */
export function bodyLines(b: CspBody): string[] {
  switch (b.intent) {
    case 'TASK': {
      const out = [`TASK ${b.id}`];
      if (b.req !== undefined) out.push(`REQ ${b.req}`);
      if (b.in !== undefined) out.push(`IN ${b.in.join(',')}`);
      if (b.out !== undefined) out.push(`OUT ${b.out}`);
      if (b.owner !== undefined) out.push(`OWNER ${b.owner}`);
      if (b.priority !== undefined) out.push(`PRIORITY ${b.priority}`);
      return out;
    }
    case 'RESULT': {
      const out = [`RESULT ${b.id}`, `STATUS ${b.status}`];
      if (b.produced !== undefined) out.push(`PRODUCED ${b.produced.join(',')}`);
      if (b.data !== undefined) {
        if (b.dataBlock || needsBlock(b.data)) out.push('DATA', ...block(b.data, b.dataBlock?.fence));
        else out.push(`DATA ${b.data}`);
      }
      return out;
    }
    case 'ERROR': {
      const out = [`ERROR ${b.id}`];
      if (b.at !== undefined) out.push(`AT ${b.at}`);
      out.push(`CAUSE ${b.cause}`);
      if (b.next !== undefined) out.push(`NEXT ${b.next}`);
      return out;
    }
    case 'PATCH':
      return [
        `PATCH ${b.id}`,
        `BASE ${b.base}`,
        ...b.ops.map((o) => (o.op === 'add' ? `+ DEF ${o.name} = ${o.value}` : o.op === 'change' ? `~ DEF ${o.name} := ${o.value}` : `- DEF ${o.name}`)),
        `APPLY -> ${b.target}`,
      ];
    case 'FILE':
      return b.ops.flatMap((f, i) => (i === 0 ? fileOpLines(f) : ['', ...fileOpLines(f)]));
    case 'PLAN':
      return [`PLAN ${b.id}`, `GOAL ${b.goal}`, ...b.steps.map((s) => `STEP ${s.task} ${s.owner}${s.after ? ` AFTER ${s.after.join(',')}` : ''}`)];
    case 'QUERY': {
      const out = [`QUERY ${b.id}`, `ASK ${b.ask}`];
      if (b.about !== undefined) out.push(`ABOUT ${b.about.join(',')}`);
      return out;
    }
    case 'MEM':
      return [`MEM ${b.id}`, ...b.nodes.map((n) => `NODE ${n.name} = ${n.value}`), ...b.edges.map((e) => `EDGE ${e.from} ${e.rel} ${e.to}`)];
    default: {
      const never: never = b;
      throw new HeimdallError('internal', `unknown CSP body ${JSON.stringify(never)}`);
    }
  }
}

function templateLines(t: CspTaskTemplate): string[] {
  const head = [CSP_HEADER, ...t.directives.map((d) => (d.kind === 'not' ? `!${d.term}` : `${d.term} ONLY`))].join(';');
  const out = [head];
  if (t.result) out.push(`RESULT{${t.result.map((f) => (f.shape !== undefined ? `${f.name}[${f.shape}]` : f.name)).join(',')}}`);
  out.push(`TASK REQ:${t.task.req} IN:${t.task.in} OUT:${t.task.out}`);
  return out;
}

/** Write a document as canonical CSP/1 text (LF line endings, final newline). */
export function formatCsp(doc: CspDocument): string {
  let lines: string[];
  switch (doc.kind) {
    case 'message':
      lines = [CSP_HEADER, `FROM ${doc.from}`, `TO ${doc.to}`, `CTX ${doc.ctx}`, `INTENT ${doc.body.intent}`, '', ...bodyLines(doc.body)];
      break;
    case 'body':
      lines = bodyLines(doc.body);
      break;
    case 'context':
      lines = doc.blocks.flatMap((b, i) => [
        ...(i > 0 ? [''] : []),
        ...(b.kind === 'defs' ? b.defs.map((d) => `DEF ${d.name} = ${d.value}`) : ['LAWS', ...b.laws.map((l) => `- ${l.id}: ${l.text}`)]),
      ]);
      break;
    case 'task_tpl':
      lines = templateLines(doc);
      break;
    default: {
      const never: never = doc;
      throw new HeimdallError('internal', `unknown CSP document ${JSON.stringify(never)}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

/** Structural equality of plain JSON data, treating a missing key and `undefined` alike. */
export function sameData(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((x, i) => sameData(x, bb[i]));
  }
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  const keys = new Set([...Object.keys(ao), ...Object.keys(bo)]);
  for (const k of keys) if (!sameData(ao[k], bo[k])) return false;
  return true;
}

/** Drop keys the parser never produces for this value, so a hand-written document compares fairly. */
function normalizeForCompare(doc: CspDocument): unknown {
  const copy = JSON.parse(JSON.stringify(doc)) as Record<string, unknown>;
  const bodies: Record<string, unknown>[] = [];
  if (copy.kind === 'message' || copy.kind === 'body') bodies.push(copy.body as Record<string, unknown>);
  for (const b of bodies) {
    // Fence tags are a layout choice: the formatter may pick another to avoid a collision.
    if (b.intent === 'RESULT' && b.dataBlock) delete b.dataBlock;
    if (b.intent === 'FILE') for (const f of b.ops as Record<string, unknown>[]) delete f.fence;
  }
  return copy;
}

export type FormatResult = { ok: true; text: string; message: CspDocument } | { ok: false; errors: CspError[] };

/**
 * Format a document that came from outside (JSON). Checks its shape, writes it, and parses the text
 * back: the text is returned only when it means exactly the given document. Never throws.
 */
export function formatUnknown(input: unknown): FormatResult {
  const shape = checkDocumentShape(input);
  if (!shape.ok) return shape;
  let text: string;
  try {
    text = formatCsp(shape.doc);
  } catch (e) {
    return { ok: false, errors: [{ line: 0, expected: 'a document the formatter can write', got: (e as Error).message, example: '{"kind":"body","body":{"intent":"TASK","id":"T001"}}' }] };
  }
  const back = parseCsp(text);
  if (!back.ok) {
    return {
      ok: false,
      errors: back.errors.map((e) => ({ ...e, expected: `${e.expected} (in the text written from your document: ${JSON.stringify(text.split('\n')[e.line - 1] ?? '')})` })),
    };
  }
  if (!sameData(normalizeForCompare(back.message), normalizeForCompare(shape.doc))) {
    return {
      ok: false,
      errors: [
        {
          line: 0,
          expected: 'values that read back as written (a value may not contain the separators of its line, e.g. " IN:" inside a template REQ)',
          got: `text that parses to a different document: ${JSON.stringify(back.message).slice(0, 200)}`,
          example: '{"kind":"task_tpl","directives":[{"kind":"not","term":"prose"}],"task":{"req":"find auth","in":"SRC","out":"FILE_REFS"}}',
        },
      ],
    };
  }
  return { ok: true, text, message: back.message };
}
