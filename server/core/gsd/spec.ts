/**
 * The task spec of a GSD plan as a Heimdall delta brief carries it, and the completeness check of a
 * built brief. The spec keeps everything of the plan an executor acts on (objective, tasks with
 * their actions, verification, acceptance and success criteria, inline interfaces, output, setup
 * notes), verbatim except that:
 *  - the frontmatter becomes a few compact lines (requirements, files, must-have truths as ids,
 *    artifacts and key links with their paths as ids, other keys as they are);
 *  - the `@` reference lines of `<context>` become one `refs:` line of ids (what the executor may
 *    open on demand); the GSD workflow's `<execution_context>` goes (Heimdall's protocol replaces it);
 *  - file paths that recur in the tree become their symbol ids (never inside fenced code, and
 *    inside inline code only when the span is exactly the path), and a line restating a must-have
 *    truth becomes the truth's id. Commands (`<automated>`) stay verbatim so they still run.
 */
import { cleanPath, isPathLike, oneLine, scalarText, stripXmlBlock } from './parse.js';
import { type GsdImport, refPath } from './importer.js';
import { type GsdPlan, contextFiles } from './tree.js';

export interface PlanSpec {
  /** The SPEC text handed to renderBrief. */
  spec: string;
  /** Symbol ids the spec names, in first-use order (their entries go into the brief). */
  symbols: string[];
  /** Capsule roots: the plan's dependencies and the plans whose SUMMARY its context names, when a capsule exists. */
  capsules: string[];
  invariants?: string;
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

const PATH_CHAR = 'A-Za-z0-9_./~@-';

/** Replaces known paths by ids in prose, leaving fenced code and non-path inline code untouched. */
export class PathReplacer {
  private readonly re: RegExp | undefined;
  constructor(private readonly ids: Map<string, string>) {
    // Bare names (Dockerfile) are replaced only as a whole inline-code span: in prose they may be words.
    const paths = [...ids.keys()]
      .filter(isPathLike)
      .sort((a, b) => b.length - a.length)
      .map(escapeRe);
    this.re = paths.length ? new RegExp(`(?<![${PATH_CHAR}])(?:${paths.join('|')})(?![A-Za-z0-9_/-]|\\.[A-Za-z0-9_])`, 'g') : undefined;
  }

