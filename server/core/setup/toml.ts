/**
 * A TOML reader that checks a whole document (so a malformed config.toml is reported with its line
 * and left alone) and keeps the offsets of every statement, and an editor that creates or updates
 * one table's keys by splicing text: every other byte of the user's file stays as it was.
 *
 * It reads TOML 1.0 (plus the 1.1 relaxations Codex's own writer may produce: newlines and a
 * trailing comma in inline tables, `\e` and `\xHH` escapes, times without seconds). Values it does
 * not need to compare (numbers, booleans, dates) are checked for shape and kept as raw text.
 *
 * Why not a package: no TOML parser is installed, the shared install cannot take one mid-flight,
 * and a parse-then-serialise round trip would rewrite the user's comments and layout anyway.
 */
import { HeimdallError } from '../errors.js';
import { lineCol } from './jsonc.js';

export type TomlValue =
  | { type: 'string'; value: string; start: number; end: number }
  | { type: 'array'; items: TomlValue[]; start: number; end: number }
  | { type: 'inline'; entries: { key: string[]; value: TomlValue }[]; start: number; end: number }
  | { type: 'other'; raw: string; start: number; end: number };

export type TomlStatement =
  /** `end` is where the line's content ends (after any comment), before the line break. */
  | { kind: 'table' | 'arrayTable'; path: string[]; start: number; end: number }
  | { kind: 'keyval'; table: string[]; key: string[]; value: TomlValue; start: number; end: number };

/** Arrays and inline tables nested deeper than this are refused (recursion stays bounded). */
export const MAX_TOML_DEPTH = 64;

class TomlSyntaxError extends Error {
  constructor(
    readonly offset: number,
    readonly expected: string,
    readonly got: string,
  ) {
    super(`expected ${expected}, got ${got}`);
  }
}

const BARE = /[A-Za-z0-9_-]/;
const DATETIME = /^\d{4}-\d{2}-\d{2}(?:[Tt ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:[Zz]|[+-]\d{2}:\d{2})?)?|^\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?/;
const DEC = '(?:0|[1-9](?:_?\\d)*)';
const NUMBER = new RegExp(
  [
    '^0x[0-9A-Fa-f](?:_?[0-9A-Fa-f])*',
    '^0o[0-7](?:_?[0-7])*',
    '^0b[01](?:_?[01])*',
    `^[+-]?${DEC}(?:\\.\\d(?:_?\\d)*)?(?:[eE][+-]?\\d(?:_?\\d)*)?`,
    '^[+-]?(?:inf|nan)',
  ].join('|'),
);

class TomlParser {
  pos = 0;
  readonly statements: TomlStatement[] = [];
  constructor(readonly text: string) {
    if (text.charCodeAt(0) === 0xfeff) this.pos = 1;
  }

  got(at = this.pos): string {
    if (at >= this.text.length) return 'the end of the file';
    const c = this.text[at] as string;
    if (c === '\n' || c === '\r') return 'a line break';
    return JSON.stringify(this.text.slice(at, at + 12).split(/[\r\n]/)[0]);
  }

  fail(expected: string, at = this.pos): never {
    throw new TomlSyntaxError(at, expected, this.got(at));
  }

  ws(): void {
    while (this.text[this.pos] === ' ' || this.text[this.pos] === '\t') this.pos++;
  }

  atLineEnd(): boolean {
    const c = this.text[this.pos];
    return c === undefined || c === '\n' || (c === '\r' && this.text[this.pos + 1] === '\n');
  }

  comment(): void {
    if (this.text[this.pos] !== '#') return;
    while (!this.atLineEnd()) {
      const code = this.text.charCodeAt(this.pos);
      if ((code < 0x20 && code !== 0x09) || code === 0x7f) this.fail('no control characters in a comment');
      this.pos++;
    }
  }

  newline(): void {
    if (this.text[this.pos] === '\r') this.pos++;
    if (this.text[this.pos] === '\n') this.pos++;
  }

  /** Whitespace, line breaks and comments, as allowed inside arrays. */
  wsnl(): void {
    for (;;) {
      this.ws();
      if (this.text[this.pos] === '#') this.comment();
      else if (this.text[this.pos] === '\n' || (this.text[this.pos] === '\r' && this.text[this.pos + 1] === '\n')) this.newline();
      else return;
    }
  }

