/**
 * Surface globs and the overlap test behind the claim collision gate.
 *
 * A surface is a repository-relative glob such as `src/a/**`, `src/*.ts` or `src/{a,b}/x.ts`. Two
 * surfaces collide when some path could be covered by both. The test is conservative: whenever the
 * answer is uncertain it says "collide", because a false collision costs one agent a short wait while
 * a missed collision costs two agents a merge conflict.
 *
 * Language (what a surface means)
 * - Paths are `/`-separated segments, anchored at the repository root (`*.ts` is top-level files only).
 * - `*` matches any run of characters inside one segment, `?` exactly one character, `[abc]`, `[a-z]`,
 *   `[!x]` / `[^x]` one character of (or not of) a class. None of them matches `/`.
 * - A segment that is exactly `**` matches zero or more whole segments; `**` inside a segment
 *   (`a**b`) is the same as `*`.
 * - `{a,b}` alternatives (nested allowed) are expanded before matching, at most 64 alternatives.
 * - A surface also covers what lies beneath what it matches, since a name may be a folder: `src/a`
 *   and `src/a/b.ts` collide, and so do `src/*` and `src/x/y.ts`. A trailing `/` says it explicitly
 *   (`src/a/` is stored as `src/a/**`). One exception keeps globstar claims usable: when the other
 *   side reaches beneath a name only through its `**`, and that name looks like a file (it has a
 *   `.` after its first character: `a.md`, `*.ts`), the name is taken to be a file. So "every .ts
 *   file at any depth" (a globstar, then `*.ts`) does not collide with `docs/readme.md`, but does
 *   with the folder-like `src/lib`. This is the one deliberate exception to "when in doubt, collide"
 *   (a folder named like `conf.d` reached only through a globstar is missed). A glob that names a
 *   path beneath the other explicitly (`etc/conf.d/x.conf` vs `etc/conf.d`) always collides.
 * - `./` prefixes, `/./` and repeated slashes are removed; `.` alone means the whole repository.
 *
 * Conservative choices (each can only add collisions)
 * - Letters are compared case-insensitively (ASCII), since macOS and Windows checkouts fold case.
 * - `*` and `**` also match dot-files.
 * - Two negated classes (`[!a]` vs `[!b]`) are assumed to share a character.
 * - A negated class excludes only the characters it names (case folding is not applied to them).
 *
 * Refused with an error that says why (nothing is guessed): empty or blank globs, absolute paths,
 * `..` segments, backslashes (Windows separators or escapes), control characters, leading `!`
 * negation, extglobs such as `@(a|b)`, unbalanced braces or brackets, brace groups without a comma
 * (`{a}`, `{1..3}`), empty or reversed classes, POSIX classes (`[[:alpha:]]`), a `/` inside a class,
 * and globs longer than 512 characters or deeper than 32 segments.
 *
 * The algorithm (written for this project): both globs are compiled to a list of segments, each
 * either a globstar or a sequence of tokens (`*`, or a character set: a literal letter is the set
 * {a, A}, `?` is "anything but /"). `overlap(i, j)` asks whether the suffixes starting at segment i of
 * the first and segment j of the second share a path. When both are used up they matched the same
 * path; when one is used up, the other's remaining segments lie beneath it, which counts unless
 * they are all globstars (then it is the same path) or the used-up side's last name was absorbed by
 * the other's globstar and looks like a file (see above). A globstar tries matching zero segments
 * and absorbing one more; two name segments must share a name and the rest must overlap. Two
 * segments share a name when their token sequences accept a common string: the same walk over token
 * positions, where a `*` may match nothing or absorb one character the other side's set accepts, and
 * two sets must intersect. Both walks are memoised, so the cost is the product of the two lengths.
 * Before the walk, two different plain first segments (`pkg1/...` vs `pkg2/...`) settle the pair.
 */
import { HeimdallError } from '../errors.js';

export const MAX_GLOB_LENGTH = 512;
export const MAX_GLOB_SEGMENTS = 32;
export const MAX_BRACE_ALTERNATIVES = 64;

