/**
 * A JSON (and JSON-with-comments) reader that keeps every value's byte offsets, and an editor that
 * sets one value at a path by splicing text, so everything else in a user's file (other servers,
 * other keys, comments, key order, indentation, line endings) stays exactly as it was.
 *
 * Why not JSON.parse + JSON.stringify: re-serialising would reformat the user's whole file and drop
 * the comments VS Code's `.vscode/mcp.json` may hold. Why not a package (jsonc-parser does this):
 * the edit we need is small, and the shared install cannot take a new dependency mid-flight.
 */
import { HeimdallError } from '../errors.js';

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

export interface JsonMember {
  key: string;
  keyStart: number;
  value: JsonNode;
}

export type JsonNode =
  | { kind: 'object'; start: number; end: number; members: JsonMember[] }
  | { kind: 'array'; start: number; end: number; items: JsonNode[] }
  | { kind: 'string' | 'number' | 'boolean' | 'null'; start: number; end: number; value: JsonValue };

export interface JsonDialect {
  /** `//` and `/* *\/` comments and a comma before `}` or `]` (VS Code's and Cursor's mcp.json). */
  comments: boolean;
}

/** Nesting deeper than this is refused: a config file never needs it, and recursion must stay bounded. */
export const MAX_JSON_DEPTH = 64;

/** 1-based line and column of a byte offset, for messages a person can act on. */
export function lineCol(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  return { line, column: offset - before.lastIndexOf('\n') };
}

function describe(text: string, pos: number): string {
  if (pos >= text.length) return 'the end of the file';
  const ch = text[pos] as string;
  if (ch === '\n' || ch === '\r') return 'a line break';
  return JSON.stringify(text.slice(pos, pos + 12).split(/[\r\n]/)[0]);
}

/** A syntax error carrying where it happened and what was expected there. */
export class JsonSyntaxError extends Error {
  constructor(
    readonly offset: number,
    readonly expected: string,
    readonly got: string,
  ) {
    super(`expected ${expected}, got ${got}`);
  }
}

class Parser {
  pos = 0;
  constructor(
    readonly text: string,
    readonly dialect: JsonDialect,
  ) {
    if (text.charCodeAt(0) === 0xfeff) this.pos = 1; // a byte-order mark is not content
  }

  fail(expected: string): never {
    throw new JsonSyntaxError(this.pos, expected, describe(this.text, this.pos));
  }

  skip(): void {
    const t = this.text;
    for (;;) {
      const c = t[this.pos];
      if (c === ' ' || c === '\t' || c === '\n' || c === '\r') this.pos++;
      else if (c === '/' && t[this.pos + 1] === '/') {
        if (!this.dialect.comments) this.fail('a JSON value (this file is read as plain JSON: comments are not allowed)');
        while (this.pos < t.length && t[this.pos] !== '\n') this.pos++;
      } else if (c === '/' && t[this.pos + 1] === '*') {
        if (!this.dialect.comments) this.fail('a JSON value (this file is read as plain JSON: comments are not allowed)');
        const close = t.indexOf('*/', this.pos + 2);
        if (close === -1) this.fail('"*/" closing the comment');
        this.pos = close + 2;
      } else return;
    }
  }

  document(): JsonNode {
    this.skip();
    const node = this.value(0);
    this.skip();
    if (this.pos < this.text.length) this.fail('the end of the file after the top-level value');
    return node;
  }

  value(depth: number): JsonNode {
    if (depth > MAX_JSON_DEPTH) this.fail(`at most ${MAX_JSON_DEPTH} levels of nesting`);
    const t = this.text;
    const start = this.pos;
    const c = t[this.pos];
    if (c === '{') return this.object(depth);
    if (c === '[') return this.array(depth);
    if (c === '"') {
      const value = this.string();
      return { kind: 'string', start, end: this.pos, value };
    }
    for (const [word, value] of [['true', true], ['false', false], ['null', null]] as const) {
      if (t.startsWith(word, this.pos)) {
        this.pos += word.length;
        return { kind: value === null ? 'null' : 'boolean', start, end: this.pos, value };
      }
    }
    const m = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/.exec(t.slice(this.pos, this.pos + 64));
    if (m) {
      this.pos += m[0].length;
      return { kind: 'number', start, end: this.pos, value: Number(m[0]) };
    }
    return this.fail('a JSON value (an object, array, string, number, true, false or null)');
  }

