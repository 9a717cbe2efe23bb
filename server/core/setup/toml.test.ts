import { describe, expect, it } from 'vitest';
import { thrown } from '../../testing/fixtures.js';
import { type TomlEntry, parseToml, tomlString, upsertTomlTable } from './toml.js';

const TABLE = ['mcp_servers', 'heimdall'];
const ENTRIES: TomlEntry[] = [
  { key: 'command', value: 'npx', mode: 'set' },
  { key: 'args', value: ['--no-install', 'heimdall-ledger-mcp'], mode: 'set' },
  { key: 'env_vars', value: 'HEIMDALL_AGENT', mode: 'include' },
];
const upsert = (text: string) => upsertTomlTable(text, 'config.toml', TABLE, ENTRIES, ['Heimdall']);

/** A realistic Codex config.toml: every TOML construct setup must read past without changing a byte. */
const USER_CONFIG = `#:schema https://developers.openai.com/codex/config-schema.json
model = "gpt-5.4"   # default model
approval_policy = 'on-request'
model_reasoning_effort = "high"
retries = 0x1F
ratio = +1_000.5e-3
when = 1979-05-27T07:32:00-08:00
day = 1979-05-27
nothing = -inf
notes = """
  a [fake.table] inside a string
  and "quotes" \\
  continued"""
raw = '''C:\\path [x]'''
sandbox_workspace_write = { network_access = false, writable_roots = ["/tmp",
  "/var/tmp"] }

[mcp_servers.docs]
command = "docs-server"
args = [
  "--port", "3000", # the port
]
env = { "API_KEY" = "value" }

[mcp_servers.docs.tools.search]
approval_mode = "approve"

[[profiles.fast.hooks]]
name = "a"
[[profiles.fast.hooks]]
name = "b"

[projects."/home/me/code/app"]
trust_level = "trusted"
`;

describe('parseToml', () => {
  it('reads a realistic config: strings of every kind, numbers, dates, arrays over lines, inline tables, arrays of tables', () => {
    const s = parseToml(USER_CONFIG, 'c');
    const headers = s.flatMap((x) => (x.kind === 'keyval' ? [] : [`${x.kind}:${x.path.join('.')}`]));
    expect(headers).toEqual(['table:mcp_servers.docs', 'table:mcp_servers.docs.tools.search', 'arrayTable:profiles.fast.hooks', 'arrayTable:profiles.fast.hooks', 'table:projects./home/me/code/app']);
    const notes = s.find((x) => x.kind === 'keyval' && x.key[0] === 'notes');
    expect(notes?.kind === 'keyval' && notes.value.type === 'string' && notes.value.value).toBe('  a [fake.table] inside a string\n  and "quotes" continued');
    const args = s.find((x) => x.kind === 'keyval' && x.key[0] === 'args');
    expect(args?.kind === 'keyval' && args.value.type === 'array' && args.value.items.map((i) => (i.type === 'string' ? i.value : '?'))).toEqual(['--port', '3000']);
  });

  it('reports malformed TOML with the file, line, column and what was expected', () => {
    const cases: [string, RegExp][] = [
      ['a = 1\n[mcp_servers.x\ncommand = "y"\n', /^c:2:15: not valid TOML: expected "]" closing the table header, got a line break/],
      ['a = "unterminated\n', /^c:1:18: .*closing '"'/],
      ['a = 1 b = 2\n', /^c:1:7: .*a line break after the statement/],
      ['a =\n', /^c:1:4: .*expected a value/],
      ['a = [1, 2\nb = 3\n', /^c:2:1: .*"," or "\]" in the array/],
      ['[t]\nx = 1\n[t]\n', /^c:3:1: .*the table \[t\] is already defined above/],
      ['x = 1\nx = 2\n', /^c:2:1: .*x is already defined in this table/],
      ['a = 12abc\n', /^c:1:7: .*the end of the value/],
      ['a = "\\q"\n', /^c:1:6: .*a valid escape/],
      ['a = """never closed\n', /"""" closing the multi-line string|""" closing the multi-line string/],
    ];
    for (const [text, re] of cases) expect(thrown(() => parseToml(text, 'c')).message, text).toMatch(re);
    expect(thrown(() => parseToml('a = 1\n[t\n', 'c')).message).toMatch(/left untouched/);
  });

  it('bounds nesting', () => {
    expect(thrown(() => parseToml(`a = ${'['.repeat(80)}${']'.repeat(80)}\n`, 'c')).message).toMatch(/at most 64 levels/);
  });
});