  document(): TomlStatement[] {
    let table: string[] = [];
    const tables = new Set<string>();
    const keys = new Set<string>();
    let scope = 'root';
    while (this.pos < this.text.length) {
      this.ws();
      if (this.atLineEnd()) {
        if (this.pos >= this.text.length) break;
        this.newline();
        continue;
      }
      if (this.text[this.pos] === '#') {
        this.comment();
        continue;
      }
      const start = this.pos;
      if (this.text[this.pos] === '[') {
        const array = this.text[this.pos + 1] === '[';
        this.pos += array ? 2 : 1;
        this.ws();
        const path = this.key();
        this.ws();
        if (array ? !this.text.startsWith(']]', this.pos) : this.text[this.pos] !== ']') this.fail(array ? '"]]" closing the array-of-tables header' : '"]" closing the table header');
        this.pos += array ? 2 : 1;
        const id = JSON.stringify(path);
        if (!array) {
          if (tables.has(id)) this.fail(`a table defined once (the table [${path.join('.')}] is already defined above)`, start);
          tables.add(id);
        }
        table = path;
        scope = `${this.statements.length}`;
        this.end();
        this.statements.push({ kind: array ? 'arrayTable' : 'table', path, start, end: this.pos });
      } else {
        const key = this.key();
        this.ws();
        if (this.text[this.pos] !== '=') this.fail(`"=" after the key ${key.join('.')}`);
        this.pos++;
        this.ws();
        const value = this.value(0);
        const id = `${scope}:${JSON.stringify(key)}`;
        if (keys.has(id)) this.fail(`a key defined once (${key.join('.')} is already defined in this table)`, start);
        keys.add(id);
        this.end();
        this.statements.push({ kind: 'keyval', table, key, value, start, end: this.pos });
      }
      this.newline();
    }
    return this.statements;
  }

  /** After a statement: optional spaces and comment, then the end of the line. */
  end(): void {
    this.ws();
    this.comment();
    if (!this.atLineEnd()) this.fail('a line break after the statement (one key = value or [table] per line)');
  }

  key(): string[] {
    const parts: string[] = [];
    for (;;) {
      this.ws();
      const c = this.text[this.pos];
      if (c === '"') {
        if (this.text.startsWith('"""', this.pos)) this.fail('a key (a key cannot be a multi-line string)');
        parts.push(this.basicString());
      } else if (c === "'") {
        if (this.text.startsWith("'''", this.pos)) this.fail('a key (a key cannot be a multi-line string)');
        parts.push(this.literalString());
      } else if (c !== undefined && BARE.test(c)) {
        const s = this.pos;
        while (this.text[this.pos] !== undefined && BARE.test(this.text[this.pos] as string)) this.pos++;
        parts.push(this.text.slice(s, this.pos));
      } else this.fail('a key (letters, digits, "_" and "-", or a quoted string)');
      this.ws();
      if (this.text[this.pos] !== '.') return parts;
      this.pos++;
    }
  }

  value(depth: number): TomlValue {
    if (depth > MAX_TOML_DEPTH) this.fail(`at most ${MAX_TOML_DEPTH} levels of nested arrays and inline tables`);
    const start = this.pos;
    const t = this.text;
    if (t.startsWith('"""', start)) return { type: 'string', value: this.multiline('"'), start, end: this.pos };
    if (t.startsWith("'''", start)) return { type: 'string', value: this.multiline("'"), start, end: this.pos };
    if (t[start] === '"') return { type: 'string', value: this.basicString(), start, end: this.pos };
    if (t[start] === "'") return { type: 'string', value: this.literalString(), start, end: this.pos };
    if (t[start] === '[') return this.array(depth);
    if (t[start] === '{') return this.inline(depth);
    const rest = t.slice(start, start + 64);
    const m = /^(?:true|false)/.exec(rest) ?? DATETIME.exec(rest) ?? NUMBER.exec(rest);
    if (!m) return this.fail('a value (a "string", a number, true/false, a date, an [array] or an { inline table })');
    this.pos += m[0].length;
    const next = t[this.pos];
    if (next !== undefined && !' \t\r\n,]}#'.includes(next)) this.fail('the end of the value');
    return { type: 'other', raw: m[0], start, end: this.pos };
  }

