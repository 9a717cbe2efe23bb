/**
 * Line ranges a plan cites: `- .planning/phases/02-x/02-RESEARCH.md lines 320–430 (ScheduledJob
 * interface, ...)`. The plan names the part of the file its executor must read by line numbers, so
 * the brief carries exactly those lines (a unit `<file key>#lines-320-430` of kind `lines`), not the
 * whole file. Lines are counted from 1 in the file as it is now, as the executor would count them.
 */

/** `lines 320–430`, `lines 52-63`, `line 42`. */
const RANGE_SOURCE = 'lines?\\s+(\\d{1,6})(?:\\s*(?:-|–|—|\\.\\.|to|through)\\s*(\\d{1,6}))?(?![0-9])';
/** Every range in a note. */
const RANGE = new RegExp(`(?<![A-Za-z0-9])${RANGE_SOURCE}`, 'gi');

export interface LineRange {
  from: number;
  to: number;
}

/** The line ranges a note names, in order, each once; a reversed or empty range is not one. */
export function lineRangesIn(note: string): LineRange[] {
  const out: LineRange[] = [];
  for (const m of note.matchAll(RANGE)) {
    const from = Number(m[1]);
    const to = m[2] === undefined ? from : Number(m[2]);
    if (from < 1 || to < from) continue;
    if (!out.some((r) => r.from === from && r.to === to)) out.push({ from, to });
  }
  return out;
}

/** The title of a range unit, as the brief and `heimdall units` show it. */
export function rangeTitle(r: LineRange): string {
  return r.from === r.to ? `line ${r.from}` : `lines ${r.from}–${r.to}`;
}

/**
 * Where lines `from`..`to` sit in `text` (LF line ends): offsets of the first line's start and the
 * last line's end (its newline excluded). A range past the end of the file is cut at its last line;
 * one that starts past the end is undefined (the executor would find nothing there).
 */
export function rangeOffsets(text: string, r: LineRange): { start: number; end: number } | undefined {
  const starts = [0];
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  // A final newline does not begin a line.
  if (starts.length > 1 && starts[starts.length - 1] === text.length) starts.pop();
  if (r.from > starts.length) return undefined;
  const to = Math.min(r.to, starts.length);
  const start = starts[r.from - 1] as number;
  const next = starts[to];
  const end = next === undefined ? text.replace(/\n$/, '').length : next - 1;
  return { start, end };
}

/** `06-RESEARCH.md line 421`, `.planning/x/02-RESEARCH.md (lines 10-20)`, `CONTEXT.md, lines 3–9`. */
const NAMED_RANGE = new RegExp(`(?<![\\w./-])((?:[\\w.-]+/)*[\\w.-]+\\.md)\`?\\)?\\s*(?:[,:(]\\s*)?(?:at\\s+)?(${RANGE_SOURCE})`, 'gi');

/**
 * `RESEARCH.md § Code Examples canonical version (lines 442-464)`, `RESEARCH § Code Examples
 * \`.env.example\` lines 852-876`: a section of the document, then the lines of it, in one clause
 * (no sentence end, semicolon, other document or section sign between). The name is a file, or the
 * document's word in capitals before its section sign.
 */
const SECTION_RANGE = new RegExp(`(?<![\\w./-])((?:[\\w.-]+/)*[\\w.-]+\\.md|[\\w-]*[A-Za-z]{4,})\`?\\s*§((?:(?![.!?;]\\s|\\.md\\b)[^\\n§]){1,80}?)(?<![A-Za-z0-9])(${RANGE_SOURCE})`, 'gi');

/** Line numbers written right after a document's name, or after a section of it it names, anywhere in a text, with the name as written. */
export function rangesAfterNames(text: string): { written: string; ranges: LineRange[] }[] {
  const out: { written: string; ranges: LineRange[] }[] = [];
  for (const m of text.matchAll(NAMED_RANGE)) {
    const ranges = lineRangesIn(m[2] as string);
    if (ranges.length) out.push({ written: m[1] as string, ranges });
  }
  for (const m of text.matchAll(SECTION_RANGE)) {
    const name = m[1] as string;
    const file = /\.md$/i.test(name);
    // A word is the document only in capitals, as plans write it ("RESEARCH §", not "see §").
    if (!file && name !== name.toUpperCase()) continue;
    const ranges = lineRangesIn(m[3] as string);
    if (ranges.length) out.push({ written: file ? name : `${name}.md`, ranges });
  }
  return out;
}