  string(): string {
    const t = this.text;
    this.pos++; // opening quote
    let out = '';
    for (;;) {
      const c = t[this.pos];
      if (c === undefined) this.fail('a closing \'"\'');
      if (c === '"') {
        this.pos++;
        return out;
      }
      if (c === '\\') {
        const e = t[this.pos + 1];
        const simple: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };
        if (e !== undefined && simple[e] !== undefined) {
          out += simple[e];
          this.pos += 2;
        } else if (e === 'u' && /^[0-9a-fA-F]{4}$/.test(t.slice(this.pos + 2, this.pos + 6))) {
          out += String.fromCharCode(Number.parseInt(t.slice(this.pos + 2, this.pos + 6), 16));
          this.pos += 6;
        } else {
          this.pos++;
          this.fail('a valid escape (\\" \\\\ \\/ \\b \\f \\n \\r \\t or \\uXXXX)');
        }
        continue;
      }
      if (c.charCodeAt(0) < 0x20) this.fail('a closing \'"\' (a string cannot span lines)');
      out += c;
      this.pos++;
    }
  }

  object(depth: number): JsonNode {
    const start = this.pos;
    this.pos++;
    const members: JsonMember[] = [];
    for (;;) {
      this.skip();
      if (this.text[this.pos] === '}') break;
      if (this.text[this.pos] !== '"') this.fail(members.length === 0 ? 'a key in double quotes or "}"' : 'a key in double quotes');
      const keyStart = this.pos;
      const key = this.string();
      this.skip();
      if (this.text[this.pos] !== ':') this.fail(`":" after the key ${JSON.stringify(key)}`);
      this.pos++;
      this.skip();
      members.push({ key, keyStart, value: this.value(depth + 1) });
      this.skip();
      if (this.text[this.pos] === ',') {
        this.pos++;
        this.skip();
        if (this.text[this.pos] === '}') {
          if (!this.dialect.comments) this.fail('another "key": value after the comma (plain JSON allows no trailing comma)');
          break;
        }
        continue;
      }
      if (this.text[this.pos] !== '}') this.fail('"," or "}" after the value');
      break;
    }
    this.pos++;
    return { kind: 'object', start, end: this.pos, members };
  }

  array(depth: number): JsonNode {
    const start = this.pos;
    this.pos++;
    const items: JsonNode[] = [];
    for (;;) {
      this.skip();
      if (this.text[this.pos] === ']') break;
      items.push(this.value(depth + 1));
      this.skip();
      if (this.text[this.pos] === ',') {
        this.pos++;
        this.skip();
        if (this.text[this.pos] === ']') {
          if (!this.dialect.comments) this.fail('another value after the comma (plain JSON allows no trailing comma)');
          break;
        }
        continue;
      }
      if (this.text[this.pos] !== ']') this.fail('"," or "]" after the value');
      break;
    }
    this.pos++;
    return { kind: 'array', start, end: this.pos, items };
  }
}

/**
 * Parse `text`; a syntax error becomes an `environment` error naming the file, the line and column,
 * and what was expected there.
 */
export function parseJsonDocument(text: string, dialect: JsonDialect, file: string): JsonNode {
  try {
    return new Parser(text, dialect).document();
  } catch (e) {
    if (!(e instanceof JsonSyntaxError)) throw e;
    const { line, column } = lineCol(text, e.offset);
    throw new HeimdallError('environment', `${file}:${line}:${column}: not valid ${dialect.comments ? 'JSON (with comments)' : 'JSON'}: ${e.message}. The file was left untouched; fix it by hand and run setup again.`, {
      file,
      line,
      column,
      expected: e.expected,
    });
  }
}

