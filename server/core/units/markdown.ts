/**
 * Addressable pieces of a Markdown document, by position: sections under headings (nested, each up
 * to the next heading of the same or a higher level) and labelled items (`- **D-07:** ...`,
 * `### FR-3: ...`, `| AUTH-01 | ... |`). Pure: text in, character ranges out, so a unit's text is
 * always an exact slice of its file.
 */

/** A heading and what it covers: `[start, end)` in the text, heading line included. */
export interface MdSection {
  level: number;
  /** The heading text without `#`s, emphasis markers or a trailing `#` run. */
  title: string;
  /** `Pattern 2`, `Area A`, `Phase 3`, `Pitfall 1`: a heading that starts with a word and a number or letter. */
  label?: string;
  start: number;
  end: number;
}

/** A labelled item: an id-like label (`D-07`, `FR-3`, `AUTH-01`) defined at the start of a line. */
export interface MdItem {
  label: string;
  /** How the file defines it; a heading beats a list item or paragraph, which beats a table row. */
  form: 'heading' | 'item' | 'row';
  start: number;
  end: number;
}

/** Ids as planning documents write them: letters, optional dashed parts, a dash and a number (`D-07`, `NFR-4`, `UI-06b`). */
export const LABEL_SOURCE = '[A-Z][A-Z0-9]{0,11}(?:[-_][A-Z0-9]{1,12})*-\\d{1,4}[a-z]?';
const HEAD_LABEL = new RegExp(`^#{1,6}\\s+(?:\\*\\*|__)?\`?(${LABEL_SOURCE})(?![A-Za-z0-9_-])`);
// A first cell that is the label, bold or not, with at most a qualifier in parentheses after it
// (`| NOTE-01 (W2 portion) |`).
const ROW_LABEL = new RegExp(`^\\s*\\|\\s*(?:\\*\\*|__)?\`?(${LABEL_SOURCE})\`?(?:\\*\\*|__)?(?:\\s*\\([^|()]{1,40}\\))?\\s*\\|`);
// `D-01: ...`, `**FR-3**: ...`, `D-03 - ...`, or a label in brackets `[REQ-040] ...`; a qualifier in
// parentheses may stand between the label and its colon, inside the bold or after it
// (`**D-06 (CODE-02):**`, `**D-07** (PERF-05):`).
const QUALIFIER = '(?:\\s*\\([^()\\n]{1,40}\\))?';
const LEAD_LABEL = new RegExp(`^(?:(?:\\*\\*|__)?\`?(${LABEL_SOURCE})\`?${QUALIFIER}(?:\\*\\*|__)?${QUALIFIER}\\s*(?:[:.)—–]|-\\s)|\\[(${LABEL_SOURCE})\\](?=\\s|:|$))`);

