/**
 * CSP/1 lexical rules: the token shapes every line is built from, and the line cursor the parser
 * walks. The grammar is line-based and deterministic (seed goal 3: "fixed grammar, no synonyms"), so
 * a parsed message has exactly one text: one space between keyword and value, no trailing blanks,
 * LF line endings. That is what makes `format(parse(text)) === text` hold for every accepted text.
 */
import type { CspError } from './types.js';

/** Agent, task, message and state ids: `MAIN`, `code-explorer`, `T001`, `3.2`, `abc-123`. */
export const ID_RE = /^[A-Za-z0-9_][A-Za-z0-9_.:@/#+-]{0,199}$/;
export const ID_RULE = 'an id: letters, digits and _ . : @ / # + - (no spaces), at most 200 characters';

/** DEF names, MEM node names and EDGE relations: upper case, fixed terms (`CODE_EXP`, `AUTH_MW`). */
export const NAME_RE = /^[A-Z][A-Z0-9_]{0,63}$/;
export const NAME_RULE = 'an upper-case name: A-Z first, then A-Z, 0-9 and _ (at most 64 characters)';

/** Checkpoints: C0, C1, ... */
export const CHECKPOINT_RE = /^C(0|[1-9][0-9]{0,8})$/;
/** Law ids: L1, L2, ... */
export const LAW_ID_RE = /^L(0|[1-9][0-9]{0,5})$/;
/** The optional tag after `<<<` / `>>>`, for content that itself contains a `>>>` line. */
export const FENCE_TAG_RE = /^[A-Za-z0-9_]{0,16}$/;
/** One item of a comma-separated list: no spaces, no commas. */
export const LIST_ITEM_RE = /^[^\s,]+$/;

/** The number after C in a checkpoint id (C12 -> 12). */
export function checkpointNumber(id: string): number {
  return Number(id.slice(1));
}

/** Free text after a keyword: non-empty, no leading or trailing whitespace. */
export function isText(v: string): boolean {
  return v.length > 0 && !/^\s/.test(v) && !/\s$/.test(v);
}

export function isList(v: string): boolean {
  return v.split(',').every((item) => LIST_ITEM_RE.test(item));
}

/** Shorten a line for an error's `got`. */
export function shown(text: string | undefined): string {
  if (text === undefined) return 'the end of the input';
  if (text === '') return 'a blank line';
  const t = text.length > 100 ? `${text.slice(0, 97)}...` : text;
  return JSON.stringify(t);
}

export interface Line {
  /** 1-based line number in the input. */
  n: number;
  text: string;
}

/** Split a key line `KEY value` into its keyword and the text after exactly one space. */
export function splitKey(text: string): { key: string; rest?: string } {
  const sp = text.indexOf(' ');
  if (sp === -1) return { key: text };
  return { key: text.slice(0, sp), rest: text.slice(sp + 1) };
}

const MAX_ERRORS = 50;

/** A cursor over the lines of one document, collecting errors instead of throwing. */
export class Cursor {
  i = 0;
  readonly errors: CspError[] = [];
  constructor(
    readonly lines: Line[],
    /** Line number to report for "the end of the input". */
    readonly endLine: number,
  ) {}

  peek(offset = 0): Line | undefined {
    return this.lines[this.i + offset];
  }
  next(): Line | undefined {
    return this.lines[this.i++];
  }
  atEnd(): boolean {
    return this.i >= this.lines.length;
  }
  /** Line number of the current line, or of the end of the input. */
  where(): number {
    return this.peek()?.n ?? this.endLine;
  }
  error(line: number, expected: string, got: string, example: string): void {
    if (this.errors.length >= MAX_ERRORS) return;
    this.errors.push({ line, expected, got, example });
  }
  /** The keyword of the current line, or undefined at the end. */
  key(): string | undefined {
    const l = this.peek();
    return l === undefined ? undefined : splitKey(l.text).key;
  }
}

/**
 * Split input into lines. One final newline is the last line's terminator, not an empty line, so
 * `"CSP/1\n...\n"` and `"CSP/1\n..."` read the same; the formatter always writes the final newline.
 */
export function toLines(text: string): Line[] {
  const body = text.endsWith('\n') ? text.slice(0, -1) : text;
  return body.split('\n').map((t, i) => ({ n: i + 1, text: t }));
}
