/**
 * The plan's own text as a v2 brief carries it, and the ids that make it shorter.
 *
 * The brief keeps the PLAN.md verbatim (frontmatter included: it holds the must-haves) except:
 *  - `<execution_context>` goes: those are GSD's own workflow files, outside the project; the
 *    brief lists them among the references it does not carry;
 *  - the `@` reference lines of `<context>` go: each reference is listed, with what became of it
 *    (units, a capsule, a counted read, a project file), in the brief's REFS section.
 * Then a recurring path or a restated must-have truth becomes its symbol id, but only where that
 * saves tokens in this brief: k uses of an id plus its SYMBOLS entry must cost less than k copies of
 * the text. Ids are never put inside fenced code, commands (`<automated>`) or inline code that is
 * more than the path itself, so resolving them gives back the text exactly.
 */
import type { Tokenizer } from '../ports.js';
import { isPathLike, normalizeText, stripXmlBlock } from './parse.js';
import type { GsdPlan } from './tree.js';

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
    if (this.ids.size === 0) return body;
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
          const inner = part.slice(1, -1);
          const id = this.ids.get(inner);
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

/** Drop the `@path` lines of a context block (outside code fences). */
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

/** The plan as the brief carries it (see the module comment), LF line ends, no trailing blank lines. */
export function carriedPlanText(plan: GsdPlan): string {
  const raw = normalizeText(plan.raw);
  const bodyAt = raw.length - plan.parsed.frontmatter.body.length;
  const head = raw.slice(0, bodyAt);
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
  return `${head}${body}`.replace(/\n{3,}/g, '\n\n').replace(/\s+$/, '');
}

export interface IdChoice {
  /** The text with the chosen ids in place. */
  text: string;
  /** The SYMBOLS entries the text needs, in first-use order. */
  symbols: [string, string][];
}

/** Occurrences of a restated truth outside fenced code: replaced as a substring (truths are sentences). */
function replaceTruth(text: string, truth: string, id: string): { text: string; n: number } {
  let fence = false;
  let n = 0;
  const out = text
    .split('\n')
    .map((line) => {
      if (/^\s*(```|~~~)/.test(line)) {
        fence = !fence;
        return line;
      }
      if (fence || !line.includes(truth)) return line;
      const parts = line.split(truth);
      n += parts.length - 1;
      return parts.join(id);
    })
    .join('\n');
  return { text: out, n };
}

/**
 * Put ids in `text` where they pay for themselves in this brief. `paths`: recurring path -> id (the
 * import's `F<n>`); `truths`: truth text -> id (`<plan>.T<n>`). Returns the text and its entries.
 */
export function chooseIds(text: string, paths: Map<string, string>, truths: Map<string, string>, tok: Tokenizer): IdChoice {
  const value = new Map<string, string>();
  for (const [p, id] of paths) value.set(id, p);
  // Paths: count what each id would replace, keep those that save tokens, then replace only those.
  const uses = new Map<string, number>();
  new PathReplacer(paths).text(text, (id) => uses.set(id, (uses.get(id) ?? 0) + 1));
  const keep = new Map<string, string>();
  for (const [id, k] of uses) {
    const v = value.get(id) as string;
    if (k * tok.count(v) > k * tok.count(id) + tok.count(`${id}\t${v}\n`)) keep.set(v, id);
  }
  const order: string[] = [];
  let out = keep.size ? new PathReplacer(keep).text(text, (id) => order.includes(id) || order.push(id)) : text;
  // Truths restated verbatim (a must-have repeated under success criteria).
  for (const [t, id] of [...truths].sort((a, b) => b[0].length - a[0].length)) {
    if (t.length < 12 || !out.includes(t)) continue;
    const trial = replaceTruth(out, t, id);
    if (trial.n >= 2 && trial.n * tok.count(t) > trial.n * tok.count(id) + tok.count(`${id}\t${t}\n`)) {
      out = trial.text;
      value.set(id, t);
      order.push(id);
    }
  }
  return { text: out, symbols: order.map((id) => [id, value.get(id) as string]) };
}

/** Replace every id of `symbols` in `text` by its value (the inverse of chooseIds). */
export function resolveIds(text: string, symbols: [string, string][]): string {
  if (symbols.length === 0) return text;
  const map = new Map(symbols);
  const re = new RegExp(`(?<![A-Za-z0-9_.-])(?:${[...map.keys()].sort((a, b) => b.length - a.length).map(escapeRe).join('|')})(?![A-Za-z0-9_])`, 'g');
  return text.replace(re, (m) => map.get(m) ?? m);
}

export { escapeRe };