describe('upsertTomlTable', () => {
  it('writes a fresh table into an empty file', () => {
    expect(upsert('')).toBe('# Heimdall\n[mcp_servers.heimdall]\ncommand = "npx"\nargs = ["--no-install", "heimdall-ledger-mcp"]\nenv_vars = ["HEIMDALL_AGENT"]\n');
  });

  it('appends the table after the user\'s config, leaving every byte of it as it was', () => {
    const after = upsert(USER_CONFIG);
    expect(after.startsWith(USER_CONFIG)).toBe(true);
    expect(after.slice(USER_CONFIG.length)).toBe('\n# Heimdall\n[mcp_servers.heimdall]\ncommand = "npx"\nargs = ["--no-install", "heimdall-ledger-mcp"]\nenv_vars = ["HEIMDALL_AGENT"]\n');
    expect(parseToml(after, 'c').length).toBe(parseToml(USER_CONFIG, 'c').length + 4);
    expect(upsert(after)).toBe(after);
  });

  it('ends a last line that had no line break before appending, in the file\'s own line ending', () => {
    expect(upsert('model = "x"')).toBe('model = "x"\n\n# Heimdall\n[mcp_servers.heimdall]\ncommand = "npx"\nargs = ["--no-install", "heimdall-ledger-mcp"]\nenv_vars = ["HEIMDALL_AGENT"]\n');
    const crlf = upsert('model = "x"\r\n');
    expect(crlf).toBe('model = "x"\r\n\r\n# Heimdall\r\n[mcp_servers.heimdall]\r\ncommand = "npx"\r\nargs = ["--no-install", "heimdall-ledger-mcp"]\r\nenv_vars = ["HEIMDALL_AGENT"]\r\n');
  });

  it('updates only the keys it owns in an existing table: other keys, comments and sub-tables stay', () => {
    const before = `[mcp_servers.heimdall] # ours
command = "bin/heimdall-ledger-mcp"   # old path
startup_timeout_sec = 20
env_vars = ["OTHER", { name = "REMOTE", source = "remote" }]

[mcp_servers.heimdall.tools.make_claim]
approval_mode = "approve"

[mcp_servers.other]
command = "x"
`;
    const after = upsert(before);
    expect(after).toBe(`[mcp_servers.heimdall] # ours
command = "npx"   # old path
startup_timeout_sec = 20
env_vars = ["OTHER", { name = "REMOTE", source = "remote" }, "HEIMDALL_AGENT"]
args = ["--no-install", "heimdall-ledger-mcp"]

[mcp_servers.heimdall.tools.make_claim]
approval_mode = "approve"

[mcp_servers.other]
command = "x"
`);
    expect(upsert(after)).toBe(after);
  });

  it('leaves a value that is already right alone, however the user formatted it', () => {
    const user = "[mcp_servers.heimdall]\ncommand = 'npx'\nargs = [ # launcher\n  \"--no-install\",\n  'heimdall-ledger-mcp',\n]\nenv_vars = [ 'HEIMDALL_AGENT' ]\n";
    expect(upsert(user)).toBe(user);
  });

  it('accepts HEIMDALL_AGENT already forwarded as a plain name or a {name = ...} entry', () => {
    const plain = '[mcp_servers.heimdall]\ncommand = "npx"\nargs = ["--no-install", "heimdall-ledger-mcp"]\nenv_vars = ["HEIMDALL_AGENT"]\n';
    expect(upsert(plain)).toBe(plain);
    const named = plain.replace('["HEIMDALL_AGENT"]', '[{ name = "HEIMDALL_AGENT" }]');
    expect(upsert(named)).toBe(named);
    expect(upsert(plain.replace('["HEIMDALL_AGENT"]', '[]'))).toBe(plain);
  });

  it('refuses a Heimdall entry defined some other way, naming the line, rather than rewriting it', () => {
    const cases: [string, RegExp][] = [
      ['[mcp_servers]\nheimdall.command = "x"\n', /^config\.toml:2: mcp_servers\.heimdall is defined here with dotted keys/],
      ['mcp_servers.heimdall.command = "x"\n', /^config\.toml:1: mcp_servers\.heimdall is defined here with dotted keys/],
      ['a = 1\nmcp_servers = { heimdall = { command = "x" } }\n', /^config\.toml:2: mcp_servers is defined here as a value \(an inline table\)/],
      ['[mcp_servers]\nheimdall = { command = "x" }\n', /^config\.toml:2: mcp_servers\.heimdall is defined here as a value/],
      ['[[mcp_servers]]\nname = "x"\n', /^config\.toml:1: \[\[mcp_servers\]\] makes mcp_servers an array of tables/],
      ['[mcp_servers.heimdall]\nenv_vars = "HEIMDALL_AGENT"\n', /^config\.toml:2: expected mcp_servers\.heimdall\.env_vars to be an array, found a string/],
    ];
    for (const [text, re] of cases) {
      const e = thrown(() => upsert(text));
      expect(e.message, text).toMatch(re);
      expect(e.code).toBe('environment');
    }
  });

  it('quotes keys and strings that need it', () => {
    expect(tomlString('a "b" \\ c\n\u0001')).toBe('"a \\"b\\" \\\\ c\\n\\u0001"');
    const after = upsertTomlTable('', 'c', ['mcp_servers', 'my server'], [{ key: 'command', value: 'C:\\bin\\x', mode: 'set' }]);
    expect(after).toBe('[mcp_servers."my server"]\ncommand = "C:\\\\bin\\\\x"\n');
    const back = parseToml(after, 'c');
    expect(back[1]?.kind === 'keyval' && back[1].value.type === 'string' && back[1].value.value).toBe('C:\\bin\\x');
  });
});
