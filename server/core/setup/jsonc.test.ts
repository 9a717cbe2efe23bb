import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { thrown } from '../../testing/fixtures.js';
import { type JsonValue, formatJson, parseJsonDocument, setJsonValue, toValue } from './jsonc.js';

const JSON_ = { comments: false };
const JSONC = { comments: true };
const ENTRY = { type: 'stdio', command: 'npx', args: ['--no-install', 'heimdall-ledger-mcp'] };

/** Every character of `before` is still in `after`, in order: the edit only added text. */
function onlyAdded(before: string, after: string): boolean {
  let i = 0;
  for (const ch of after) if (ch === before[i]) i++;
  return i === before.length;
}

describe('parseJsonDocument', () => {
  it('reads objects, arrays, strings with escapes, numbers and literals with their offsets', () => {
    const text = '{"a": [1, -2.5e3, true, null], "b": "x\\n\\u00e9\\"", "c": {}}';
    const node = parseJsonDocument(text, JSON_, 'f.json');
    expect(toValue(node)).toEqual(JSON.parse(text));
    expect(node.kind === 'object' && text.slice(node.members[1]?.value.start, node.members[1]?.value.end)).toBe('"x\\n\\u00e9\\""');
  });

  it('reports a syntax error with the file, line, column and what was expected', () => {
    const e = thrown(() => parseJsonDocument('{\n  "a": 1\n  "b": 2\n}', JSON_, '.mcp.json'));
    expect(e.message).toMatch(/^\.mcp\.json:3:3: not valid JSON: expected "," or "}" after the value, got "\\"b\\": 2"/);
    expect(e.message).toMatch(/left untouched/);
  });

  it('refuses comments and trailing commas in plain JSON, accepts them in JSONC', () => {
    const text = '{\n  // mine\n  "a": [1, 2,],\n  /* block */ "b": 1,\n}';
    expect(thrown(() => parseJsonDocument(text, JSON_, 'x')).message).toMatch(/^x:2:3: .*comments are not allowed/);
    expect(toValue(parseJsonDocument(text, JSONC, 'x'))).toEqual({ a: [1, 2], b: 1 });
    expect(thrown(() => parseJsonDocument('{"a": 1,}', JSON_, 'x')).message).toMatch(/no trailing comma/);
  });

  it('refuses an unterminated string, a bad escape, a bad literal, trailing garbage and deep nesting', () => {
    expect(thrown(() => parseJsonDocument('{"a": "x', JSON_, 'f')).message).toMatch(/f:1:9: .*closing '"'/);
    expect(thrown(() => parseJsonDocument('{"a": "\\q"}', JSON_, 'f')).message).toMatch(/valid escape/);
    expect(thrown(() => parseJsonDocument('{"a": tru}', JSON_, 'f')).message).toMatch(/f:1:7: .*a JSON value/);
    expect(thrown(() => parseJsonDocument('{} {}', JSON_, 'f')).message).toMatch(/the end of the file after the top-level value/);
    expect(thrown(() => parseJsonDocument(`${'['.repeat(100)}${']'.repeat(100)}`, JSON_, 'f')).message).toMatch(/at most 64 levels/);
    expect(thrown(() => parseJsonDocument('{"a": 1 /* open', JSONC, 'f')).message).toMatch(/"\*\/" closing the comment/);
  });
});