/** The plain value of a node. */
export function toValue(node: JsonNode): JsonValue {
  if (node.kind === 'object') {
    const out: { [key: string]: JsonValue } = Object.create(null);
    for (const m of node.members) out[m.key] = toValue(m.value);
    return out;
  }
  if (node.kind === 'array') return node.items.map(toValue);
  return node.value;
}

export function jsonEqual(a: JsonValue, b: JsonValue): boolean {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => jsonEqual(x, b[i] as JsonValue));
  }
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return ka.length === kb.length && ka.every((k) => Object.hasOwn(b, k) && jsonEqual(a[k] as JsonValue, b[k] as JsonValue));
}

/** The text conventions of a file, so inserted text looks like the rest of it. */
export interface TextStyle {
  eol: string;
  indent: string;
}

export function detectStyle(text: string): TextStyle {
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  let indent = '';
  for (const line of text.split('\n')) {
    const m = /^([ \t]+)\S/.exec(line);
    if (!m) continue;
    const ws = m[1] as string;
    if (ws.startsWith('\t')) {
      indent = '\t';
      break;
    }
    if (indent === '' || ws.length < indent.length) indent = ws;
  }
  return { eol, indent: indent || '  ' };
}

/** Pretty JSON in the file's style: objects one member per line, arrays of plain values on one line. */
export function formatJson(value: JsonValue, style: TextStyle, base: string): string {
  if (Array.isArray(value)) {
    if (value.every((v) => v === null || typeof v !== 'object')) return `[${value.map((v) => JSON.stringify(v)).join(', ')}]`;
    if (value.length === 0) return '[]';
    const inner = base + style.indent;
    return `[${style.eol}${value.map((v) => inner + formatJson(v, style, inner)).join(`,${style.eol}`)}${style.eol}${base}]`;
  }
  if (value !== null && typeof value === 'object') {
    const keys = Object.keys(value);
    if (keys.length === 0) return '{}';
    const inner = base + style.indent;
    return `{${style.eol}${keys.map((k) => `${inner}${JSON.stringify(k)}: ${formatJson(value[k] as JsonValue, style, inner)}`).join(`,${style.eol}`)}${style.eol}${base}}`;
  }
  return JSON.stringify(value);
}

/** One-line JSON with a space after each ":" and ",", for objects the user wrote on one line. */
export function formatJsonInline(value: JsonValue): string {
  if (Array.isArray(value)) return `[${value.map(formatJsonInline).join(', ')}]`;
  if (value !== null && typeof value === 'object') {
    return `{ ${Object.keys(value)
      .map((k) => `${JSON.stringify(k)}: ${formatJsonInline(value[k] as JsonValue)}`)
      .join(', ')} }`;
  }
  return JSON.stringify(value);
}

function lineStart(text: string, offset: number): number {
  return text.lastIndexOf('\n', offset - 1) + 1;
}

function lineIndent(text: string, offset: number): string {
  const s = lineStart(text, offset);
  return (/^[ \t]*/.exec(text.slice(s)) as RegExpExecArray)[0];
}

function sameLine(text: string, a: number, b: number): boolean {
  return !text.slice(a, b).includes('\n');
}

function kindName(node: JsonNode): string {
  return node.kind === 'object' ? 'an object' : node.kind === 'array' ? 'an array' : node.kind === 'null' ? 'null' : `a ${node.kind}`;
}

function nest(path: string[], value: JsonValue): JsonValue {
  let v = value;
  for (let i = path.length - 1; i >= 0; i--) v = { [path[i] as string]: v };
  return v;
}

/**
 * Set the value at `path` (object keys from the top-level object down), creating the objects on
 * the way, by replacing or inserting only the text of that value. Returns the text unchanged when
 * the value is already there. Refuses (with the line) a path that runs through something that is
 * not an object, or a key that appears twice in the same object (which copy would the client use?).
 */
