/**
 * The shape of a CSP document as JSON (what `heimdall csp parse` prints and `heimdall csp format`
 * reads). Unknown keys are refused rather than dropped: a document that carries a field CSP has no
 * line for would otherwise lose it silently.
 */
import { z } from 'zod';
import { CHECKPOINT_RE, FENCE_TAG_RE, ID_RE, ID_RULE, LAW_ID_RE, LIST_ITEM_RE, NAME_RE, NAME_RULE } from './lexer.js';
import { type CspDocument, type CspError, FILE_OPS, PRIORITIES, RESULT_STATUSES } from './types.js';

const TEXT_RE = /^\S(?:[^\n\r]*\S)?$/;
const TEXT_RULE = 'one line of text, not empty, without leading or trailing spaces';

const id = z.string().regex(ID_RE, ID_RULE);
const text = z.string().regex(TEXT_RE, TEXT_RULE);
const name = z.string().regex(NAME_RE, NAME_RULE);
const list = z.array(z.string().regex(LIST_ITEM_RE, 'list items have no spaces and no commas')).min(1, 'a list has at least one item');
const checkpoint = z.string().regex(CHECKPOINT_RE, 'a checkpoint id C0, C1, ...');
const fence = z.string().regex(FENCE_TAG_RE, 'a fence tag of at most 16 letters, digits or _ ("" for plain <<< >>>)');

const task = z.strictObject({
  intent: z.literal('TASK'),
  id,
  req: text.optional(),
  in: list.optional(),
  out: text.optional(),
  owner: id.optional(),
  priority: z.enum(PRIORITIES).optional(),
});
const result = z.strictObject({
  intent: z.literal('RESULT'),
  id,
  status: z.enum(RESULT_STATUSES),
  produced: list.optional(),
  data: z.string().optional(),
  dataBlock: z.strictObject({ fence }).optional(),
});
const error = z.strictObject({ intent: z.literal('ERROR'), id, at: id.optional(), cause: text, next: text.optional() });
const patchOp = z.discriminatedUnion('op', [
  z.strictObject({ op: z.literal('add'), name, value: text }),
  z.strictObject({ op: z.literal('change'), name, value: text }),
  z.strictObject({ op: z.literal('remove'), name }),
]);
const patch = z.strictObject({ intent: z.literal('PATCH'), id, base: checkpoint, ops: z.array(patchOp).min(1), target: checkpoint });
const fileOp = z.strictObject({
  id,
  op: z.enum(FILE_OPS),
  path: text,
  to: text.optional(),
  base: id.optional(),
  content: z.string().optional(),
  fence: fence.optional(),
});
const file = z.strictObject({ intent: z.literal('FILE'), ops: z.array(fileOp).min(1) });
const plan = z.strictObject({
  intent: z.literal('PLAN'),
  id,
  goal: text,
  steps: z.array(z.strictObject({ task: id, owner: id, after: list.optional() })).min(1),
});
const query = z.strictObject({ intent: z.literal('QUERY'), id, ask: text, about: list.optional() });
const mem = z.strictObject({
  intent: z.literal('MEM'),
  id,
  nodes: z.array(z.strictObject({ name, value: text })),
  edges: z.array(z.strictObject({ from: name, rel: name, to: name })),
});
const body = z.discriminatedUnion('intent', [task, result, error, patch, file, plan, query, mem]);

const document = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('message'), from: id, to: id, ctx: id, body }),
  z.strictObject({ kind: z.literal('body'), body }),
  z.strictObject({
    kind: z.literal('context'),
    blocks: z
      .array(
        z.discriminatedUnion('kind', [
          z.strictObject({ kind: z.literal('defs'), defs: z.array(z.strictObject({ name, value: text })).min(1) }),
          z.strictObject({
            kind: z.literal('laws'),
            laws: z.array(z.strictObject({ id: z.string().regex(LAW_ID_RE, 'a law id L1, L2, ...'), text })).min(1),
          }),
        ]),
      )
      .min(1),
  }),
  z.strictObject({
    kind: z.literal('task_tpl'),
    directives: z
      .array(
        z.strictObject({
          kind: z.enum(['not', 'only']),
          term: z.string().regex(/^[^\s;!]+$/, 'a directive term without spaces, ";" or "!"'),
        }),
      )
      .min(1),
    result: z
      .array(z.strictObject({ name: z.string().regex(/^[A-Z][A-Z0-9_]{0,63}$/, NAME_RULE), shape: z.string().regex(/^[^[\]\s,]+$/).optional() }))
      .min(1)
      .optional(),
    task: z.strictObject({ req: text, in: text, out: text }),
  }),
]);

const SHAPE_EXAMPLE = '{"kind":"message","from":"MAIN","to":"CODE_EXP","ctx":"C0","body":{"intent":"TASK","id":"T001","req":"find auth middleware"}}';

function at(input: unknown, path: PropertyKey[]): unknown {
  let v = input;
  for (const k of path) {
    if (typeof v !== 'object' || v === null) return undefined;
    v = (v as Record<PropertyKey, unknown>)[k];
  }
  return v;
}

/** Check a JSON value against the document shape; errors use line 0 and name the JSON path. */
export function checkDocumentShape(input: unknown): { ok: true; doc: CspDocument } | { ok: false; errors: CspError[] } {
  const r = document.safeParse(input);
  if (r.success) return { ok: true, doc: r.data as CspDocument };
  return {
    ok: false,
    errors: r.error.issues.slice(0, 50).map((i) => {
      const path = `/${i.path.map(String).join('/')}`;
      const v = at(input, i.path);
      return {
        line: 0,
        expected: `${path}: ${i.message}`,
        got: v === undefined ? 'nothing' : JSON.stringify(v).slice(0, 120),
        example: SHAPE_EXAMPLE,
      };
    }),
  };
}