/** One character of a segment: a set of code-point ranges, or everything except them. */
interface CharSet {
  kind: 'set';
  negated: boolean;
  ranges: Array<[number, number]>;
}
interface Star {
  kind: 'star';
}
type Token = CharSet | Star;
type Segment = { kind: 'globstar' } | { kind: 'name'; tokens: Token[] };

export interface CompiledGlob {
  /** The glob as stored and shown: `./src/a/` becomes `src/a/**`. */
  normalized: string;
  /** One segment list per brace alternative. */
  alternatives: Segment[][];
}

const EXAMPLE = 'e.g. src/a/**, src/*.ts or src/{a,b}/x.ts';

function refuse(glob: string, why: string): never {
  throw new HeimdallError('invalid', `invalid surface ${JSON.stringify(glob)}: ${why} (a surface is a repository-relative glob, ${EXAMPLE})`);
}

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

/**
 * Check a glob and return its canonical text: leading `./` and `/./` removed, repeated slashes
 * collapsed, a trailing `/` turned into `/**`. Braces are kept as written (they are checked here
 * and expanded by `compileGlob`).
 */
export function normalizeGlob(input: unknown): string {
  if (typeof input === 'string' && isCanonical(input)) return input;
  if (typeof input !== 'string') refuse(String(input), `expected a string, got ${input === null ? 'null' : typeof input}`);
  const glob = input;
  if (glob.trim() === '') refuse(glob, 'it is empty');
  if (glob !== glob.trim()) refuse(glob, 'it has leading or trailing spaces');
  if (glob.length > MAX_GLOB_LENGTH) refuse(`${glob.slice(0, 40)}...`, `it is ${glob.length} characters long; at most ${MAX_GLOB_LENGTH} are allowed`);
  if (CONTROL.test(glob)) refuse(glob, 'it contains a tab, newline or other control character');
  if (glob.includes('\\')) refuse(glob, 'backslashes are not supported; use "/" between folders, and note that escaping special characters is not supported');
  if (glob.startsWith('!')) refuse(glob, 'negated globs cannot be claimed; claim the paths you will edit instead');
  if (/[@!+*?]\(/.test(glob)) refuse(glob, 'extglob patterns such as @(a|b) are not supported; use braces {a,b}');
  if (glob.startsWith('/')) refuse(glob, `absolute paths are not allowed; drop the leading "/" (${glob.replace(/^\/+/, '')})`);
  checkBrackets(glob);
  checkBraces(glob);
  return cleanPath(glob, glob);
}

/** Letters, digits, `_`, `-`, `.` and `*` in non-empty segments: the shape nearly every stored glob has. */
const PLAIN_GLOB = /^[\w.*-]+(?:\/[\w.*-]+)*$/;
const DOT_SEGMENT = /(?:^|\/)\.\.?(?:\/|$)/;
const DOUBLE_GLOBSTAR = /(?:^|\/)\*\*\/\*\*(?:\/|$)/;

/**
 * A glob `normalizeGlob` would return unchanged and accept: plain characters only (so no class,
 * brace, extglob, backslash, control character, comma, space or leading `!`/`/`), no `.`, `..` or
 * empty segment, no trailing `/`, no `**` twice in a row, within the limits. claims.json is read
 * whole on every hook run (before every edit), and this settles most of its globs with three tests.
 */
function isCanonical(glob: string): boolean {
  if (glob.length > MAX_GLOB_LENGTH || !PLAIN_GLOB.test(glob) || DOT_SEGMENT.test(glob) || DOUBLE_GLOBSTAR.test(glob)) return false;
  let segments = 1;
  for (let i = glob.indexOf('/'); i !== -1; i = glob.indexOf('/', i + 1)) segments++;
  return segments <= MAX_GLOB_SEGMENTS;
}

/** Path-level clean-up of one glob or one brace alternative. */
function cleanPath(text: string, original: string): string {
  const trailing = text.endsWith('/');
  const segs: string[] = [];
  for (const s of text.split('/')) {
    if (s === '' || s === '.') continue;
    if (s === '..') refuse(original, '".." segments would leave the repository');
    segs.push(s);
  }
  if (segs.length === 0) return '**';
  if (trailing && segs[segs.length - 1] !== '**') segs.push('**');
  if (segs.length > MAX_GLOB_SEGMENTS) refuse(original, `it has ${segs.length} segments; at most ${MAX_GLOB_SEGMENTS} are allowed`);
  // Consecutive globstars mean the same as one.
  const out = segs.filter((s, i) => !(s === '**' && segs[i - 1] === '**'));
  return out.join('/');
}

function checkBrackets(glob: string): void {
  let i = 0;
  while (i < glob.length) {
    if (glob[i] === '[') {
      const end = classEnd(glob, i);
      if (end === -1) refuse(glob, `the "[" at position ${i + 1} is never closed; close the character class with "]"`);
      i = end + 1;
    } else i++;
  }
}

/** Index of the `]` closing the class that opens at `start`, or -1. A `]` right after `[` or `[!` is a member. */
function classEnd(glob: string, start: number): number {
  let j = start + 1;
  if (glob[j] === '!' || glob[j] === '^') j++;
  if (glob[j] === ']') j++;
  while (j < glob.length && glob[j] !== ']') j++;
  return j < glob.length ? j : -1;
}

function checkBraces(glob: string): void {
  const stack: Array<{ at: number; commas: number }> = [];
  let i = 0;
  while (i < glob.length) {
    const c = glob[i];
    if (c === '[') {
      i = classEnd(glob, i) + 1;
      continue;
    }
    if (c === '{') stack.push({ at: i, commas: 0 });
    else if (c === ',') {
      const top = stack[stack.length - 1];
      if (!top) refuse(glob, 'a "," outside braces; list several surfaces as separate globs, or group alternatives as {a,b}');
      top.commas++;
    } else if (c === '}') {
      const top = stack.pop();
      if (!top) refuse(glob, `the "}" at position ${i + 1} has no matching "{"`);
      if (top.commas === 0) {
        refuse(glob, `the brace group at position ${top.at + 1} has no comma; braces list alternatives such as {a,b} (ranges like {1..3} are not supported)`);
      }
    }
    i++;
  }
  const open = stack.pop();
  if (open) refuse(glob, `the "{" at position ${open.at + 1} is never closed`);
}

/** Expand `{a,b}` groups (nested allowed) into plain alternatives. */
function expandBraces(glob: string, original: string): string[] {
  const start = firstBrace(glob);
  if (start === -1) return [glob];
  let depth = 0;
  const parts: string[] = [];
  let from = start + 1;
  let end = -1;
  for (let i = start; i < glob.length; i++) {
    const c = glob[i];
    if (c === '[') {
      i = classEnd(glob, i);
      continue;
    }
    if (c === '{') depth++;
    else if (c === '}') {
      depth--;
      if (depth === 0) {
        parts.push(glob.slice(from, i));
        end = i;
        break;
      }
    } else if (c === ',' && depth === 1) {
      parts.push(glob.slice(from, i));
      from = i + 1;
    }
  }
  const head = glob.slice(0, start);
  const tail = glob.slice(end + 1);
  const out: string[] = [];
  for (const p of parts) {
    for (const x of expandBraces(`${head}${p}${tail}`, original)) {
      out.push(x);
      if (out.length > MAX_BRACE_ALTERNATIVES) {
        refuse(original, `its braces expand to more than ${MAX_BRACE_ALTERNATIVES} alternatives; claim a wider glob such as src/**`);
      }
    }
  }
  return out;
}

function firstBrace(glob: string): number {
  for (let i = 0; i < glob.length; i++) {
    if (glob[i] === '[') i = classEnd(glob, i);
    else if (glob[i] === '{') return i;
  }
  return -1;
}

const SLASH = 0x2f;

function foldRanges(ranges: Array<[number, number]>): Array<[number, number]> {
  const out = [...ranges];
  for (const [lo, hi] of ranges) {
    // Add the other case of any ASCII letters inside the range.
    const upLo = Math.max(lo, 0x41);
    const upHi = Math.min(hi, 0x5a);
    if (upLo <= upHi) out.push([upLo + 32, upHi + 32]);
    const loLo = Math.max(lo, 0x61);
    const loHi = Math.min(hi, 0x7a);
    if (loLo <= loHi) out.push([loLo - 32, loHi - 32]);
  }
  return out;
}

const literals = new Map<string, CharSet>();
function literal(c: string): CharSet {
  let set = literals.get(c);
  if (!set) {
    const cp = c.codePointAt(0) as number;
    set = { kind: 'set', negated: false, ranges: foldRanges([[cp, cp]]) };
    literals.set(c, set);
  }
  return set;
}

function compileSegment(seg: string, original: string): Segment {
  if (seg === '**') return { kind: 'globstar' };
  const tokens: Token[] = [];
  const chars = Array.from(seg);
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i] as string;
    if (c === '*') {
      if (tokens[tokens.length - 1]?.kind !== 'star') tokens.push({ kind: 'star' });
    } else if (c === '?') {
      tokens.push({ kind: 'set', negated: true, ranges: [] });
    } else if (c === '[') {
      const { set, next } = compileClass(chars, i, original);
      tokens.push(set);
      i = next;
    } else tokens.push(literal(c));
  }
  return { kind: 'name', tokens };
}