export function setJsonValue(text: string, dialect: JsonDialect, file: string, path: string[], value: JsonValue): string {
  const style = detectStyle(text);
  const root = parseJsonDocument(text, dialect, file);
  if (root.kind !== 'object') {
    const { line } = lineCol(text, root.start);
    throw new HeimdallError('environment', `${file}:${line}: expected a JSON object at the top level, found ${kindName(root)}. The file was left untouched.`, { file, line });
  }
  let obj = root;
  for (let i = 0; i < path.length; i++) {
    const key = path[i] as string;
    const found = obj.members.filter((m) => m.key === key);
    const where = path.slice(0, i + 1).join('.');
    if (found.length > 1) {
      const { line } = lineCol(text, (found[1] as JsonMember).keyStart);
      throw new HeimdallError('environment', `${file}:${line}: the key ${JSON.stringify(where)} appears more than once; remove the duplicate by hand and run setup again. The file was left untouched.`, { file, line });
    }
    const member = found[0];
    if (!member) return insertMember(text, style, obj, key, nest(path.slice(i + 1), value));
    if (i === path.length - 1) {
      if (jsonEqual(toValue(member.value), value)) return text;
      const v = member.value;
      const rendered = sameLine(text, obj.start, obj.end) ? formatJsonInline(value) : formatJson(value, style, lineIndent(text, member.keyStart));
      return text.slice(0, v.start) + rendered + text.slice(v.end);
    }
    if (member.value.kind !== 'object') {
      const { line } = lineCol(text, member.value.start);
      throw new HeimdallError('environment', `${file}:${line}: expected ${JSON.stringify(where)} to be an object, found ${kindName(member.value)}. The file was left untouched; fix it by hand and run setup again.`, {
        file,
        line,
      });
    }
    obj = member.value;
  }
  return text; // an empty path: nothing to set
}

function insertMember(text: string, style: TextStyle, obj: Extract<JsonNode, { kind: 'object' }>, key: string, value: JsonValue): string {
  const last = obj.members[obj.members.length - 1];
  const closeBrace = obj.end - 1;
  if (last && sameLine(text, obj.start, obj.end)) {
    // The user wrote this object on one line: keep it on one line.
    return `${text.slice(0, last.value.end)}, ${JSON.stringify(key)}: ${formatJsonInline(value)}${text.slice(last.value.end)}`;
  }
  const outer = lineIndent(text, obj.start);
  if (!last) {
    const inner = outer + style.indent;
    const member = `${JSON.stringify(key)}: ${formatJson(value, style, inner)}`;
    const interior = text.slice(obj.start + 1, closeBrace);
    if (interior.trim() === '') return `${text.slice(0, obj.start + 1)}${style.eol}${inner}${member}${style.eol}${outer}${text.slice(closeBrace)}`;
    // Only comments inside: put the member first, leave the comments where they are.
    return `${text.slice(0, obj.start + 1)}${style.eol}${inner}${member}${text.slice(obj.start + 1)}`;
  }
  const inner = lineIndent(text, last.keyStart);
  const member = `${JSON.stringify(key)}: ${formatJson(value, style, inner)}`;
  // After the last value: an optional trailing comma, then maybe a line comment, then the line end.
  const p = last.value.end;
  const trailingComma = /^[ \t]*,/.exec(text.slice(p));
  const afterComma = trailingComma ? p + trailingComma[0].length : p;
  const rest = /^[ \t]*(\/\/[^\r\n]*)?(?=\r?\n)/.exec(text.slice(afterComma));
  if (rest) {
    // Insert on a new line after this one, so a trailing line comment stays with its member.
    const lineEnd = afterComma + rest[0].length;
    if (trailingComma) return `${text.slice(0, lineEnd)}${style.eol}${inner}${member},${text.slice(lineEnd)}`;
    return `${text.slice(0, p)},${text.slice(p, lineEnd)}${style.eol}${inner}${member}${text.slice(lineEnd)}`;
  }
  if (trailingComma) return `${text.slice(0, afterComma)}${style.eol}${inner}${member},${text.slice(afterComma)}`;
  return `${text.slice(0, p)},${style.eol}${inner}${member}${text.slice(p)}`;
}