describe('setJsonValue', () => {
  it('adds a member to an object that has others, keeping every byte of theirs', () => {
    const before = '{\n  "mcpServers": {\n    "github": {"command": "gh", "args": ["mcp"]}\n  },\n  "other": 1\n}\n';
    const after = setJsonValue(before, JSON_, 'f', ['mcpServers', 'heimdall'], ENTRY);
    expect(onlyAdded(before, after)).toBe(true);
    expect(JSON.parse(after)).toEqual({ mcpServers: { github: { command: 'gh', args: ['mcp'] }, heimdall: ENTRY }, other: 1 });
    expect(after).toContain('    "github": {"command": "gh", "args": ["mcp"]},\n    "heimdall": {\n      "type": "stdio",\n');
  });

  it('creates the missing objects on the way, in an empty object and in a file with only other keys', () => {
    expect(setJsonValue('{}', JSON_, 'f', ['servers', 'heimdall'], { a: 1 })).toBe('{\n  "servers": {\n    "heimdall": {\n      "a": 1\n    }\n  }\n}');
    const before = '{\n    "inputs": []\n}\n';
    const after = setJsonValue(before, JSON_, 'f', ['servers', 'heimdall'], { a: 1 });
    expect(after).toBe('{\n    "inputs": [],\n    "servers": {\n        "heimdall": {\n            "a": 1\n        }\n    }\n}\n');
  });

  it('replaces only the value it owns and reports no change when it is already there', () => {
    const before = '{ "mcpServers": {\n  "heimdall": {\n    "command": "bin/old",\n    "timeout": 30\n  }\n} }';
    const after = setJsonValue(before, JSON_, 'f', ['mcpServers', 'heimdall', 'command'], 'npx');
    expect(after).toBe(before.replace('"bin/old"', '"npx"'));
    expect(setJsonValue(after, JSON_, 'f', ['mcpServers', 'heimdall', 'command'], 'npx')).toBe(after);
  });

  it('leaves a value that is already right alone, however the user formatted it', () => {
    const before = '{"s": {"heimdall": {"args": [ "--no-install" ,\n "heimdall-ledger-mcp" ]}}}';
    expect(setJsonValue(before, JSON_, 'f', ['s', 'heimdall', 'args'], ['--no-install', 'heimdall-ledger-mcp'])).toBe(before);
  });

  it('keeps an object written on one line on one line', () => {
    const before = '{ "mcpServers": { "heimdall-ledger": { "command": "bin/heimdall-ledger-mcp" } } }\n';
    const after = setJsonValue(before, JSON_, 'f', ['mcpServers', 'heimdall'], { command: 'npx', args: ['x'] });
    expect(after).toBe('{ "mcpServers": { "heimdall-ledger": { "command": "bin/heimdall-ledger-mcp" }, "heimdall": { "command": "npx", "args": ["x"] } } }\n');
  });

  it('keeps comments, a trailing comma, a line comment on the last member, tabs and CRLF line ends', () => {
    const before = '{\r\n\t// servers\r\n\t"servers": {\r\n\t\t"a": {"url": "u"}, // the a server\r\n\t},\r\n}\r\n';
    const after = setJsonValue(before, JSONC, 'f', ['servers', 'heimdall'], { type: 'stdio' });
    expect(onlyAdded(before, after)).toBe(true);
    expect(after).toBe('{\r\n\t// servers\r\n\t"servers": {\r\n\t\t"a": {"url": "u"}, // the a server\r\n\t\t"heimdall": {\r\n\t\t\t"type": "stdio"\r\n\t\t},\r\n\t},\r\n}\r\n');
    const noComma = '{\n  "servers": {\n    "a": 1 // one\n  }\n}';
    expect(setJsonValue(noComma, JSONC, 'f', ['servers', 'b'], 2)).toBe('{\n  "servers": {\n    "a": 1, // one\n    "b": 2\n  }\n}');
  });

  it('puts the member first in an object that holds only comments', () => {
    const before = '{\n  "servers": {\n    // none yet\n  }\n}';
    expect(setJsonValue(before, JSONC, 'f', ['servers', 'h'], 1)).toBe('{\n  "servers": {\n    "h": 1\n    // none yet\n  }\n}');
  });

  it('refuses a path through something that is not an object, a non-object top level and a duplicated key, naming the line', () => {
    expect(thrown(() => setJsonValue('{\n  "servers": []\n}', JSON_, 'm.json', ['servers', 'h'], 1)).message).toMatch(/^m\.json:2: expected "servers" to be an object, found an array/);
    expect(thrown(() => setJsonValue('[]', JSON_, 'm.json', ['servers'], 1)).message).toMatch(/^m\.json:1: expected a JSON object at the top level, found an array/);
    expect(thrown(() => setJsonValue('{"servers": {"h": 1},\n"servers": {}}', JSON_, 'm.json', ['servers', 'h'], 2)).message).toMatch(/^m\.json:2: the key "servers" appears more than once/);
  });

  it('property: on any object without the key, adding it keeps every original byte and the parsed value gains exactly that key', () => {
    const key = fc.string({ maxLength: 6 }).filter((k) => k !== 'heimdall');
    const leaf = fc.oneof(fc.integer(), fc.string({ maxLength: 8 }), fc.boolean(), fc.constant(null));
    const obj = fc.dictionary(key, fc.oneof(leaf, fc.dictionary(key, leaf, { maxKeys: 3 }), fc.array(leaf, { maxLength: 3 })), { maxKeys: 5 });
    fc.assert(
      fc.property(obj, fc.constantFrom('', '  ', '    ', '\t'), fc.boolean(), (servers, indent, crlf) => {
        const raw = JSON.stringify({ servers }, null, indent);
        const before = crlf ? raw.replace(/\n/g, '\r\n') : raw;
        const after = setJsonValue(before, JSON_, 'f', ['servers', 'heimdall'], ENTRY);
        expect(onlyAdded(before, after)).toBe(true);
        expect(JSON.parse(after)).toEqual({ servers: { ...servers, heimdall: ENTRY } });
        expect(setJsonValue(after, JSON_, 'f', ['servers', 'heimdall'], ENTRY)).toBe(after);
      }),
      { numRuns: 300, seed: 12 },
    );
  });
});

describe('formatJson', () => {
  it('writes one member per line and short arrays inline, in the given style', () => {
    const v: JsonValue = { a: { b: [1, 'x'], c: [] }, d: [{ e: 1 }] };
    expect(formatJson(v, { eol: '\n', indent: '  ' }, '')).toBe('{\n  "a": {\n    "b": [1, "x"],\n    "c": []\n  },\n  "d": [\n    {\n      "e": 1\n    }\n  ]\n}');
  });
});