function compileClass(chars: string[], start: number, original: string): { set: CharSet; next: number } {
  let j = start + 1;
  let negated = false;
  if (chars[j] === '!' || chars[j] === '^') {
    negated = true;
    j++;
  }
  const members: string[] = [];
  if (chars[j] === ']') {
    members.push(']');
    j++;
  }
  while (j < chars.length && chars[j] !== ']') members.push(chars[j++] as string);
  if (j >= chars.length) refuse(original, 'a character class is never closed; close it with "]"');
  const body = members.join('');
  if (body.startsWith('[:') || body.includes('[:')) refuse(original, 'POSIX character classes such as [[:alpha:]] are not supported; use a range such as [a-z]');
  if (members.length === 0) refuse(original, 'an empty character class "[]" matches nothing');
  const ranges: Array<[number, number]> = [];
  for (let k = 0; k < members.length; k++) {
    const a = members[k] as string;
    if (a === '/') refuse(original, 'a character class cannot contain "/"; a class matches one character inside a folder or file name');
    if (members[k + 1] === '-' && k + 2 < members.length) {
      const b = members[k + 2] as string;
      if (b === '/') refuse(original, 'a character class cannot contain "/"');
      const lo = a.codePointAt(0) as number;
      const hi = b.codePointAt(0) as number;
      if (lo > hi) refuse(original, `the range [${a}-${b}] is reversed; write [${b}-${a}]`);
      if (lo <= SLASH && SLASH <= hi) refuse(original, `the range [${a}-${b}] includes "/"`);
      ranges.push([lo, hi]);
      k += 2;
    } else {
      const cp = a.codePointAt(0) as number;
      ranges.push([cp, cp]);
    }
  }
  // Positive classes are widened by case folding (conservative); negated ones keep their exclusions.
  return { set: { kind: 'set', negated, ranges: negated ? ranges : foldRanges(ranges) }, next: j };
}