/**
 * Append `value` to the array at `path` (object keys from the top-level object down), creating the
 * objects and the array on the way when they are missing, by inserting only the new item's text:
 * the items already there, comments and layout stay as they are. Refuses (with the line) a path
 * that runs through something that is not an object, ends at something that is not an array, or
 * names a key twice.
 */
export function appendJsonArrayItem(text: string, dialect: JsonDialect, file: string, path: string[], value: JsonValue): string {
  const root = parseJsonDocument(text, dialect, file);
  // setJsonValue says what is wrong, with the line, when the path runs through a non-object.
  if (root.kind !== 'object' || path.length === 0) return setJsonValue(text, dialect, file, path, [value]);
  let node: JsonNode = root;
  for (let i = 0; i < path.length; i++) {
    const key = path[i] as string;
    const where = path.slice(0, i + 1).join('.');
    if (node.kind !== 'object') return setJsonValue(text, dialect, file, path, [value]);
    const found: JsonMember[] = node.members.filter((m) => m.key === key);
    if (found.length !== 1) return setJsonValue(text, dialect, file, path, [value]);
    node = (found[0] as JsonMember).value;
    if (i === path.length - 1 && node.kind !== 'array') {
      const { line } = lineCol(text, node.start);
      throw new HeimdallError('environment', `${file}:${line}: expected ${JSON.stringify(where)} to be an array, found ${kindName(node)}. The file was left untouched; fix it by hand and run setup again.`, { file, line });
    }
  }
  if (node.kind !== 'array') return setJsonValue(text, dialect, file, path, [value]);
  const style = detectStyle(text);
  const open = node.start;
  const close = node.end - 1;
  const last = node.items[node.items.length - 1];
  if (!last) {
    const outer = lineIndent(text, open);
    const inner = outer + style.indent;
    const item = formatJson(value, style, inner);
    const interior = text.slice(open + 1, close);
    if (interior.trim() === '') return `${text.slice(0, open + 1)}${style.eol}${inner}${item}${style.eol}${outer}${text.slice(close)}`;
    // Only comments inside: the item goes first, the comments stay where they are.
    return `${text.slice(0, open + 1)}${style.eol}${inner}${item}${text.slice(open + 1)}`;
  }
  if (sameLine(text, open, node.end)) {
    return `${text.slice(0, last.end)}, ${formatJsonInline(value)}${text.slice(last.end)}`;
  }
  const inner = lineIndent(text, last.start);
  const item = formatJson(value, style, inner);
  const p = last.end;
  const trailingComma = /^[ \t]*,/.exec(text.slice(p));
  const afterComma = trailingComma ? p + trailingComma[0].length : p;
  const rest = /^[ \t]*(\/\/[^\r\n]*)?(?=\r?\n)/.exec(text.slice(afterComma));
  if (rest) {
    // On a new line after this one, so a trailing line comment stays with its item.
    const lineEnd = afterComma + rest[0].length;
    if (trailingComma) return `${text.slice(0, lineEnd)}${style.eol}${inner}${item},${text.slice(lineEnd)}`;
    return `${text.slice(0, p)},${text.slice(p, lineEnd)}${style.eol}${inner}${item}${text.slice(lineEnd)}`;
  }
  if (trailingComma) return `${text.slice(0, afterComma)}${style.eol}${inner}${item},${text.slice(afterComma)}`;
  return `${text.slice(0, p)},${style.eol}${inner}${item}${text.slice(p)}`;
}

/** Replace the text of one parsed value (a node of `parseJsonDocument(text)`) with `value`, on one line. */
export function replaceJsonNode(text: string, node: JsonNode, value: JsonValue): string {
  return text.slice(0, node.start) + formatJsonInline(value) + text.slice(node.end);
}