  /** Replace in a block of text; `used` collects the ids emitted. */
  text(body: string, used: (id: string) => void): string {
    if (!this.re) return body;
    let fence = false;
    return body
      .split('\n')
      .map((line) => {
        if (/^\s*(```|~~~)/.test(line)) {
          fence = !fence;
          return line;
        }
        return fence ? line : this.line(line, used);
      })
      .join('\n');
  }

  private line(line: string, used: (id: string) => void): string {
    // Split on inline code spans and <automated> commands; odd parts are code.
    const parts = line.split(/(`[^`]*`|<automated>.*?<\/automated>)/);
    return parts
      .map((part, i) => {
        if (i % 2 === 1 && part.startsWith('<automated>')) return part;
        if (i % 2 === 1) {
          const inner = part.slice(1, -1).trim();
          const id = this.ids.get(inner) ?? this.ids.get(inner.replace(/^\.\//, ''));
          if (id) {
            used(id);
            return `\`${id}\``;
          }
          return part;
        }
        return this.re ? part.replace(this.re, (m) => this.swap(m, used)) : part;
      })
      .join('');
  }

  private swap(m: string, used: (id: string) => void): string {
    const id = this.ids.get(m);
    if (!id) return m;
    used(id);
    return id;
  }
}

const replacers = new WeakMap<Map<string, string>, PathReplacer>();

/** One replacer per import (its regex covers every recurring path of the tree). */
function replacerFor(model: GsdImport): PathReplacer {
  let r = replacers.get(model.pathIds);
  if (!r) {
    r = new PathReplacer(model.pathIds);
    replacers.set(model.pathIds, r);
  }
  return r;
}

function normCriterion(s: string): string {
  return s
    .toLowerCase()
    .replace(/^\s*(?:[-*]|\d+\.)\s+(?:\[.\]\s*)?/, '')
    .replace(/[`"'“”]/g, '')
    .replace(/[.;:]+\s*$/, '')
    .replace(/\s+/g, ' ')
    .trim();
}

/** The plan body with `<execution_context>` removed and `<context>` reduced to its non-reference lines. */
function bodyWithoutRefs(plan: GsdPlan): string {
  let body = stripXmlBlock(plan.parsed.frontmatter.body, 'execution_context');
  const open = /^[ \t]*<context(?:\s[^>]*)?>/im.exec(body);
  if (open) {
    const from = open.index + open[0].length;
    const close = body.toLowerCase().indexOf('</context>', from);
    const end = close === -1 ? body.length : close;
    const inner = dropRefLines(body.slice(from, end));
    const tail = close === -1 ? '' : body.slice(close + '</context>'.length);
    body = inner.trim() === '' ? body.slice(0, open.index) + tail : `${body.slice(0, from)}${inner}${close === -1 ? '' : '</context>'}${tail}`;
  } else {
    const h = /^(#{1,6})\s+context\b.*$/im.exec(body);
    if (h) {
      const level = (h[1] as string).length;
      const rest = body.slice(h.index + h[0].length);
      const next = new RegExp(`^#{1,${level}}\\s`, 'm').exec(rest);
      const secEnd = next ? h.index + h[0].length + next.index : body.length;
      body = body.slice(0, h.index + h[0].length) + dropRefLines(body.slice(h.index + h[0].length, secEnd)) + body.slice(secEnd);
    }
  }
  return body;
}

function dropRefLines(block: string): string {
  let fence = false;
  return block
    .split('\n')
    .filter((line) => {
      if (/^\s*(```|~~~)/.test(line)) fence = !fence;
      if (fence) return true;
      const m = /^\s*(?:[-*]\s+)?@([^\s`'"<>()[\],]+)(?:\s.*)?$/.exec(line);
      return !(m && isPathLike(m[1] as string));
    })
    .join('\n');
}

function tidy(text: string): string {
  return text
    .split('\n')
    .map((l) => l.trimEnd())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** Build the task spec of one plan from the import model. */
export function planSpec(model: GsdImport, plan: GsdPlan): PlanSpec {
  const used: string[] = [];
  const use = (id: string) => {
    if (!used.includes(id)) used.push(id);
  };
  const asId = (p: string | undefined): string | undefined => {
    if (!p) return undefined;
    const c = cleanPath(p) ?? p;
    const id = model.pathIds.get(c);
    if (id) {
      use(id);
      return id;
    }
    return c;
  };
  const pp = plan.parsed;
  const lines: string[] = [];
  const facts = [`phase ${plan.phaseDir || plan.phase}`, `wave ${plan.wave}`];
  if (pp.type) facts.push(`type ${pp.type}`);
  if (pp.autonomous !== undefined) facts.push(`autonomous ${pp.autonomous}`);
  lines.push(facts.join(', '));
  if (plan.depends.length) lines.push(`depends: ${plan.depends.join(', ')}`);
  if (pp.requirements.length) {
    const ids = pp.requirements.map((r) => model.requirementIds.get(r) ?? r);
    ids.forEach(use);
    lines.push(`requirements: ${ids.join(', ')}`);
  }
  if (pp.filesModified.length) lines.push(`files: ${pp.filesModified.map(asId).join(', ')}`);
  const refs = plan.contextRefs.map((r) => asId(refPath(r)) ?? r);
  if (refs.length) lines.push(`refs (open when needed): ${refs.join(', ')}`);
  const truthIds = model.truthIds.get(plan.id) ?? [];
  if (truthIds.length) {
    truthIds.forEach(use);
    lines.push(`must be true: ${truthIds.join(', ')}`);
  }
  const replacer = replacerFor(model);
  const inline = (s: string) => replacer.text(s, use);
  for (const a of pp.artifacts) {
    const fields = a.fields.map(([k, v]) => `${k}: ${inline(v)}`).join('; ');
    lines.push(`artifact ${asId(a.path) ?? '?'}${fields ? `: ${fields}` : ''}`);
  }
  for (const l of pp.keyLinks) {
    const from = l.from ? (cleanPath(l.from) ? asId(l.from) : inline(l.from)) : '?';
    const to = l.to ? (cleanPath(l.to) ? asId(l.to) : inline(l.to)) : '?';
    const fields = l.fields.map(([k, v]) => `${k}: ${inline(v)}`).join('; ');
    lines.push(l.from || l.to ? `link ${from} -> ${to}${fields ? `: ${fields}` : ''}` : `link ${fields}`);
  }
  for (const [k, v] of pp.mustExtra) lines.push(`must_haves.${k}: ${inline(oneLine(scalarText(v), 2000))}`);
  for (const [k, v] of pp.extra) {
    const text = typeof v === 'object' && v !== null ? JSON.stringify(v) : scalarText(v);
    if (text.trim()) lines.push(`${k}: ${inline(oneLine(text, 4000))}`);
  }

  // The body: criteria restated from the truths become their ids, then paths become ids.
  const truthByText = new Map<string, string>();
  pp.truths.forEach((t, i) => {
    const id = truthIds[i];
    if (id) truthByText.set(normCriterion(t), id);
  });
  let fence = false;
  const body = bodyWithoutRefs(plan)
    .split('\n')
    .map((line) => {
      if (/^\s*(```|~~~)/.test(line)) fence = !fence;
      if (fence || truthByText.size === 0) return line;
      const id = truthByText.get(normCriterion(line));
      if (!id) return line;
      use(id);
      const prefix = /^\s*(?:[-*]|\d+\.)\s+(?:\[.\]\s*)?/.exec(line)?.[0] ?? '';
      return `${prefix}${id}`;
    })
    .join('\n');
  const spec = `${lines.join('\n')}\n\n${tidy(inline(body))}`;

  // Capsules: dependencies, plus the plans whose SUMMARY the context names.
  const capsules: string[] = [];
  for (const d of plan.depends) if (model.capsules.has(d) && !capsules.includes(d)) capsules.push(d);
  const byFile = new Map(model.project.summaries.map((s) => [s.file, s.id]));
  for (const c of contextFiles(model.project, plan.contextRefs)) {
    const id = byFile.get(c.rel);
    if (id && id !== plan.id && model.capsules.has(id) && !capsules.includes(id)) capsules.push(id);
  }
  return { spec, symbols: used, capsules, ...(model.invariants ? { invariants: model.invariants } : {}) };
}

/** The paths a plan names for its work: files_modified, task files and read_first, artifacts, context references, backticked paths in its tasks. */
export function namedPaths(plan: GsdPlan): string[] {
  const pp = plan.parsed;
  const out = new Set<string>([...pp.filesModified, ...pp.taskPaths]);
  for (const a of pp.artifacts) if (a.path) out.add(a.path);
  for (const r of plan.contextRefs) {
    const p = refPath(r);
    if (p) out.add(p);
  }
  // Backticked paths in the tasks, outside fenced code (code is kept verbatim in any case).
  let fence = false;
  for (const line of (pp.tasks ?? '').split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) {
      fence = !fence;
      continue;
    }
    if (fence) continue;
    for (const m of line.matchAll(/`([^`\s]+)`/g)) {
      const p = cleanPath(m[1] as string);
      if (p && /\//.test(p) && /\.[A-Za-z0-9]{1,8}$/.test(p) && !/^https?:/.test(p)) out.add(p);
    }
  }
  return [...out];
}

export interface Completeness {
  checks: number;
  passed: number;
  /** One line per failed check, naming what is missing. */
  failures: string[];
}

export interface CompletenessInput {
  /** The brief as built. */
  brief: string;
  /** The symbol table as stored after the import. */
  table: Record<string, string>;
  plan: GsdPlan;
  /** Path-symbol numbers the tree's own text uses (never allocated; such tokens are not ids). */
  skipped: Set<number>;
  pathPrefix: string;
  truthIds: string[];
  requirementIds: string[];
  /** Names declared as paths anywhere in the tree (files_modified, key-files): `Dockerfile` is a place, not an id. */
  declaredPaths?: Iterable<string>;
}

/** Split a rendered brief into its SYMBOLS entries, capsule ids and the rest (spec, capsule bodies). */
export function parseBrief(text: string): { symbols: Map<string, string>; capsules: string[]; prose: string; capsuleText: string } {
  const symbols = new Map<string, string>();
  const capsules: string[] = [];
  const prose: string[] = [];
  const capsuleLines: string[] = [];
  let section: 'spec' | 'symbols' | 'capsules' | 'end' = 'spec';
  for (const line of text.split('\n')) {
    if (line === 'SYMBOLS') section = 'symbols';
    else if (line === 'CAPSULES') section = 'capsules';
    else if (line.startsWith('INVARIANTS see ')) {
      section = 'end';
      prose.push(line);
    } else if (section === 'symbols') {
      const tab = line.indexOf('\t');
      if (tab > 0) symbols.set(line.slice(0, tab), line.slice(tab + 1));
      else prose.push(line);
    } else if (section === 'capsules') {
      const h = /^# (\S+)$/.exec(line);
      if (h) capsules.push(h[1] as string);
      capsuleLines.push(line);
    } else prose.push(line);
  }
  return { symbols, capsules, prose: prose.join('\n'), capsuleText: capsuleLines.join('\n') };
}

/**
 * Check one v2 brief: every id it uses is defined (in the brief or the symbol table), every entry
 * it lists agrees with the table, every capsule a capsule depends on is in it, and every path,
 * truth and requirement the plan names is reachable (literally or through an id the brief uses).
 */
export function checkCompleteness(input: CompletenessInput): Completeness {
  const { brief, table, plan } = input;
  const b = parseBrief(brief);
  const failures: string[] = [];
  let checks = 0;
  const check = (ok: boolean, what: string) => {
    checks++;
    if (!ok) failures.push(`${plan.id}: ${what}`);
  };
  const defined = (id: string) => b.symbols.has(id) || table[id] !== undefined;
  const scanned = `${b.prose}\n${b.capsuleText}`;

  // 1. Ids used must be defined.
  const idTokens = new Set<string>();
  const pathId = new RegExp(`(?<![A-Za-z0-9_.-])${input.pathPrefix}(\\d+)(?![A-Za-z0-9_])`, 'g');
  for (const m of scanned.matchAll(pathId)) if (!input.skipped.has(Number(m[1]))) idTokens.add(m[0]);
  for (const m of scanned.matchAll(/(?<![A-Za-z0-9_.-])(\d+(?:\.\d+)*-\d+\.T\d+)(?![A-Za-z0-9_])/g)) idTokens.add(m[1] as string);
  // Lists of ids: every token is an id. Lists of places: a token is an id unless it is a path
  // (with a slash or an extension) or a declared name the plan or a capsule's summary lists.
  const declared = new Set(input.declaredPaths ?? []);
  for (const line of scanned.split('\n')) {
    const m = /^(requirements|must be true|files|refs \(open when needed\)|where): (.*)$/.exec(line);
    if (!m) continue;
    const places = m[1] !== 'requirements' && m[1] !== 'must be true';
    for (const tok of (m[2] as string).split(',').map((s) => s.trim())) {
      if (tok && !(places && (isPathLike(tok) || declared.has(tok)))) idTokens.add(tok);
    }
  }
  for (const id of [...idTokens].sort()) check(defined(id), `id ${id} is used but defined neither in the brief nor in the symbol table`);

  // 2. Entries listed must agree with the table.
  for (const [id, v] of b.symbols) check(table[id] === v, `SYMBOLS lists ${id} as ${JSON.stringify(v)} but the table says ${JSON.stringify(table[id])}`);

  // 3. Capsule closure: every depends of a capsule in the brief is in the brief.
  for (const line of b.capsuleText.split('\n')) {
    const m = /^depends: (.*)$/.exec(line);
    if (!m) continue;
    for (const d of (m[1] as string).split(',').map((s) => s.trim()).filter(Boolean)) check(b.capsules.includes(d), `capsule dependency ${d} is not in the brief`);
  }

  // 4. Everything the plan names is reachable.
  const present = (token: string) => new RegExp(`(?<![${PATH_CHAR}])${escapeRe(token)}(?![A-Za-z0-9_/-]|\\.[A-Za-z0-9_])`).test(brief);
  const idsFor = (value: string) => {
    const ids: string[] = [];
    for (const [id, v] of b.symbols) if (v === value) ids.push(id);
    for (const [id, v] of Object.entries(table)) if (v === value) ids.push(id);
    return ids;
  };
  for (const p of namedPaths(plan)) {
    check(present(p) || idsFor(p).some((id) => defined(id) && present(id)), `path ${p} is named by the plan but neither it nor an id for it is in the brief`);
  }
  for (const id of input.truthIds) check(present(id) && defined(id), `must-have truth ${id} is not in the brief`);
  for (const id of input.requirementIds) check(present(id) && defined(id), `requirement ${id} is not in the brief`);
  return { checks, passed: checks - failures.length, failures };
}