const compiledCache = new Map<string, CompiledGlob>();

/** Check, normalise and compile a glob (memoised: claim lists compile the same globs repeatedly). */
export function compileGlob(input: unknown): CompiledGlob {
  if (typeof input === 'string') {
    const hit = compiledCache.get(input);
    if (hit) return hit;
  }
  const normalized = normalizeGlob(input);
  const alternatives = expandBraces(normalized, normalized).map((alt) => {
    if (alt.startsWith('/')) refuse(normalized, `the alternative ${JSON.stringify(alt)} is an absolute path; surfaces are relative to the repository root`);
    return cleanPath(alt, normalized)
      .split('/')
      .map((s) => compileSegment(s, normalized));
  });
  const compiled: CompiledGlob = { normalized, alternatives };
  if (compiledCache.size > 50_000) compiledCache.clear();
  compiledCache.set(input as string, compiled);
  return compiled;
}

function inRanges(cp: number, ranges: Array<[number, number]>): boolean {
  for (const [lo, hi] of ranges) if (lo <= cp && cp <= hi) return true;
  return false;
}

/** Is there a character (other than `/`) in `p` that is not excluded by `n`? */
function positiveMinusNegated(p: Array<[number, number]>, n: Array<[number, number]>): boolean {
  for (const [lo, hi] of p) {
    // Walk the range, skipping excluded stretches; ranges are small, but jump over long ones.
    let cp = lo;
    while (cp <= hi) {
      if (cp === SLASH) {
        cp++;
        continue;
      }
      let skipped = false;
      for (const [elo, ehi] of n) {
        if (elo <= cp && cp <= ehi) {
          cp = ehi + 1;
          skipped = true;
          break;
        }
      }
      if (!skipped) return true;
    }
  }
  return false;
}

