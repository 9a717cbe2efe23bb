/**
 * Reading GSD planning files: PLAN.md and SUMMARY.md frontmatter and bodies, in every shape the
 * workflow has produced over its versions (three YAML list styles, quoted or bare numbers, hyphen
 * and underscore key spellings, nested `dependency_graph`, missing frontmatter, CRLF, a BOM,
 * Markdown-heading plans without XML blocks). Everything here is pure: text in, records out. A
 * malformed file never throws; what could not be read is returned as an `issue` for the report.
 */
import { parseDocument } from 'yaml';

/** LF line ends, no BOM: every parser below sees the same text whatever the editor wrote. */
export function normalizeText(text: string): string {
  return text.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n');
}

export interface Frontmatter {
  /** Parsed mapping (empty when absent or unreadable). */
  data: Record<string, unknown>;
  /** Text after the frontmatter (the whole text when there is none). */
  body: string;
  present: boolean;
  /** Set when a frontmatter block exists but is not valid YAML (only its readable keys were taken). */
  error?: string;
  /** Top-level keys whose YAML could not be read: nothing was taken from them. */
  unreadable?: string[];
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function parseYaml(text: string): { ok: true; value: unknown } | { ok: false; error: string } {
  try {
    const doc = parseDocument(text, { uniqueKeys: false, prettyErrors: false });
    if (doc.errors.length) return { ok: false, error: firstLine(doc.errors[0]?.message ?? 'invalid YAML') };
    return { ok: true, value: doc.toJS({ maxAliasCount: 100 }) };
  } catch (e) {
    return { ok: false, error: firstLine((e as Error).message) };
  }
}

/**
 * Split `---` frontmatter from the body. Leading blank lines are tolerated; the block closes with
 * `---` or `...`. When the YAML is invalid, each top-level key is read on its own (a key line and
 * its indented continuation are a complete YAML document): keys that parse are taken exactly as
 * written, keys that do not are listed in `unreadable` and nothing is guessed from them, so one
 * stray colon in must_haves neither loses the plan's wave nor invents truths.
 */
export function splitFrontmatter(raw: string): Frontmatter {
  const text = normalizeText(raw);
  const lines = text.split('\n');
  let start = 0;
  while (start < lines.length && lines[start]?.trim() === '') start++;
  if (lines[start]?.trim() !== '---') return { data: {}, body: text, present: false };
  let end = -1;
  for (let i = start + 1; i < lines.length; i++) {
    const l = lines[i]?.trimEnd();
    if (l === '---' || l === '...') {
      end = i;
      break;
    }
  }
  if (end === -1) return { data: {}, body: text, present: false, error: 'frontmatter opened with --- but never closed' };
  const yamlLines = lines.slice(start + 1, end);
  const body = lines.slice(end + 1).join('\n');
  const whole = parseYaml(yamlLines.join('\n'));
  if (whole.ok) {
    if (whole.value === null || whole.value === undefined) return { data: {}, body, present: true };
    if (isRecord(whole.value)) return { data: whole.value, body, present: true };
    return { data: {}, body, present: true, error: 'frontmatter is not a key: value mapping', unreadable: [] };
  }
  const { data, unreadable } = readKeyByKey(yamlLines);
  return { data, body, present: true, error: whole.error, unreadable };
}

function firstLine(s: string): string {
  return s.split('\n')[0] ?? s;
}

function unquote(s: string): string {
  const t = s.trim();
  if (t.length >= 2 && ((t.startsWith('"') && t.endsWith('"')) || (t.startsWith("'") && t.endsWith("'")))) return t.slice(1, -1);
  return t;
}

/** Parse each top-level key block of a broken frontmatter separately; see splitFrontmatter. */
function readKeyByKey(lines: string[]): { data: Record<string, unknown>; unreadable: string[] } {
  const blocks: { key: string; lines: string[] }[] = [];
  let orphan = false;
  for (const line of lines) {
    const top = /^([^\s#:][^:]*?)\s*:(?:\s|$)/.exec(line);
    if (top && !/^\s/.test(line) && !line.startsWith('- ')) blocks.push({ key: (top[1] as string).trim(), lines: [line] });
    else if (blocks.length) (blocks[blocks.length - 1] as { lines: string[] }).lines.push(line);
    else if (line.trim() !== '' && !line.trim().startsWith('#')) orphan = true;
  }
  const data: Record<string, unknown> = {};
  const unreadable: string[] = [];
  if (orphan) unreadable.push('(lines before the first key)');
  for (const b of blocks) {
    const r = parseYaml(b.lines.join('\n'));
    if (r.ok && isRecord(r.value) && Object.keys(r.value).length === 1) Object.assign(data, r.value);
    else unreadable.push(b.key);
  }
  return { data, unreadable };
}

/** Look a key up under its hyphen, underscore and camel spellings (`key-files`, `key_files`, `keyFiles`). */
export function pick(data: Record<string, unknown> | undefined, ...names: string[]): unknown {
  if (!data) return undefined;
  const want = new Set(names.map(canonicalKey));
  for (const [k, v] of Object.entries(data)) if (want.has(canonicalKey(k))) return v;
  return undefined;
}

function canonicalKey(k: string): string {
  return k.toLowerCase().replace(/[-_\s]/g, '');
}

/** One line of printable text: what a symbol value or a capsule field may hold. */
export function oneLine(value: string, max = 4000): string {
  // eslint-disable-next-line no-control-regex
  const s = value.replace(/[\u0000-\u001f\u007f]+/g, ' ').replace(/\s+/g, ' ').trim();
  return s.length > max ? `${s.slice(0, max - 1).trimEnd()}…` : s;
}

/** Render any YAML value as one short line (objects as `k: v; k: v`). */
export function scalarText(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return v.map(scalarText).filter(Boolean).join(', ');
  if (isRecord(v)) {
    return Object.entries(v)
      .map(([k, x]) => `${k}: ${scalarText(x)}`)
      .join('; ');
  }
  return String(v);
}

/**
 * A list in any of YAML's shapes (block, flow, a single scalar) or a comma-separated string, as
 * trimmed strings; nulls and empty items are dropped.
 */
export function asList(v: unknown): string[] {
  if (v === null || v === undefined || v === '') return [];
  if (Array.isArray(v)) return v.flatMap((x) => (Array.isArray(x) ? asList(x) : [scalarText(x).trim()])).filter((s) => s !== '');
  if (typeof v === 'string') {
    const t = v.trim();
    if (t.startsWith('[') && t.endsWith(']')) return asList(t.slice(1, -1));
    return t
      .split(/[,\n]/)
      .map(unquote)
      .filter((s) => s !== '');
  }
  if (isRecord(v)) return Object.values(v).flatMap(asList);
  return [scalarText(v)];
}

// ---------------------------------------------------------------------------------------------
// Plan ids

/** A plan reference as numbers: phase "02.1" and plan "3" compare equal to "2.1" and "03". */
export interface PlanRef {
  phase: string;
  plan: string;
}

/** A phase or plan number without its zero padding, a letter kept in lower case: `02A` -> `2a`, `04.1` -> `4.1`. */
export function numKey(s: string): string {
  return s
    .split('.')
    .map((p) => {
      const m = /^0*(\d+)([A-Za-z]*)$/.exec(p.trim());
      return m ? `${m[1] as string}${(m[2] as string).toLowerCase()}` : p.trim().toLowerCase();
    })
    .join('.');
}

/** Canonical key of a phase/plan pair, insensitive to zero padding. */
export function refKey(r: PlanRef): string {
  return `${numKey(r.phase)}-${numKey(r.plan)}`;
}

// A plan number may carry a letter (03-05b, a plan inserted after 03-05), and so may a phase's
// (02A-01, a phase split from phase 02).
const PLAN_FILE = /^(\d+(?:\.\d+)*[a-z]?)-(\d+[a-z]?)(?:-[A-Za-z0-9_.-]+?)?-PLAN\.md$/i;
const SUMMARY_FILE = /^(\d+(?:\.\d+)*[a-z]?)-(\d+[a-z]?)(?:-[A-Za-z0-9_.-]+?)?-SUMMARY\.md$/i;

/** The phase number a name begins with, its letter kept (`02A-infra` -> `02A`, `04.1-x` -> `04.1`, `2-auth` -> `2`). */
export function leadingPhase(s: string): string | undefined {
  return /^(\d+(?:\.\d+)*(?:[A-Za-z](?![A-Za-z]))?)/.exec(s)?.[1];
}

/** `01-02-PLAN.md` -> {phase "01", plan "02"}; `03-05b-PLAN.md` -> plan "05b"; anything else (PAPER_TRADING_PLAN.md) -> undefined. */
export function planFileRef(name: string): PlanRef | undefined {
  const m = PLAN_FILE.exec(name);
  return m ? { phase: m[1] as string, plan: m[2] as string } : undefined;
}

export function summaryFileRef(name: string): PlanRef | undefined {
  const m = SUMMARY_FILE.exec(name);
  return m ? { phase: m[1] as string, plan: m[2] as string } : undefined;
}

/**
 * Read one `depends_on` entry: "01-01", 1-1, "01-01-PLAN.md", "Plan 01-01", "phase 1 plan 2", or a
 * bare plan number ("01", 2) meaning a plan of the same phase. Undefined when nothing fits.
 */
export function parseDependency(entry: string, samePhase: string): PlanRef | undefined {
  const s = entry.trim();
  const pair = /(\d+(?:\.\d+)*)\D{1,12}?(\d+[a-z]?)(?![A-Za-z])/.exec(s) ?? /(\d+(?:\.\d+)*)\D{1,12}?(\d+)/.exec(s);
  if (pair && !/^\d+[a-z]?$/i.test(s)) return { phase: pair[1] as string, plan: pair[2] as string };
  const bare = /^(?:plan\s*)?(\d+[a-z]?)$/i.exec(s);
  if (bare) return { phase: samePhase, plan: bare[1] as string };
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// Bodies: XML-ish blocks and Markdown sections

/** Content of the first `<tag ...>...</tag>` block (opening tag at a line start), or undefined. */
export function xmlBlock(body: string, tag: string): string | undefined {
  const open = new RegExp(`^[ \\t]*<${tag}(?:\\s[^>]*)?>`, 'im').exec(body);
  if (!open) return undefined;
  const from = open.index + open[0].length;
  const close = body.toLowerCase().indexOf(`</${tag.toLowerCase()}>`, from);
  return close === -1 ? body.slice(from) : body.slice(from, close);
}

/** Remove every `<tag>...</tag>` block (opening tag at a line start), tags included. */
export function stripXmlBlock(body: string, tag: string): string {
  let out = body;
  for (let guard = 0; guard < 50; guard++) {
    const open = new RegExp(`^[ \\t]*<${tag}(?:\\s[^>]*)?>`, 'im').exec(out);
    if (!open) break;
    const close = out.toLowerCase().indexOf(`</${tag.toLowerCase()}>`, open.index + open[0].length);
    const end = close === -1 ? out.length : close + tag.length + 3;
    out = out.slice(0, open.index) + out.slice(end);
  }
  return out;
}

/** Every `<task ...>...</task>` element, and every `<feature>` element of GSD's TDD plans, in order. */
export function taskElements(body: string): string[] {
  const out: { at: number; text: string }[] = [];
  for (const tag of ['task', 'feature']) {
    const re = new RegExp(`<${tag}(?:\\s[^>]*)?>[\\s\\S]*?</${tag}>`, 'gi');
    for (const m of body.matchAll(re)) out.push({ at: m.index ?? 0, text: m[0] });
  }
  return out.sort((a, b) => a.at - b.at).map((x) => x.text);
}

/** The Markdown section under the first heading whose title matches (up to the next heading of the same or a higher level). */
export function mdSection(body: string, title: RegExp): string | undefined {
  const lines = body.split('\n');
  let fence = false;
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i] as string;
    if (/^\s*(```|~~~)/.test(l)) fence = !fence;
    if (fence) continue;
    const h = /^(#{1,6})\s+(.*)$/.exec(l);
    if (!h || !title.test((h[2] as string).trim())) continue;
    const level = (h[1] as string).length;
    let j = i + 1;
    let f2 = false;
    for (; j < lines.length; j++) {
      const x = lines[j] as string;
      if (/^\s*(```|~~~)/.test(x)) f2 = !f2;
      if (f2) continue;
      const h2 = /^(#{1,6})\s/.exec(x);
      if (h2 && (h2[1] as string).length <= level) break;
    }
    return lines.slice(i, j).join('\n');
  }
  return undefined;
}

/**
 * An `@path` reference as GSD writes them in `<context>`: on its own line (optionally bulleted,
 * optionally followed by a note), or an `@.planning/...` anywhere in a sentence. Lines inside code
 * fences are ignored (a Python decorator is not a reference). Returns the paths, in order.
 */
export function contextRefs(block: string): { refs: string[]; refLines: Set<number> } {
  const refs: string[] = [];
  const refLines = new Set<number>();
  const lines = block.split('\n');
  let fence = false;
  lines.forEach((line, i) => {
    if (/^\s*(```|~~~)/.test(line)) {
      fence = !fence;
      return;
    }
    if (fence) return;
    const own = /^\s*(?:[-*]\s+)?@([^\s`'"<>()[\],]+)(?:\s.*)?$/.exec(line);
    if (own && isPathLike(own[1] as string)) {
      refs.push(cleanRef(own[1] as string));
      refLines.add(i);
      return;
    }
    for (const m of line.matchAll(/(?:^|[\s(`'"])@((?:\.\/)?\.planning\/[^\s`'"<>()[\],]+)/g)) refs.push(cleanRef(m[1] as string));
  });
  return { refs, refLines };
}

function cleanRef(s: string): string {
  return s.replace(/\\/g, '/').replace(/[.:;]+$/, '').replace(/^\.\//, '');
}

/** Looks like a file path: has a slash, or ends in an extension. */
export function isPathLike(s: string): boolean {
  if (!s || /\s/.test(s) || /^[a-z]+:\/\//i.test(s)) return false;
  return s.includes('/') || /\.[A-Za-z0-9]{1,8}$/.test(s);
}

function stripPathNotes(raw: string): string {
  let s = raw.trim().replace(/^[`'"]+|[`'"]+$/g, '');
  s = s.replace(/\s+\((?:new|created|modified|updated|deleted|optional)[^)]*\)$/i, '');
  s = s.replace(/\s+[-—–]\s+.*$/, '');
  return s.replace(/^\.\//, '').trim();
}

/** Normalize a path as plans write it: no backticks or quotes, no ./ prefix, no "(new)" note. */
export function cleanPath(raw: string): string | undefined {
  const s = stripPathNotes(raw);
  if (!s || s.length > 400 || /\s/.test(s) || !isPathLike(s) || /[<>|*]/.test(s)) return undefined;
  return s;
}

/**
 * A path from a list that declares paths (files_modified, key-files, artifacts): also accepts names
 * without a slash or an extension (Dockerfile, Makefile, LICENSE), which prose could not be trusted with.
 */
export function cleanDeclaredPath(raw: string): string | undefined {
  const p = cleanPath(raw);
  if (p) return p;
  const s = stripPathNotes(raw);
  return /^[A-Za-z0-9_.][A-Za-z0-9_.-]{0,99}$/.test(s) && !/^(none|n\/a|tbd|-+)$/i.test(s) ? s : undefined;
}

// ---------------------------------------------------------------------------------------------
// PLAN.md

export interface MustHaveArtifact {
  path?: string;
  /** The other keys (provides, exports, min_lines, contains, ...), as one line each. */
  fields: [string, string][];
}

export interface MustHaveLink {
  from?: string;
  to?: string;
  fields: [string, string][];
}

export interface PlanRead {
  /** The path as written, cleaned of `@`, quotes, backticks and a leading `./`. */
  path: string;
  via: 'context' | 'inline' | 'read_first';
  /** What the plan says beside the path (a parenthetical or a trailing note), if anything. */
  note?: string;
}

export interface ParsedPlan {
  frontmatter: Frontmatter;
  phase?: string;
  plan?: string;
  /** `plan_id:` as written (`05-W1`, `04.5-03-W1`): a plan's full id, where its file name does not give it. */
  planId?: string;
  wave?: number;
  type?: string;
  autonomous?: boolean;
  dependsOn: string[];
  filesModified: string[];
  requirements: string[];
  truths: string[];
  artifacts: MustHaveArtifact[];
  keyLinks: MustHaveLink[];
  /** Frontmatter keys not modelled above (user_setup, gap_closure, ...) with their values. */
  extra: [string, unknown][];
  /** must_haves keys other than truths/artifacts/key_links. */
  mustExtra: [string, unknown][];
  hasContextBlock: boolean;
  /** `@` references of the context block (or of a "## Context" section when there is no block). */
  contextRefs: string[];
  /** Paths in tasks' `<files>` and `<read_first>` elements. */
  taskPaths: string[];
  /** Paths the tasks' `<files>` elements name (what the plan writes, with files_modified). */
  taskFiles: string[];
  /**
   * Everything the plan tells its executor to read, in order: `@` references of `<context>`, `@`
   * references elsewhere in the body (outside code), and the items of `<read_first>` /
   * `<files_to_read>` elements, each with the note written beside it (`(Pattern 1, anti-patterns)`).
   */
  reads: PlanRead[];
  /** `@` references of `<execution_context>`: the GSD workflow files, not part of the project. */
  workflowRefs: string[];
  /** `<objective>` (or an Objective/Goal section) and `<tasks>` (or the task elements / a Tasks section). */
  objective?: string;
  tasks?: string;
  title?: string;
}

const KNOWN_PLAN_KEYS = new Set([
  'phase',
  'plan',
  'wave',
  'type',
  'autonomous',
  'dependson',
  'depends',
  'filesmodified',
  'files',
  'requirements',
  'requirementsaddressed',
  'requirementscovered',
  'musthaves',
]);

function toInt(v: unknown): number | undefined {
  if (typeof v === 'number' && Number.isInteger(v) && v >= 0) return v;
  if (typeof v === 'string' && /^\s*\d+\s*$/.test(v)) return Number.parseInt(v, 10);
  return undefined;
}

function fieldsOf(obj: Record<string, unknown>, skip: string[]): [string, string][] {
  return Object.entries(obj)
    .filter(([k]) => !skip.includes(k))
    .map(([k, v]) => [k, oneLine(scalarText(v), 600)] as [string, string])
    .filter(([, v]) => v !== '');
}

function readMustHaves(v: unknown, out: ParsedPlan): void {
  if (v === null || v === undefined) return;
  if (Array.isArray(v) || typeof v === 'string') {
    out.truths.push(...asList(v).map((t) => oneLine(t)));
    return;
  }
  if (!isRecord(v)) return;
  for (const [k, x] of Object.entries(v)) {
    const ck = canonicalKey(k);
    if (ck === 'truths') out.truths.push(...asList(x).map((t) => oneLine(t)).filter(Boolean));
    else if (ck === 'artifacts') {
      for (const a of Array.isArray(x) ? x : x ? [x] : []) {
        if (isRecord(a)) out.artifacts.push({ path: cleanDeclaredPath(scalarText(a.path)), fields: fieldsOf(a, ['path']) });
        else if (typeof a === 'string') out.artifacts.push({ path: cleanPath(a), fields: cleanPath(a) ? [] : [['note', oneLine(a)]] });
      }
    } else if (ck === 'keylinks') {
      for (const l of Array.isArray(x) ? x : x ? [x] : []) {
        if (isRecord(l)) out.keyLinks.push({ from: scalarText(l.from).trim() || undefined, to: scalarText(l.to).trim() || undefined, fields: fieldsOf(l, ['from', 'to']) });
        else if (typeof l === 'string') out.keyLinks.push({ fields: [['link', oneLine(l)]] });
      }
    } else out.mustExtra.push([k, x]);
  }
}

/** Paths listed in one `<files>` or `<read_first>` element: comma, newline or bullet separated. */
function listedPaths(text: string): string[] {
  return text
    .split(/[,\n]/)
    .map((s) => s.replace(/^\s*[-*]\s+/, ''))
    .map((s) => cleanPath(s))
    .filter((s): s is string => s !== undefined);
}

export function parsePlan(raw: string): ParsedPlan {
  const fm = splitFrontmatter(raw);
  const d = fm.data;
  const out: ParsedPlan = {
    frontmatter: fm,
    dependsOn: [],
    filesModified: [],
    requirements: [],
    truths: [],
    artifacts: [],
    keyLinks: [],
    extra: [],
    mustExtra: [],
    hasContextBlock: false,
    contextRefs: [],
    taskPaths: [],
    taskFiles: [],
    reads: [],
    workflowRefs: [],
  };
  const phase = scalarText(pick(d, 'phase')).trim();
  if (phase) out.phase = phase;
  const plan = scalarText(pick(d, 'plan')).trim();
  if (plan) out.plan = plan;
  const planId = scalarText(pick(d, 'plan_id')).trim();
  if (planId) out.planId = planId;
  out.wave = toInt(pick(d, 'wave'));
  const type = scalarText(pick(d, 'type')).trim();
  if (type) out.type = type;
  const auto = pick(d, 'autonomous');
  if (typeof auto === 'boolean') out.autonomous = auto;
  else if (typeof auto === 'string' && /^(true|false)$/i.test(auto.trim())) out.autonomous = auto.trim().toLowerCase() === 'true';
  out.dependsOn = asList(pick(d, 'depends_on', 'depends'));
  out.filesModified = [...new Set(asList(pick(d, 'files_modified', 'files')).map(cleanDeclaredPath).filter((s): s is string => !!s))];
  out.requirements = [...new Set(asList(pick(d, 'requirements', 'requirements_addressed', 'requirements_covered')).map((r) => oneLine(r, 200)).filter(Boolean))];
  readMustHaves(pick(d, 'must_haves'), out);
  for (const [k, v] of Object.entries(d)) if (!KNOWN_PLAN_KEYS.has(canonicalKey(k))) out.extra.push([k, v]);

  const body = fm.body;
  const ctxBlock = xmlBlock(body, 'context');
  out.hasContextBlock = ctxBlock !== undefined;
  const ctxText = ctxBlock ?? mdSection(body, /^context\b/i);
  if (ctxText !== undefined) out.contextRefs = [...new Set(contextRefs(ctxText).refs)];

  const tasksBlock = xmlBlock(body, 'tasks');
  const elements = taskElements(body);
  out.tasks = tasksBlock ?? (elements.length ? elements.join('\n\n') : mdSection(body, /^tasks?\b/i));
  out.objective = xmlBlock(body, 'objective') ?? mdSection(body, /^(objective|goals?|purpose)\b/i);
  for (const t of elements) {
    for (const tag of ['files', 'read_first']) {
      for (const m of t.matchAll(new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`, 'gi'))) out.taskPaths.push(...listedPaths(m[1] as string));
    }
  }
  out.taskPaths = [...new Set(out.taskPaths)];
  for (const t of elements) for (const m of t.matchAll(/<files>([\s\S]*?)<\/files>/gi)) out.taskFiles.push(...listedPaths(m[1] as string));
  out.taskFiles = [...new Set(out.taskFiles)];
  out.workflowRefs = [...new Set(contextRefs(xmlBlock(body, 'execution_context') ?? '').refs)];
  out.reads = planReads(body, ctxText);
  const h1 = /^#\s+(.+)$/m.exec(body);
  const objLine = out.objective
    ?.split('\n')
    .map((l) => l.trim())
    .find((l) => l !== '' && !l.startsWith('#'));
  const title = h1?.[1] ?? objLine;
  if (title) out.title = oneLine(title, 200);
  return out;
}

/** Split a list line on commas outside parentheses, brackets and backticks. */
function splitTopLevel(line: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let tick = false;
  let cur = '';
  for (const c of line) {
    if (c === '`') tick = !tick;
    else if (!tick && (c === '(' || c === '[')) depth++;
    else if (!tick && (c === ')' || c === ']')) depth = Math.max(0, depth - 1);
    if (c === ',' && depth === 0 && !tick) {
      out.push(cur);
      cur = '';
    } else cur += c;
  }
  out.push(cur);
  return out;
}

/**
 * One item of a read list (`- path (note)`, `@path — note`, `` `path`: note ``): the path and the
 * note beside it. Undefined when the item does not start with a path.
 */
export function readItem(raw: string): { path: string; note?: string } | undefined {
  const s = raw.replace(/^\s*(?:[-*+]|\d+[.)])\s+/, '').trim();
  // A Windows drive (`G:/AI/app/.planning/ROADMAP.md`) begins the path: its colon does not end it.
  const m = /^@?[`'"]?@?((?:\.\/|[A-Za-z]:[\\/])?[^\s`'"<>()[\],]+?)[`'"]?(?=$|[\s:(,—–])(.*)$/.exec(s);
  if (!m) return undefined;
  const written = (m[1] as string).replace(/\\/g, '/').replace(/[.:;]+$/, '');
  // A glob (`*-SUMMARY.md`) is a reference too: clean it as a path with its wildcards masked.
  const masked = cleanPath(written.replace(/\*/g, '\u0001').replace(/\?/g, '\u0002'));
  const p = masked?.replace(/\u0001/g, '*').replace(/\u0002/g, '?');
  if (!p) return undefined;
  const note = (m[2] as string)
    .trim()
    .replace(/^[:—–-]\s*/, '')
    .replace(/^\((.*)\)$/, '$1')
    .trim();
  return note ? { path: p, note } : { path: p };
}

/** The items of every `<read_first>` / `<files_to_read>` element of a body, in order. */
function readFirstItems(body: string): { path: string; note?: string }[] {
  const out: { path: string; note?: string }[] = [];
  for (const m of body.matchAll(/<(read_first|files_to_read)>([\s\S]*?)<\/\1>/gi)) {
    for (const line of (m[2] as string).split('\n')) {
      if (!line.trim()) continue;
      // "a.md, b.md" on one line is two items; "a.md (x, y)" is one item with a note.
      const parts = /^\s*(?:[-*+]|\d+[.)])\s+/.test(line) ? [line] : splitTopLevel(line);
      for (const part of parts) {
        const item = readItem(part);
        if (!item) continue;
        out.push(item);
        // Another document the item's note sends the executor to ("06-UI-SPEC.md (... see STATE.md
        // Todos)") is a read of its own, with what follows its name as its note.
        for (const m of (item.note ?? '').matchAll(/(?:^|[\s`'"(@])((?:\.\/)?[A-Za-z0-9_.-]+(?:\/[A-Za-z0-9_.-]+)*\.md)\b`?([^;)]*)/g)) {
          const p = cleanPath(m[1] as string);
          if (!p || p === item.path) continue;
          const note = (m[2] as string).replace(/^[\s:,—–-]+/, '').trim();
          out.push(note ? { path: p, note } : { path: p });
        }
      }
    }
  }
  return out;
}

/** `@` references outside the context block, the execution context and code: inline mentions such as "see @.planning/x.md". */
function inlineRefs(body: string): { path: string; note?: string }[] {
  let text = stripXmlBlock(stripXmlBlock(body, 'execution_context'), 'context');
  text = text.replace(/<(read_first|files_to_read)>[\s\S]*?<\/\1>/gi, '');
  const out: { path: string; note?: string }[] = [];
  let fence = false;
  for (const line of text.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) {
      fence = !fence;
      continue;
    }
    if (fence) continue;
    const bare = line.replace(/`[^`]*`/g, (c) => (/^`@/.test(c) ? c.slice(1, -1) : ' '));
    for (const m of bare.matchAll(/(?:^|[\s(\['"])@((?:\.{1,2}\/|~\/|\/)?[A-Za-z0-9_.-]+\/[^\s`'"<>()[\],]*)/g)) {
      const p = cleanPath((m[1] as string).replace(/[.:;]+$/, ''));
      // A file (`@src/api.ts`), a folder (`@src/lib/`) or a planning document; not a package name or
      // an import alias written in prose (`@slack/webhook`, `"@/lib/api"`), which names no file, nor a
      // package pinned to a version (`@clerk/nextjs@^6.39.0`, `@scope/pkg@latest`).
      if (!p || /@(?:[\^~<>=]*v?\d|latest$|next$)/.test(p)) continue;
      if (/\.[A-Za-z0-9]{1,8}$/.test(p) || p.endsWith('/') || p.startsWith('.planning/')) out.push({ path: p });
    }
  }
  return out;
}

/** Everything a plan body tells its executor to read (see ParsedPlan.reads). */
export function planReads(body: string, contextText: string | undefined): PlanRead[] {
  const out: PlanRead[] = [];
  const seen = new Map<string, PlanRead>();
  const add = (path: string, via: PlanRead['via'], note?: string) => {
    const key = `${via}\u0000${path}`;
    const prev = seen.get(key);
    if (prev) {
      if (note && !prev.note?.includes(note)) prev.note = prev.note ? `${prev.note}; ${note}` : note;
      return;
    }
    const r: PlanRead = note ? { path, via, note } : { path, via };
    seen.set(key, r);
    out.push(r);
  };
  if (contextText !== undefined) {
    let fence = false;
    for (const line of contextText.split('\n')) {
      if (/^\s*(```|~~~)/.test(line)) {
        fence = !fence;
        continue;
      }
      if (fence) continue;
      const own = /^\s*(?:[-*]\s+)?@([^\s`'"<>()[\],]+)(.*)$/.exec(line);
      if (own && isPathLike(own[1] as string)) {
        const item = readItem(`@${own[1] as string}${own[2] as string}`);
        if (item) add(item.path, 'context', item.note);
        continue;
      }
      for (const m of line.matchAll(/(?:^|[\s(`'"])@((?:\.\/)?\.planning\/[^\s`'"<>()[\],]+)/g)) {
        const p = cleanPath((m[1] as string).replace(/\\/g, '/').replace(/[.:;]+$/, ''));
        if (p) add(p, 'context');
      }
    }
  }
  for (const r of inlineRefs(body)) add(r.path, 'inline', r.note);
  for (const r of readFirstItems(body)) add(r.path, 'read_first', r.note);
  return out;
}

// ---------------------------------------------------------------------------------------------
// SUMMARY.md

export interface ParsedSummary {
  frontmatter: Frontmatter;
  phase?: string;
  plan?: string;
  title?: string;
  oneLiner?: string;
  requires: string[];
  provides: string[];
  affects: string[];
  keyFiles: string[];
  decisions: string[];
  gotcha?: string;
}

function graphList(d: Record<string, unknown>, key: string): string[] {
  const direct = pick(d, key);
  const graph = pick(d, 'dependency_graph', 'dependencies');
  const nested = isRecord(graph) ? pick(graph, key) : undefined;
  return [...asList(direct), ...asList(nested)].map((s) => oneLine(s, 400)).filter(Boolean);
}

function keyFiles(v: unknown): string[] {
  const out: string[] = [];
  const visit = (x: unknown) => {
    if (Array.isArray(x)) x.forEach(visit);
    else if (isRecord(x)) Object.values(x).forEach(visit);
    else if (typeof x === 'string') {
      for (const part of x.split(',')) {
        const p = cleanDeclaredPath(part);
        if (p) out.push(p);
      }
    }
  };
  visit(v);
  return [...new Set(out)];
}

function decisionText(v: unknown): string[] {
  if (v === null || v === undefined) return [];
  if (Array.isArray(v)) return v.flatMap(decisionText);
  if (isRecord(v)) {
    const main = pick(v, 'decision', 'what', 'choice', 'summary');
    return [oneLine(main !== undefined ? scalarText(main) : scalarText(v), 600)].filter(Boolean);
  }
  return asList(v).map((s) => oneLine(s, 600));
}

const NOTHING = /^(none|n\/a|nothing|no (deviations|issues)|-+)\b/i;

/** A line of a summary's section as text: its list marker and bold dropped. */
function itemText(line: string): string {
  return line
    .replace(/^\s*(?:[-*]|\d+\.)\s+/, '')
    .replace(/\*\*/g, '')
    .trim();
}

/** A trimmed line that is prose, not blank, a heading, a table row or a code fence. */
const isProse = (t: string) => t !== '' && !t.startsWith('#') && !t.startsWith('|') && !/^```/.test(t);

/** First meaningful line under the sections where GSD records surprises. */
function firstGotcha(body: string): string | undefined {
  for (const title of [/^deviations?\b/i, /^issues\b/i, /^(known issues|gotchas?|concerns|blockers|problems)\b/i]) {
    const sec = mdSection(body, title);
    if (!sec) continue;
    for (const line of sec.split('\n').slice(1)) {
      const t = itemText(line);
      if (!t || t.startsWith('#') || /^```/.test(t) || NOTHING.test(t)) continue;
      return oneLine(t, 300);
    }
  }
  return undefined;
}

/**
 * The decisions a summary records in its body ("## Decisions Made", "## Key Decisions"), for one
 * whose frontmatter lists none: the section's top-level list items, or its first line when it has no
 * list; "None - followed plan" records none.
 */
function bodyDecisions(body: string): string[] {
  const sec = mdSection(body, /^(?:key\s+)?decisions(?:\s+made)?\b/i);
  if (!sec) return [];
  const lines = sec.split('\n').slice(1);
  const clean = (t: string) => oneLine(itemText(t), 600);
  const items = lines.filter((l) => /^(?:[-*]|\d+\.)\s+\S/.test(l)).map(clean);
  const out = items.length ? items : lines.map((l) => l.trim()).filter(isProse).slice(0, 1).map(clean);
  return out.filter((t) => t && !NOTHING.test(t));
}

/**
 * The files a summary lists in its body ("## Files Created/Modified", "## Files modified"), for one
 * whose frontmatter names none: of each list item, its first backticked path, or its first word
 * when that is a path.
 */
function bodyFiles(body: string): string[] {
  const sec = mdSection(body, /^files\b(?:\s+(?:created|modified|changed|touched)\b)?/i);
  if (!sec) return [];
  const out: string[] = [];
  for (const l of sec.split('\n').slice(1)) {
    const item = /^\s*(?:[-*]|\d+\.)\s+(?!\[[ xX]\])(.*)$/.exec(l);
    if (!item) continue;
    const ticked = /`([^`\n]+)`/.exec(item[1] as string);
    const first = ticked ? (ticked[1] as string) : ((item[1] as string).split(/\s+/)[0] as string);
    // A path has a folder or a file name with an extension ("src/db.ts", "Makefile.am"), not only a dot ("None.", "e.g.").
    const p = /\/|[A-Za-z0-9_-]\.[A-Za-z0-9]{1,10}$/.test(first) && !/^(?:[a-z]\.){2,}$/i.test(first) ? cleanDeclaredPath(first) : undefined;
    if (p && !out.includes(p)) out.push(p);
  }
  return out;
}

export function parseSummary(raw: string): ParsedSummary {
  const fm = splitFrontmatter(raw);
  const d = fm.data;
  const out: ParsedSummary = { frontmatter: fm, requires: [], provides: [], affects: [], keyFiles: [], decisions: [] };
  const phase = scalarText(pick(d, 'phase')).trim();
  if (phase) out.phase = phase;
  const plan = scalarText(pick(d, 'plan')).trim();
  if (plan) out.plan = plan;
  out.requires = graphList(d, 'requires');
  out.provides = graphList(d, 'provides');
  out.affects = graphList(d, 'affects');
  out.keyFiles = keyFiles(pick(d, 'key_files'));
  out.decisions = decisionText(pick(d, 'key_decisions', 'decisions'));
  const body = fm.body;
  const lines = body.split('\n');
  const h1 = lines.findIndex((l) => /^#\s+/.test(l));
  if (h1 !== -1) out.title = oneLine((lines[h1] as string).replace(/^#\s+/, ''), 200);
  for (let i = h1 + 1; i < lines.length; i++) {
    const t = (lines[i] as string).trim();
    if (t === '') continue;
    if (t.startsWith('#')) break;
    out.oneLiner = oneLine(t.replace(/^\*\*(.*)\*\*$/, '$1'), 400);
    break;
  }
  if (!out.oneLiner) {
    const first = lines
      .slice(Math.max(h1 + 1, 0))
      .map((l) => l.trim())
      .find(isProse);
    if (first) out.oneLiner = oneLine(itemText(first), 400);
  }
  if (!out.decisions.length) out.decisions = bodyDecisions(body);
  if (!out.keyFiles.length) out.keyFiles = bodyFiles(body);
  out.gotcha = firstGotcha(body);
  return out;
}