  escape(): string {
    const t = this.text;
    const e = t[this.pos + 1];
    const simple: Record<string, string> = { b: '\b', t: '\t', n: '\n', f: '\f', r: '\r', e: '\x1b', '"': '"', '\\': '\\' };
    if (e !== undefined && simple[e] !== undefined) {
      this.pos += 2;
      return simple[e];
    }
    const hex = e === 'u' ? 4 : e === 'U' ? 8 : e === 'x' ? 2 : 0;
    const digits = t.slice(this.pos + 2, this.pos + 2 + hex);
    if (hex && new RegExp(`^[0-9A-Fa-f]{${hex}}$`).test(digits)) {
      const cp = Number.parseInt(digits, 16);
      if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) this.fail('a Unicode scalar value in the escape');
      this.pos += 2 + hex;
      return String.fromCodePoint(cp);
    }
    return this.fail('a valid escape (\\b \\t \\n \\f \\r \\e \\" \\\\ \\xHH \\uXXXX \\UXXXXXXXX)', this.pos);
  }

  basicString(): string {
    const t = this.text;
    this.pos++;
    let out = '';
    for (;;) {
      const c = t[this.pos];
      if (c === undefined || c === '\n' || c === '\r') this.fail('a closing \'"\' (use """ for a string over several lines)');
      if (c === '"') {
        this.pos++;
        return out;
      }
      if (c === '\\') {
        out += this.escape();
        continue;
      }
      const code = c.charCodeAt(0);
      if ((code < 0x20 && code !== 0x09) || code === 0x7f) this.fail('no control characters in a string (escape them)');
      out += c;
      this.pos++;
    }
  }

  literalString(): string {
    const t = this.text;
    const close = t.slice(this.pos + 1).search(/['\r\n]/);
    if (close === -1 || t[this.pos + 1 + close] !== "'") this.fail("a closing \"'\" (use ''' for a string over several lines)", this.pos + 1 + (close === -1 ? t.length : close));
    const value = t.slice(this.pos + 1, this.pos + 1 + close);
    this.pos += close + 2;
    return value;
  }

  multiline(q: '"' | "'"): string {
    const t = this.text;
    const delim = q.repeat(3);
    this.pos += 3;
    if (t[this.pos] === '\n') this.pos++;
    else if (t.startsWith('\r\n', this.pos)) this.pos += 2;
    let out = '';
    for (;;) {
      const c = t[this.pos];
      if (c === undefined) this.fail(`${delim} closing the multi-line string`);
      if (t.startsWith(delim, this.pos)) {
        // Up to two quotes may sit right before the closing delimiter.
        let n = 3;
        while (t[this.pos + n] === q && n < 5) n++;
        out += q.repeat(n - 3);
        this.pos += n;
        return out;
      }
      if (q === '"' && c === '\\') {
        const after = /^\\[ \t]*\r?\n[\s]*/.exec(t.slice(this.pos));
        if (after) {
          this.pos += after[0].length; // a line-ending backslash trims the break and leading space
          continue;
        }
        out += this.escape();
        continue;
      }
      out += c;
      this.pos++;
    }
  }

  array(depth: number): TomlValue {
    const start = this.pos;
    this.pos++;
    const items: TomlValue[] = [];
    for (;;) {
      this.wsnl();
      if (this.text[this.pos] === ']') break;
      items.push(this.value(depth + 1));
      this.wsnl();
      if (this.text[this.pos] === ',') {
        this.pos++;
        continue;
      }
      if (this.text[this.pos] !== ']') this.fail('"," or "]" in the array');
      break;
    }
    this.pos++;
    return { type: 'array', items, start, end: this.pos };
  }

  inline(depth: number): TomlValue {
    const start = this.pos;
    this.pos++;
    const entries: { key: string[]; value: TomlValue }[] = [];
    for (;;) {
      this.wsnl();
      if (this.text[this.pos] === '}') break;
      const key = this.key();
      this.ws();
      if (this.text[this.pos] !== '=') this.fail(`"=" after the key ${key.join('.')}`);
      this.pos++;
      this.ws();
      entries.push({ key, value: this.value(depth + 1) });
      this.wsnl();
      if (this.text[this.pos] === ',') {
        this.pos++;
        continue;
      }
      if (this.text[this.pos] !== '}') this.fail('"," or "}" in the inline table');
      break;
    }
    this.pos++;
    return { type: 'inline', entries, start, end: this.pos };
  }
}

/** Parse and check a TOML document; a syntax error names the file, line, column and what was expected. */
export function parseToml(text: string, file: string): TomlStatement[] {
  try {
    return new TomlParser(text).document();
  } catch (e) {
    if (!(e instanceof TomlSyntaxError)) throw e;
    const { line, column } = lineCol(text, e.offset);
    throw new HeimdallError('environment', `${file}:${line}:${column}: not valid TOML: ${e.message}. The file was left untouched; fix it by hand and run setup again.`, {
      file,
      line,
      column,
      expected: e.expected,
    });
  }
}

/** A TOML basic string. */
export function tomlString(s: string): string {
  return `"${s.replace(/[\\"\u0000-\u001f\u007f]/g, (c) => {
    const named: Record<string, string> = { '\\': '\\\\', '"': '\\"', '\n': '\\n', '\t': '\\t', '\r': '\\r', '\b': '\\b', '\f': '\\f' };
    return named[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
  })}"`;
}

function tomlLiteral(value: string | string[]): string {
  return Array.isArray(value) ? `[${value.map(tomlString).join(', ')}]` : tomlString(value);
}

function sameValue(v: TomlValue, want: string | string[]): boolean {
  if (Array.isArray(want)) {
    return v.type === 'array' && v.items.length === want.length && v.items.every((it, i) => it.type === 'string' && it.value === want[i]);
  }
  return v.type === 'string' && v.value === want;
}

/** One key setup manages in its table: `set` owns the value; `include` only makes sure an array holds `value`. */
export interface TomlEntry {
  key: string;
  value: string | string[];
  mode: 'set' | 'include';
}

const startsWith = (a: string[], prefix: string[]) => prefix.length <= a.length && prefix.every((p, i) => a[i] === p);
const keyText = (path: string[]) => path.map((p) => (/^[A-Za-z0-9_-]+$/.test(p) ? p : tomlString(p))).join('.');

/**
 * Create or update the keys `entries` of the table `[table]`, touching nothing else: other keys of
 * that table (e.g. startup_timeout_sec), its sub-tables (e.g. Codex's per-tool approvals under
 * `[mcp_servers.NAME.tools.TOOL]`) and every other table keep their bytes. When the table does not
 * exist it is appended, preceded by `comment` lines. A table defined some other way (dotted keys,
 * an inline table, an array of tables) is refused with its line rather than rewritten.
 */
export function upsertTomlTable(text: string, file: string, table: string[], entries: TomlEntry[], comment: string[] = []): string {
  const statements = parseToml(text, file);
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const name = `[${keyText(table)}]`;
  for (const s of statements) {
    const refuse = (how: string): never => {
      const { line } = lineCol(text, s.start);
      throw new HeimdallError('environment', `${file}:${line}: ${how}; setup manages a ${name} table and will not rewrite this. The file was left untouched; move it into a ${name} table (or remove it) and run setup again.`, {
        file,
        line,
      });
    };
    if (s.kind === 'arrayTable' && startsWith(table, s.path)) refuse(`[[${keyText(s.path)}]] makes ${keyText(s.path)} an array of tables`);
    if (s.kind === 'keyval') {
      const full = [...s.table, ...s.key];
      if (startsWith(table, full)) refuse(`${keyText(full)} is defined here as a value${s.value.type === 'inline' ? ' (an inline table)' : ''}`);
      if (startsWith(full, table) && s.table.length < table.length) refuse(`${keyText(table)} is defined here with dotted keys`);
    }
  }
  const header = statements.find((s) => s.kind === 'table' && s.path.length === table.length && startsWith(s.path, table));
  if (!header) {
    const lines = [...comment.map((c) => `# ${c}`), name, ...entries.map((e) => `${keyText([e.key])} = ${tomlLiteral(e.mode === 'include' ? [e.value as string] : e.value)}`)];
    let prefix = text;
    if (prefix !== '' && !prefix.endsWith('\n')) prefix += eol;
    if (prefix.trim() !== '') prefix += eol;
    return `${prefix}${lines.join(eol)}${eol}`;
  }
  const at = statements.indexOf(header);
  const next = statements.slice(at + 1).findIndex((s) => s.kind !== 'keyval');
  const region = statements.slice(at + 1, next === -1 ? undefined : at + 1 + next).filter((s): s is Extract<TomlStatement, { kind: 'keyval' }> => s.kind === 'keyval');
  const edits: { from: number; to: number; text: string }[] = [];
  const missing: string[] = [];
  for (const e of entries) {
    const current = region.find((s) => s.key.length === 1 && s.key[0] === e.key);
    if (!current) {
      missing.push(`${keyText([e.key])} = ${tomlLiteral(e.mode === 'include' ? [e.value as string] : e.value)}`);
      continue;
    }
    const v = current.value;
    if (e.mode === 'set') {
      if (!sameValue(v, e.value)) edits.push({ from: v.start, to: v.end, text: tomlLiteral(e.value) });
      continue;
    }
    if (v.type !== 'array') {
      const { line } = lineCol(text, v.start);
      throw new HeimdallError('environment', `${file}:${line}: expected ${keyText([...table, e.key])} to be an array, found ${v.type === 'string' ? 'a string' : v.type === 'inline' ? 'an inline table' : v.raw}. The file was left untouched.`, { file, line });
    }
    const want = e.value as string;
    const has = v.items.some((it) => (it.type === 'string' && it.value === want) || (it.type === 'inline' && it.entries.some((x) => x.key.length === 1 && x.key[0] === 'name' && x.value.type === 'string' && x.value.value === want)));
    if (has) continue;
    const last = v.items[v.items.length - 1];
    edits.push(last ? { from: last.end, to: last.end, text: `, ${tomlString(want)}` } : { from: v.start + 1, to: v.start + 1, text: tomlString(want) });
  }
  if (missing.length > 0) {
    const after = (region[region.length - 1] ?? header).end;
    edits.push({ from: after, to: after, text: missing.map((l) => `${eol}${l}`).join('') });
  }
  let out = text;
  for (const ed of edits.sort((a, b) => b.from - a.from)) out = out.slice(0, ed.from) + ed.text + out.slice(ed.to);
  return out;
}