function setsIntersect(a: CharSet, b: CharSet): boolean {
  if (!a.negated && !b.negated) {
    for (const [lo, hi] of a.ranges) {
      for (const [lo2, hi2] of b.ranges) {
        const from = Math.max(lo, lo2);
        const to = Math.min(hi, hi2);
        if (from <= to && !(from === SLASH && to === SLASH)) return true;
      }
    }
    return false;
  }
  if (a.negated && b.negated) return true; // the alphabet is far larger than two exclusion lists
  const [pos, neg] = a.negated ? [b, a] : [a, b];
  return positiveMinusNegated(pos.ranges, neg.ranges);
}

/** Do two segment patterns accept a common, non-empty name? */
function namesIntersect(a: Token[], b: Token[]): boolean {
  const memo = new Map<number, boolean>();
  const w = b.length + 1;
  const go = (i: number, j: number): boolean => {
    const key = i * w + j;
    const hit = memo.get(key);
    if (hit !== undefined) return hit;
    memo.set(key, false); // no cycles are possible, but keep the walk finite regardless
    let r = false;
    const ta = a[i];
    const tb = b[j];
    if (i === a.length && j === b.length) r = true;
    else if (ta?.kind === 'star' && go(i + 1, j)) r = true;
    else if (tb?.kind === 'star' && go(i, j + 1)) r = true;
    else if (ta && tb) {
      if (ta.kind === 'star' && tb.kind === 'set') r = go(i, j + 1);
      else if (ta.kind === 'set' && tb.kind === 'star') r = go(i + 1, j);
      else if (ta.kind === 'set' && tb.kind === 'set') r = setsIntersect(ta, tb) && go(i + 1, j + 1);
    }
    memo.set(key, r);
    return r;
  };
  // Names are never empty; only all-star patterns accept "", and those accept every name too.
  return go(0, 0);
}

/**
 * A name with a "." after its first character (`a.md`, `*.ts`, `v1.2`) is taken to be a file when
 * only a globstar reaches beneath it. `.github`, `src`, `*` and `lib-*` stay folder-like.
 */
function fileLike(seg: Segment | undefined): boolean {
  if (!seg || seg.kind !== 'name') return false;
  const dot = 0x2e;
  return seg.tokens.some((t, k) => k > 0 && k < seg.tokens.length - 1 && t.kind === 'set' && !t.negated && t.ranges.length === 1 && t.ranges[0]?.[0] === dot && t.ranges[0]?.[1] === dot);
}

