/**
 * fast-check generators for CSP documents and inputs, shared by the property tests. Test support
 * only: nothing outside *.test.ts imports this file.
 */
import fc from 'fast-check';
import { SEED_BLOCKS } from './fixtures/seed-examples.js';
import type { CspBody, CspDocument, FileOp, PatchOp, PlanStep } from './types.js';

const idArb = fc.stringMatching(/^[A-Za-z0-9_][A-Za-z0-9_.:@/#+-]{0,12}$/);
const nameArb = fc.stringMatching(/^[A-Z][A-Z0-9_]{0,10}$/);
/** One-line text; includes the characters CSP uses as separators. */
const textArb = fc.stringMatching(/^[A-Za-z0-9<>=:;,./!?'"()[\]{}@#-]([A-Za-z0-9 <>=:;,./!?'"()[\]{}@#\t-]{0,40}[A-Za-z0-9<>=:;,./!?)\]}-])?$/);
const listArb = fc.array(fc.stringMatching(/^[^\s,]{1,12}$/), { minLength: 1, maxLength: 4 });
/** Any content at all, including CSP-looking lines and fence lines. */
const contentArb = fc.oneof(
  fc.string({ maxLength: 80 }),
  fc.array(fc.constantFrom('CSP/1', 'FROM X', '>>>', '<<<', '>>>END', '', ' ', 'DEF A = 1', 'PATCH P1', '\r', 'plain text'), { maxLength: 8 }).map((ls) => ls.join('\n')),
);

function uniqueBy<T>(arb: fc.Arbitrary<T>, key: (t: T) => string, min: number, max: number): fc.Arbitrary<T[]> {
  return fc.uniqueArray(arb, { minLength: min, maxLength: max, selector: key });
}

const taskArb: fc.Arbitrary<CspBody> = fc.record(
  { intent: fc.constant('TASK' as const), id: idArb, req: textArb, in: listArb, out: textArb, owner: idArb, priority: fc.constantFrom('P1' as const, 'P2' as const, 'P3' as const) },
  { requiredKeys: ['intent', 'id'] },
);
const resultArb: fc.Arbitrary<CspBody> = fc.record(
  { intent: fc.constant('RESULT' as const), id: idArb, status: fc.constantFrom('OK' as const, 'PARTIAL' as const, 'FAIL' as const), produced: listArb, data: fc.oneof(textArb, contentArb) },
  { requiredKeys: ['intent', 'id', 'status'] },
);
const errorArb: fc.Arbitrary<CspBody> = fc.record({ intent: fc.constant('ERROR' as const), id: idArb, at: idArb, cause: textArb, next: textArb }, { requiredKeys: ['intent', 'id', 'cause'] });
const patchOpArb: fc.Arbitrary<PatchOp> = fc.oneof(
  fc.record({ op: fc.constant('add' as const), name: nameArb, value: textArb }),
  fc.record({ op: fc.constant('change' as const), name: nameArb, value: textArb }),
  fc.record({ op: fc.constant('remove' as const), name: nameArb }),
);
const patchArb: fc.Arbitrary<CspBody> = fc
  .record({ id: idArb, n: fc.nat(50), ops: uniqueBy(patchOpArb, (o) => o.name, 1, 5) })
  .map(({ id, n, ops }) => ({ intent: 'PATCH' as const, id, base: `C${n}`, ops, target: `C${n + 1}` }));
const fileOpArb: fc.Arbitrary<FileOp> = fc
  .record({ id: idArb, op: fc.constantFrom('CREATE' as const, 'WRITE' as const, 'PATCH' as const, 'DELETE' as const, 'MOVE' as const), path: textArb, to: textArb, base: fc.option(idArb, { nil: undefined }), content: contentArb })
  .map(({ id, op, path, to, base, content }) => {
    const f: FileOp = { id, op, path };
    if (op === 'MOVE') f.to = to;
    if (base !== undefined) f.base = base;
    if (op === 'CREATE' || op === 'WRITE' || op === 'PATCH') f.content = content;
    return f;
  });
const fileArb: fc.Arbitrary<CspBody> = uniqueBy(fileOpArb, (f) => f.id, 1, 3).map((ops) => ({ intent: 'FILE' as const, ops }));
const planArb: fc.Arbitrary<CspBody> = fc
  .record({ id: idArb, goal: textArb, tasks: fc.uniqueArray(idArb, { minLength: 1, maxLength: 5 }), owners: fc.array(idArb, { minLength: 5, maxLength: 5 }), deps: fc.array(fc.nat(), { minLength: 5, maxLength: 5 }) })
  .map(({ id, goal, tasks, owners, deps }) => ({
    intent: 'PLAN' as const,
    id,
    goal,
    steps: tasks.map((task, i): PlanStep => {
      const d = (deps[i] as number) % (i + 1); // 0 = no AFTER, k = after the first k steps
      return d === 0 ? { task, owner: owners[i] as string } : { task, owner: owners[i] as string, after: tasks.slice(0, d) };
    }),
  }));
const queryArb: fc.Arbitrary<CspBody> = fc.record({ intent: fc.constant('QUERY' as const), id: idArb, ask: textArb, about: listArb }, { requiredKeys: ['intent', 'id', 'ask'] });
const memArb: fc.Arbitrary<CspBody> = fc
  .record({
    id: idArb,
    nodes: uniqueBy(fc.record({ name: nameArb, value: textArb }), (n) => n.name, 0, 4),
    edges: fc.array(fc.record({ from: nameArb, rel: nameArb, to: nameArb }), { maxLength: 4 }),
  })
  .filter((m) => m.nodes.length + m.edges.length > 0)
  .map((m) => ({ intent: 'MEM' as const, ...m }));

export const bodyArb: fc.Arbitrary<CspBody> = fc.oneof(taskArb, resultArb, errorArb, patchArb, fileArb, planArb, queryArb, memArb);

const tplTextArb = fc.stringMatching(/^[A-Za-z0-9<>,./_-]([A-Za-z0-9 <>,./_-]{0,20}[A-Za-z0-9<>,./_-])?$/);

/** Any valid CSP document, built as data (not as text). */
export const documentArb: fc.Arbitrary<CspDocument> = fc.oneof(
  fc.record({ kind: fc.constant('message' as const), from: idArb, to: idArb, ctx: idArb, body: bodyArb }).map((m) =>
    // A PATCH message's CTX is its BASE.
    m.body.intent === 'PATCH' ? { ...m, ctx: m.body.base } : m,
  ),
  fc.record({ kind: fc.constant('body' as const), body: bodyArb }),
  fc
    .record({
      defs: uniqueBy(fc.record({ name: nameArb, value: textArb }), (d) => d.name, 1, 6),
      split: fc.nat(5),
      laws: fc.array(textArb, { maxLength: 4 }),
    })
    .map(({ defs, split, laws }) => {
      const cut = Math.min(split, defs.length - 1);
      const groups = cut > 0 ? [defs.slice(0, cut), defs.slice(cut)] : [defs];
      const blocks: Extract<CspDocument, { kind: 'context' }>['blocks'] = groups.map((g) => ({ kind: 'defs' as const, defs: g }));
      if (laws.length > 0) blocks.push({ kind: 'laws', laws: laws.map((text, i) => ({ id: `L${i + 1}`, text })) });
      return { kind: 'context' as const, blocks };
    }),
  fc.record({
    kind: fc.constant('task_tpl' as const),
    directives: fc.array(fc.oneof(fc.record({ kind: fc.constant('not' as const), term: fc.stringMatching(/^[a-z]{1,8}$/) }), fc.record({ kind: fc.constant('only' as const), term: fc.stringMatching(/^[A-Z]{1,8}$/) })), { minLength: 1, maxLength: 3 }),
    task: fc.record({ req: tplTextArb, in: tplTextArb, out: tplTextArb }),
  }),
);

/** Valid texts to mutate: the seed's blocks plus one message of every intent. */
export const MUTATION_SEEDS: string[] = [
  ...SEED_BLOCKS.map((b) => b.text),
  'CSP/1\nFROM MAIN\nTO ALL\nCTX C2\nINTENT PLAN\n\nPLAN PL1\nGOAL ship the auth refactor\nSTEP T001 CODE_EXP\nSTEP T002 CODER AFTER T001\n',
  'CSP/1\nFROM CODER\nTO CODE_EXP\nCTX C1\nINTENT QUERY\n\nQUERY Q001\nASK which module owns token refresh?\nABOUT SRC,AUTH_MW\n',
  'CSP/1\nFROM CODE_EXP\nTO MAIN\nCTX C1\nINTENT MEM\n\nMEM M001\nNODE AUTH_MW = src/middleware/auth.ts:24-67\nEDGE AUTH_MW USES JWT\n',
  'CSP/1\nFROM CODER\nTO MAIN\nCTX C3\nINTENT FILE\n\nFILEOP F001 DELETE\nPATH old.ts\n\nFILEOP F002 CREATE\nPATH new.ts\nCONTENT\n<<<END\nCSP/1\n>>>\n>>>END\n',
  'CSP/1\nFROM MAIN\nTO ALL\nCTX C0\nINTENT PATCH\n\nPATCH P1\nBASE C0\n+ DEF AUTH_MW = src/middleware/auth.ts\n~ DEF SRC := src/app/\n- DEF LIB\nAPPLY -> C1\n',
  'CSP/1\nFROM CODE_EXP\nTO MAIN\nCTX C0\nINTENT RESULT\n\nRESULT T001\nSTATUS PARTIAL\nDATA\n<<<\nline one\nline two\n>>>\n',
];

/** One edit of a text: the kinds of damage a model or a transport does to a message. */
export const mutationArb: fc.Arbitrary<(t: string) => string> = fc.oneof(
  fc.nat().map((i) => (t: string) => {
    const ls = t.split('\n');
    ls.splice(i % ls.length, 1);
    return ls.join('\n');
  }),
  fc.nat().map((i) => (t: string) => {
    const ls = t.split('\n');
    const k = i % ls.length;
    ls.splice(k, 0, ls[k] as string);
    return ls.join('\n');
  }),
  fc.tuple(fc.nat(), fc.nat()).map(([i, j]) => (t: string) => {
    const ls = t.split('\n');
    const a = i % ls.length;
    const b = j % ls.length;
    [ls[a], ls[b]] = [ls[b] as string, ls[a] as string];
    return ls.join('\n');
  }),
  fc.tuple(fc.nat(), fc.string({ maxLength: 6 })).map(([i, s]) => (t: string) => {
    const k = i % (t.length + 1);
    return t.slice(0, k) + s + t.slice(k);
  }),
  fc.tuple(fc.nat(), fc.string({ minLength: 1, maxLength: 1, unit: 'binary' })).map(([i, s]) => (t: string) => {
    if (t.length === 0) return s;
    const k = i % t.length;
    return t.slice(0, k) + s + t.slice(k + 1);
  }),
  fc.nat().map((i) => (t: string) => t.slice(0, i % (t.length + 1))),
  fc.nat().map((i) => (t: string) => {
    const k = i % (t.length + 1);
    return t.slice(0, k) + t.slice(k + 1);
  }),
  fc.constantFrom(
    (t: string) => t.replace(/\n/g, '\r\n'),
    (t: string) => t.toLowerCase(),
    (t: string) => t.replace(/ /g, '  '),
    (t: string) => `${t}\n\n`,
    (t: string) => `\n${t}`,
    (t: string) => t.replace(/>>>/g, ''),
    (t: string) => t.replace('<<<', '<<<x y'),
    (t: string) => `\uFEFF${t}`,
  ),
  fc.tuple(fc.nat(), fc.constantFrom(...SEED_BLOCKS.map((b) => b.text))).map(([i, other]) => (t: string) => {
    const ls = t.split('\n');
    const os = other.split('\n');
    ls.splice(i % ls.length, 0, os[i % os.length] as string);
    return ls.join('\n');
  }),
);

/** Texts built from CSP's own words in random order: near misses rather than noise. */
export const wordSaladArb: fc.Arbitrary<string> = fc
  .array(
    fc.constantFrom('CSP/1', 'CSP/1;', 'FROM', 'TO', 'CTX', 'INTENT', 'TASK', 'RESULT', 'ERROR', 'PATCH', 'FILEOP', 'PLAN', 'QUERY', 'MEM', 'DEF', 'LAWS', 'STATUS', 'OK', 'BASE', 'C0', 'C1', 'APPLY', '->', '+', '~', '-', '=', ':=', '<<<', '>>>', 'CONTENT', 'PATH', 'STEP', 'NODE', 'EDGE', 'REQ:', 'IN:', 'OUT:', 'RESULT{', '}', '[', ']', ';', ',', ' ', ' ', '\n', '\n', '\n\n', '\r', '\t', 'T001', 'MAIN', 'x'),
    { maxLength: 60 },
  )
  .map((ws) => ws.join(''));