/** Line start offsets, and which lines sit inside fenced code. */
function lineTable(text: string): { starts: number[]; lines: string[]; fenced: boolean[] } {
  const lines = text.split('\n');
  const starts: number[] = [];
  const fenced: boolean[] = [];
  let at = 0;
  let fence: string | undefined;
  for (const line of lines) {
    starts.push(at);
    at += line.length + 1;
    const m = /^\s{0,3}(`{3,}|~{3,})/.exec(line);
    if (m) {
      const mark = (m[1] as string)[0] as string;
      if (fence === undefined) {
        fence = mark;
        fenced.push(true);
        continue;
      }
      if (fence === mark) {
        fence = undefined;
        fenced.push(true);
        continue;
      }
    }
    fenced.push(fence !== undefined);
  }
  return { starts, lines, fenced };
}

function cleanTitle(raw: string): string {
  return raw
    .replace(/\s+#+\s*$/, '')
    .replace(/\*\*|__/g, '')
    .replace(/^[`*_]+|[`*_]+$/g, '')
    .trim();
}

/** `Pattern 2: FastAPI lifespan` -> `Pattern 2`; `Area A: Job history` -> `Area A`; `Pitfall #3` -> `Pitfall 3`. */
export function headingLabel(title: string): string | undefined {
  const m = /^([A-Za-z][A-Za-z-]{1,20})\s+#?(\d+(?:\.\d+)*[a-z]?|[A-Z])(?=$|[\s:.)—–-])/.exec(title);
  if (!m) return undefined;
  const word = (m[1] as string).toLowerCase();
  return `${word.charAt(0).toUpperCase()}${word.slice(1)} ${m[2] as string}`;
}

/** Every heading outside fenced code, with the range it covers. */
export function mdSections(text: string): MdSection[] {
  const { starts, lines, fenced } = lineTable(text);
  const heads: { level: number; title: string; line: number }[] = [];
  lines.forEach((line, i) => {
    if (fenced[i]) return;
    const m = /^(#{1,6})\s+(.*\S)\s*$/.exec(line);
    if (m) heads.push({ level: (m[1] as string).length, title: cleanTitle(m[2] as string), line: i });
  });
  return heads.map((h, k) => {
    let endLine = lines.length;
    for (let j = k + 1; j < heads.length; j++) {
      if ((heads[j] as { level: number }).level <= h.level) {
        endLine = (heads[j] as { line: number }).line;
        break;
      }
    }
    const start = starts[h.line] as number;
    const end = endLine < lines.length ? (starts[endLine] as number) : text.length;
    const label = headingLabel(h.title);
    return { level: h.level, title: h.title, ...(label ? { label } : {}), start, end: trimEndOffset(text, start, end) };
  });
}

/**
 * Drop trailing blank lines, rules and bare tag lines (`</decisions>`, `<specifics>`: GSD wraps
 * sections in XML-ish blocks) from a range, so a unit is its content.
 */
function trimEndOffset(text: string, start: number, end: number): number {
  let e = end;
  for (;;) {
    const chunk = text.slice(start, e);
    const t = chunk.replace(/\s+$/, '');
    const rule = /\n\s*(?:-{3,}|\*{3,}|_{3,}|<\/?[A-Za-z_][\w-]*(?:\s[^>]*)?>)\s*$/.exec(t);
    const next = start + (rule ? t.length - rule[0].length : t.length);
    if (next === e) return e;
    e = next;
    if (!rule) return e;
  }
}

const BULLET = /^(\s*)(?:[-*+]|\d{1,3}[.)])\s+(?:\[[ xX~-]\]\s+)?/;

/**
 * Labelled items defined at a line start: a heading (`### FR-3: ...`), a list item or paragraph
 * whose first word is the label, bold or not, followed by `:`, `.`, `)` or a dash, or in brackets
 * (`- [REQ-040] ...`), or a table row
 * whose first cell is the label (a qualifier in parentheses may follow it). An item runs over its continuation lines (indented deeper, or
 * lazily continued until a blank line, a new item, a heading or a table).
 */
export function mdItems(text: string): MdItem[] {
  const { starts, lines, fenced } = lineTable(text);
  const sections = mdSections(text);
  const out: MdItem[] = [];
  const lineEnd = (i: number) => (i + 1 < lines.length ? (starts[i + 1] as number) - 1 : text.length);
  for (let i = 0; i < lines.length; i++) {
    if (fenced[i]) continue;
    const line = lines[i] as string;
    const h = HEAD_LABEL.exec(line);
    if (h) {
      const sec = sections.find((s) => s.start === starts[i]);
      if (sec) out.push({ label: h[1] as string, form: 'heading', start: sec.start, end: sec.end });
      continue;
    }
    const row = ROW_LABEL.exec(line);
    if (row) {
      out.push({ label: row[1] as string, form: 'row', start: starts[i] as number, end: lineEnd(i) });
      continue;
    }
    const bullet = BULLET.exec(line);
    const rest = bullet ? line.slice(bullet[0].length) : line;
    const lead = LEAD_LABEL.exec(rest);
    if (!lead) continue;
    if (!bullet && /^\s/.test(line)) continue;
    const indent = bullet ? (bullet[1] as string).length : 0;
    let last = i;
    for (let j = i + 1; j < lines.length; j++) {
      const l = lines[j] as string;
      if (l.trim() === '') {
        // A blank line ends the item unless the next text is indented under the bullet.
        let k = j + 1;
        while (k < lines.length && (lines[k] as string).trim() === '') k++;
        if (bullet && k < lines.length && ((lines[k] as string).length - (lines[k] as string).trimStart().length) > indent) {
          j = k - 1;
          continue;
        }
        break;
      }
      const ind = l.length - l.trimStart().length;
      if (fenced[j] && ind > indent) {
        last = j;
        continue;
      }
      // A heading, a table, code, a rule or a bare tag line (`</decisions>`) ends an item.
      if (/^\s*#{1,6}\s/.test(l) || /^\s*\|/.test(l) || fenced[j] || /^\s*(?:-{3,}|\*{3,}|_{3,})\s*$/.test(l) || /^\s*<\/?[A-Za-z_][\w-]*(?:\s[^>]*)?>\s*$/.test(l)) break;
      if (BULLET.test(l) && ind <= indent) break;
      if (!bullet && BULLET.test(l)) break;
      last = j;
    }
    out.push({ label: (lead[1] ?? lead[2]) as string, form: 'item', start: starts[i] as number, end: lineEnd(last) });
  }
  return out;
}

/**
 * The key two spellings of one label share: case and zero padding do not matter (`D-7`, `d-07`
 * and `D-007` are one label; `Pattern 02` is `Pattern 2`), a letter suffix does (`UI-06b`).
 */
export function labelKey(label: string): string {
  return label
    .trim()
    .toLowerCase()
    .replace(/\s+/g, ' ')
    .replace(/(^|[^0-9])0+(\d)/g, '$1$2');
}

/** `Anti-Patterns to Avoid` -> `anti-patterns-to-avoid`; at most 60 characters. */
export function slug(s: string): string {
  return (
    s
      .toLowerCase()
      .normalize('NFKD')
      .replace(/[\u0300-\u036f]/g, '')
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 60)
      .replace(/-+$/, '') || 'section'
  );
}