function segmentsOverlap(a: Segment[], b: Segment[]): boolean {
  const memo = new Map<number, boolean>();
  const w = b.length + 1;
  const onlyGlobstars = (s: Segment[], from: number) => s.slice(from).every((x) => x.kind === 'globstar');
  // absorbedA: a's previous segment was absorbed by one of b's globstars (likewise absorbedB).
  const go = (i: number, j: number, absorbedA: boolean, absorbedB: boolean): boolean => {
    if (i === a.length && j === b.length) return true;
    if (i === a.length) return onlyGlobstars(b, j) || !(absorbedA && fileLike(a[i - 1]));
    if (j === b.length) return onlyGlobstars(a, i) || !(absorbedB && fileLike(b[j - 1]));
    const key = ((i * w + j) << 2) | (absorbedA ? 2 : 0) | (absorbedB ? 1 : 0);
    const hit = memo.get(key);
    if (hit !== undefined) return hit;
    const sa = a[i] as Segment;
    const sb = b[j] as Segment;
    let r: boolean;
    if (sa.kind === 'globstar' && sb.kind === 'globstar') r = go(i + 1, j, false, false) || go(i, j + 1, false, false);
    else if (sa.kind === 'globstar') r = go(i + 1, j, false, absorbedB) || go(i, j + 1, false, true);
    else if (sb.kind === 'globstar') r = go(i, j + 1, absorbedA, false) || go(i + 1, j, true, false);
    else r = namesIntersect(sa.tokens, sb.tokens) && go(i + 1, j + 1, false, false);
    memo.set(key, r);
    return r;
  };
  return go(0, 0, false, false);
}

/**
 * The first segment as lowercase text when it is a plain name (no wildcard, no class), else
 * undefined. Two different plain first segments can never overlap: a cheap test that settles most
 * pairs in a big claims file (`pkg1/...` vs `pkg2/...`) before the full walk.
 */
function plainHead(alt: Segment[]): string | undefined {
  const first = alt[0];
  if (!first || first.kind !== 'name') return undefined;
  let out = '';
  for (const t of first.tokens) {
    if (t.kind !== 'set' || t.negated) return undefined;
    // A literal is one code point plus, for ASCII letters, its other case (see foldRanges); a
    // class such as [12] is not.
    const c = String.fromCodePoint(t.ranges[0]?.[0] as number).toLowerCase();
    if (!t.ranges.every(([x, y]) => x === y && String.fromCodePoint(x).toLowerCase() === c)) return undefined;
    out += c;
  }
  return out;
}

const heads = new WeakMap<Segment[], string | null>();
function headOf(alt: Segment[]): string | undefined {
  let h = heads.get(alt);
  if (h === undefined) {
    h = plainHead(alt) ?? null;
    heads.set(alt, h);
  }
  return h ?? undefined;
}

/** Could some path be covered by both globs? Throws `invalid` for a glob it cannot read. */
export function globsOverlap(a: string, b: string): boolean {
  const ca = compileGlob(a);
  const cb = compileGlob(b);
  for (const x of ca.alternatives) {
    for (const y of cb.alternatives) {
      const hx = headOf(x);
      const hy = headOf(y);
      if (hx !== undefined && hy !== undefined && hx !== hy) continue;
      if (segmentsOverlap(x, y)) return true;
    }
  }
  return false;
}

/**
 * Check a stored glob cheaply: the full compilation runs only for globs with braces or classes
 * (the only ones whose errors `normalizeGlob` cannot see); the rest compile when first compared.
 */
export function checkGlob(input: unknown): string {
  const n = normalizeGlob(input);
  if (n.includes('[')) compileGlob(n);
  else if (n.includes('{')) {
    // Without a class nothing in a segment can be refused: expanding the braces checks the rest,
    // and the segments compile when first compared (every hook run reads every stored glob).
    for (const alt of expandBraces(n, n)) {
      if (alt.startsWith('/')) refuse(n, `the alternative ${JSON.stringify(alt)} is an absolute path; surfaces are relative to the repository root`);
      cleanPath(alt, n);
    }
  }
  return n;
}

/** Every (requested, held) pair of globs that overlap, in the order given. */
export function overlappingPairs(requested: string[], held: string[]): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (const r of requested) for (const h of held) if (globsOverlap(r, h)) out.push([r, h]);
  return out;
}

/**
 * Split a comma-separated list of globs (the CLI's `--surfaces a,b`), keeping commas inside braces:
 * `src/{a,b}.ts,docs/**` is two globs. Items are trimmed; empty items are dropped.
 */
export function splitSurfaceList(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let cur = '';
  for (const c of text) {
    if (c === '{') depth++;
    else if (c === '}') depth = Math.max(0, depth - 1);
    if (c === ',' && depth === 0) {
      out.push(cur);
      cur = '';
    } else cur += c;
  }
  out.push(cur);
  return out.map((s) => s.trim()).filter((s) => s !== '');
}

