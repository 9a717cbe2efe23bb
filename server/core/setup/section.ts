/**
 * A managed section in a Markdown file (AGENTS.md, CLAUDE.md): the text between two HTML-comment
 * markers belongs to `heimdall setup`, everything outside them to the user. Re-running setup
 * replaces the section in place, so it is never duplicated and the rest of the file is never touched.
 */
import { HeimdallError } from '../errors.js';

/** Matched by prefix, so the explanation after it may change between versions. */
export const SECTION_BEGIN = '<!-- heimdall:begin';
export const SECTION_END = '<!-- heimdall:end -->';
const BEGIN_LINE = '<!-- heimdall:begin (written by `heimdall setup`; running it again replaces this section) -->';

function eolOf(text: string): string {
  return text.includes('\r\n') ? '\r\n' : '\n';
}

/** Put `body` (lines joined with "\n") between the markers, replacing the section if it is there, appending it if not. */
export function upsertSection(text: string, file: string, body: string): string {
  const eol = eolOf(text);
  const block = [BEGIN_LINE, ...body.split('\n'), SECTION_END].join(eol);
  const lines = text.split('\n');
  const begins: number[] = [];
  const ends: number[] = [];
  lines.forEach((l, i) => {
    const t = l.trim();
    if (t.startsWith(SECTION_BEGIN)) begins.push(i);
    else if (t === SECTION_END) ends.push(i);
  });
  if (begins.length === 0 && ends.length === 0) {
    let prefix = text;
    if (prefix !== '' && !prefix.endsWith('\n')) prefix += eol;
    if (prefix.trim() !== '') prefix += eol;
    return `${prefix}${block}${eol}`;
  }
  const [b] = begins;
  const [e] = ends;
  if (begins.length !== 1 || ends.length !== 1 || b === undefined || e === undefined || e < b) {
    const where = [...begins.map((i) => `begin marker at line ${i + 1}`), ...ends.map((i) => `end marker at line ${i + 1}`)].join(', ');
    throw new HeimdallError(
      'environment',
      `${file}: expected one "${SECTION_BEGIN} ... -->" line followed by one "${SECTION_END}" line around the Heimdall section, found ${where || 'none'}. The file was left untouched; remove the stray markers by hand and run setup again.`,
      { file },
    );
  }
  // Keep whatever line ending the end-marker line had (the last line may have none).
  const before = lines.slice(0, b).join('\n');
  const endLine = lines[e] as string;
  const after = lines.slice(e + 1).join('\n');
  const tail = endLine.endsWith('\r') ? '\r' : '';
  return `${b > 0 ? `${before}\n` : ''}${block}${tail}${e + 1 < lines.length ? `\n${after}` : ''}`;
}