/** Does the name pattern (one segment's tokens) accept this exact name? Case folding is in the literal sets. */
function nameMatches(tokens: Token[], name: string): boolean {
  const cps = Array.from(name, (c) => c.codePointAt(0) as number);
  const memo = new Map<number, boolean>();
  const w = cps.length + 1;
  const go = (i: number, j: number): boolean => {
    if (i === tokens.length) return j === cps.length;
    const key = i * w + j;
    const hit = memo.get(key);
    if (hit !== undefined) return hit;
    const t = tokens[i] as Token;
    let r: boolean;
    if (t.kind === 'star') r = go(i + 1, j) || (j < cps.length && go(i, j + 1));
    else r = j < cps.length && inRanges(cps[j] as number, t.ranges) !== t.negated && go(i + 1, j + 1);
    memo.set(key, r);
    return r;
  };
  return go(0, 0);
}

/**
 * Does the glob cover this file? `path` is a clean repository-relative file path (`src/a/b.ts`: no
 * `.`, `..` or empty segments). It is covered when the glob matches it or one of the folders above
 * it, since a surface covers what lies beneath what it matches (`src/a` and `src/*` cover
 * `src/a/b.ts`). This is `globsOverlap` with the path known to be a file: a file has nothing
 * beneath it, so `src/a/b.ts` does not cover a file named `src/a`, and `**` followed by `*.ts` does
 * not cover `Makefile` (the overlap test, not knowing what `Makefile` is, must assume a folder).
 */
export function globCoversPath(glob: string, path: string): boolean {
  return coverageOf(path)(glob);
}

/** `globCoversPath` for one file against many globs: the path is split once. */
export function coverageOf(path: string): (glob: string) => boolean {
  const segs = path.split('/');
  const lower = segs.map((s) => s.toLowerCase());
  const w = segs.length + 1;
  return (glob) => {
    if (literalMiss(glob, segs, lower)) return false;
    for (const alt of compileGlob(glob).alternatives) {
      const head = headOf(alt);
      if (head !== undefined && head !== lower[0]) continue;
      const memo = new Map<number, boolean>();
      const go = (i: number, j: number): boolean => {
        // The glob is used up: it matched segs[0..j), the file itself or a folder above it.
        if (i === alt.length) return j > 0;
        // The file is used up: what is left of the glob must match nothing more (globstars only).
        if (j === segs.length) return alt.slice(i).every((s) => s.kind === 'globstar');
        const key = i * w + j;
        const hit = memo.get(key);
        if (hit !== undefined) return hit;
        const s = alt[i] as Segment;
        const r = s.kind === 'globstar' ? go(i + 1, j) || go(i, j + 1) : nameMatches(s.tokens, segs[j] as string) && go(i + 1, j + 1);
        memo.set(key, r);
        return r;
      };
      if (go(0, 0)) return true;
    }
    return false;
  };
}

const SPECIAL = /[*?[\]{}\\!@+()]/;

/**
 * True when the glob's leading plain segments (no wildcard, class or brace) already differ from the
 * path's, so it cannot cover the path: a claims file of a thousand `packages/pN/...` claims is
 * settled without compiling a thousand globs, on every edit. A plain segment matches exactly one
 * name, letters compared without case as the full match does. Anything it is unsure of (a special
 * character, `.` or an empty segment of a hand-written glob) is left to the full match.
 */
function literalMiss(glob: string, segs: string[], lower: string[]): boolean {
  let start = 0;
  for (let k = 0; ; k++) {
    const slash = glob.indexOf('/', start);
    const seg = slash === -1 ? glob.slice(start) : glob.slice(start, slash);
    if (seg === '' || seg === '.' || seg === '..' || SPECIAL.test(seg)) return false;
    const name = segs[k];
    // A plain segment beyond the path's last name can match neither the path nor a folder above it.
    if (name === undefined) return true;
    if (seg !== name && seg.toLowerCase() !== lower[k]) return true;
    if (slash === -1) return false;
    start = slash + 1;
  }
}
