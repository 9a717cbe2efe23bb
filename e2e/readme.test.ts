/**
 * The README cannot drift from the product: every ```bash block of README.md runs verbatim against
 * the bundled programs in bin/, each in a fresh temporary repository (git-initialised, bin/ on PATH,
 * none of the variables that name an agent or locate a tree), and each command must end with the
 * exit status its comment states (`exit N`, else 0) and print what its comment states (`# → TEXT`:
 * stdout, whitespace runs as one space, `…` for any text). A marker comment right before a block
 * changes how it runs (server/cli/README.md, "The README is tested"):
 *   <!-- readme-test: skip (REASON) -->  not run (the reason is required)
 *   <!-- readme-test: continue -->       in the previous block's folder
 *   <!-- readme-test: init -->           in a fresh folder where `heimdall init` ran
 *   <!-- readme-test: gsd -->            in a copy of the smallest real GSD project
 * New blocks need nothing: whatever is in the README runs.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, REPO_ROOT, hermeticEnv, tmpDir } from '../server/testing/fixtures.js';

const README = path.join(REPO_ROOT, 'README.md');
const RUNNABLE = new Set(['bash', 'sh', 'shell']);
const BLOCK_TIMEOUT_MS = 240_000;

export interface Command {
  /** The command's text, verbatim (continuation lines and heredoc bodies included). */
  text: string;
  /** README line of its first line. */
  line: number;
  /** `# → TEXT`: what stdout must be. */
  output?: string;
  /** `exit N` in its comment; 0 otherwise. */
  exit: number;
}

export interface Block {
  line: number;
  heading: string;
  lang: string;
  marker?: { kind: string; reason?: string; raw: string };
  body: string[];
}

/** The fenced blocks of a Markdown text, with the marker comment right before each (blank lines between are allowed). */
export function parseBlocks(markdown: string): Block[] {
  const lines = markdown.split('\n');
  const blocks: Block[] = [];
  let heading = '';
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i] as string;
    const h = /^#{1,6}\s+(.*)$/.exec(l);
    if (h) heading = h[1] as string;
    const open = /^(\s*)```+\s*([\w-]*)\s*$/.exec(l);
    if (!open) continue;
    const indent = (open[1] as string).length;
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length && !/^\s*```+\s*$/.test(lines[j] as string); j++) body.push((lines[j] as string).slice(indent));
    let k = i - 1;
    while (k >= 0 && (lines[k] as string).trim() === '') k--;
    const m = k >= 0 ? /^\s*<!--\s*readme-test:\s*([\w-]+)\s*(?:\((.*)\))?\s*-->\s*$/.exec(lines[k] as string) : null;
    blocks.push({ line: i + 1, heading, lang: (open[2] as string).toLowerCase(), body, ...(m ? { marker: { kind: m[1] as string, reason: m[2]?.trim() || undefined, raw: (lines[k] as string).trim() } } : {}) });
    i = j;
  }
  return blocks;
}

/** The first `#` that starts a comment in a shell line (outside quotes, after whitespace or at the start), given the quote state it starts in. */
function commentStart(line: string, state: { quote: '' | "'" | '"' }): number {
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (state.quote === "'") {
      if (c === "'") state.quote = '';
      continue;
    }
    if (c === '\\') {
      i++;
      continue;
    }
    if (state.quote === '"') {
      if (c === '"') state.quote = '';
      continue;
    }
    if (c === "'" || c === '"') state.quote = c;
    else if (c === '#' && (i === 0 || /\s/.test(line[i - 1] as string))) return i;
  }
  return -1;
}

/** Does bash read `text` as complete commands (no open quote, brace, loop or if)? */
function complete(text: string): boolean {
  const r = spawnSync('bash', ['-n'], { input: `${text}\n`, encoding: 'utf8' });
  return r.status === 0;
}

/** A block's commands: continuation lines, heredocs and open quotes keep a command together. */
export function splitCommands(block: Block): Command[] {
  const out: Command[] = [];
  const lines = block.body;
  for (let i = 0; i < lines.length; i++) {
    const first = lines[i] as string;
    if (first.trim() === '' || first.trim().startsWith('#')) continue;
    const text: string[] = [];
    const shell: string[] = []; // the lines bash reads as commands (not heredoc bodies)
    let j = i;
    for (;;) {
      const l = lines[j] as string;
      text.push(l);
      shell.push(l);
      const heredoc = /<<(-?)\s*(['"]?)([\w.-]+)\2/.exec(l.slice(0, commentStart(l, { quote: '' }) === -1 ? undefined : commentStart(l, { quote: '' })));
      if (heredoc) {
        const strip = heredoc[1] === '-';
        const word = heredoc[3] as string;
        for (j++; j < lines.length; j++) {
          text.push(lines[j] as string);
          if ((strip ? (lines[j] as string).replace(/^\t+/, '') : (lines[j] as string)) === word) break;
        }
      }
      const joined = text.join('\n');
      if (j + 1 >= lines.length) break;
      if (/\\$/.test(l) && !heredoc) {
        j++;
        continue;
      }
      if (complete(joined)) break;
      j++;
    }
    // The comment: on the command's shell lines, outside quotes.
    const state = { quote: '' as '' | "'" | '"' };
    let comment = '';
    for (const l of shell) {
      const at = commentStart(l, state);
      if (at !== -1) {
        comment = l.slice(at + 1).trim();
        break;
      }
    }
    const exit = /(?:^|[\s(,;:])exit (\d+)\b/.exec(comment);
    const arrow = comment.indexOf('→');
    const output = arrow === -1 ? undefined : comment.slice(arrow + 1).replace(/(?:,\s*exit \d+|\s*\(exit \d+\))\s*$/, '').trim();
    out.push({ text: text.join('\n'), line: block.line + 1 + i, exit: exit ? Number(exit[1]) : 0, ...(output !== undefined ? { output } : {}) });
    i = j;
  }
  return out;
}

const squash = (s: string) => s.replace(/\s+/g, ' ').trim();
/** `# → TEXT` against stdout: whitespace runs as one space, `…` matches any text. */
export function outputMatches(expected: string, stdout: string): boolean {
  const pattern = squash(expected)
    .split('…')
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('[\\s\\S]*');
  return new RegExp(`^${pattern}$`).test(squash(stdout));
}

/** The smallest real GSD project (fewest PLAN files) of HEIMDALL_GSD_FIXTURES. */
function smallestGsdFixture(): string {
  const dir = path.resolve(REPO_ROOT, process.env.HEIMDALL_GSD_FIXTURES ?? '../shared/fixtures/gsd');
  if (!fs.existsSync(dir)) throw new Error(`the GSD fixtures are missing at ${dir} (set HEIMDALL_GSD_FIXTURES): a README block marked readme-test: gsd needs them`);
  const plans = (d: string): number => fs.readdirSync(d, { withFileTypes: true, recursive: true }).filter((e) => e.isFile() && /PLAN\.md$/.test(e.name)).length;
  const trees = fs.readdirSync(dir, { withFileTypes: true }).filter((e) => e.isDirectory() && fs.existsSync(path.join(dir, e.name, '.planning')));
  if (trees.length === 0) throw new Error(`no GSD project (a folder with .planning/) in ${dir}`);
  const best = trees.map((e) => ({ p: path.join(dir, e.name), n: plans(path.join(dir, e.name, '.planning')) })).sort((a, b) => a.n - b.n || a.p.localeCompare(b.p))[0];
  return (best as { p: string }).p;
}

function makeWritable(dir: string): void {
  fs.chmodSync(dir, 0o755);
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) makeWritable(p);
    else fs.chmodSync(p, 0o644);
  }
}

const KINDS = new Set(['skip', 'continue', 'init', 'gsd']);
const blocks = parseBlocks(fs.readFileSync(README, 'utf8'));
const runnable = blocks.filter((b) => RUNNABLE.has(b.lang));

let root: string;
let previous: string | undefined;
beforeAll(() => {
  if (!fs.existsSync(path.join(REPO_ROOT, 'dist/cli/main.js'))) throw new Error('dist/cli/main.js is missing: run node scripts/build-cli.mjs first');
  root = tmpDir('heimdall-readme-');
});
afterAll(() => {
  if (root) fs.rmSync(root, { recursive: true, force: true });
});

function workspace(block: Block, n: number): string {
  if (block.marker?.kind === 'continue') {
    if (!previous) throw new Error(`README.md:${block.line}: readme-test: continue, but no block ran before it`);
    return previous;
  }
  const ws = path.join(root, `block-${n}-line-${block.line}`);
  fs.mkdirSync(ws);
  if (block.marker?.kind === 'gsd') {
    fs.cpSync(path.join(smallestGsdFixture(), '.planning'), path.join(ws, '.planning'), { recursive: true });
    makeWritable(path.join(ws, '.planning'));
  }
  const git = spawnSync('git', ['init', '-q'], { cwd: ws, encoding: 'utf8' });
  if (git.status !== 0) throw new Error(`git init failed in ${ws}: ${git.stderr}`);
  if (block.marker?.kind === 'init') {
    const init = spawnSync(path.join(BIN, 'heimdall'), ['init'], { cwd: ws, encoding: 'utf8', env: hermeticEnv({ HEIMDALL_CEILING_DIRECTORIES: root }) });
    if (init.status !== 0) throw new Error(`heimdall init failed in ${ws}: ${init.stderr}`);
  }
  return ws;
}

/** Run a block's commands in one bash, each with its output kept apart, and check them. */
function runBlock(block: Block, commands: Command[], ws: string): void {
  const out = path.join(root, `out-${block.line}`);
  fs.mkdirSync(out);
  const script = commands.map((c, i) => `{\n${c.text}\n} < /dev/null > '${out}/${i}.out' 2> '${out}/${i}.err'\necho $? > '${out}/${i}.rc'`).join('\n');
  const home = path.join(root, 'home');
  const tmp = path.join(root, 'tmp');
  fs.mkdirSync(home, { recursive: true });
  fs.mkdirSync(tmp, { recursive: true });
  const env = hermeticEnv({
    PATH: `${BIN}${path.delimiter}${process.env.PATH ?? ''}`,
    HOME: home,
    TMPDIR: tmp,
    // The planning tree is looked for in the block's folder only, never above it.
    HEIMDALL_CEILING_DIRECTORIES: root,
  });
  for (const k of ['DATABASE_URL', 'HEIMDALL_STREAM_URL', 'HEIMDALL_STREAM_PREFIX', 'HEIMDALL_NOW', 'HEIMDALL_STUDIO_TOKEN', 'CODEX_HOME']) delete env[k];
  const r = spawnSync('bash', ['-c', script], { cwd: ws, env, encoding: 'utf8', timeout: BLOCK_TIMEOUT_MS });
  if (r.error) throw new Error(`README.md:${block.line}: the block did not finish in ${BLOCK_TIMEOUT_MS / 1000} s (${r.error.message}); a command that runs until stopped needs a skip marker`);
  // Every mismatch of the block at once: a README edit often breaks several lines.
  const failures: string[] = [];
  commands.forEach((c, i) => {
    const read = (ext: string) => (fs.existsSync(path.join(out, `${i}.${ext}`)) ? fs.readFileSync(path.join(out, `${i}.${ext}`), 'utf8') : '');
    const rc = Number(read('rc').trim());
    const stdout = read('out');
    const stderr = read('err');
    const where = `README.md:${c.line}: ${c.text.split('\n')[0]}\n--- stdout\n${stdout.slice(0, 1500)}\n--- stderr\n${stderr.slice(0, 1500)}`;
    if (rc !== c.exit) failures.push(`exit status ${rc}, expected ${c.exit}\n${where}`);
    else if (c.output !== undefined && !outputMatches(c.output, stdout)) failures.push(`stdout should be "${c.output}"\n${where}`);
  });
  expect(failures.join('\n\n')).toBe('');
}

describe('README.md', () => {
  it('marks every block it does not run with a known marker and a reason', () => {
    expect(runnable.length).toBeGreaterThan(5);
    for (const b of blocks) {
      if (!b.marker) continue;
      expect(KINDS.has(b.marker.kind), `README.md:${b.line}: unknown marker ${b.marker.raw} (skip, continue, init, gsd)`).toBe(true);
      if (b.marker.kind === 'skip') expect(b.marker.reason, `README.md:${b.line}: ${b.marker.raw} needs its reason: <!-- readme-test: skip (why) -->`).toBeTruthy();
      expect(RUNNABLE.has(b.lang), `README.md:${b.line}: a marker on a block that is not bash`).toBe(true);
    }
  });

  runnable.forEach((block, n) => {
    const commands = splitCommands(block);
    const title = `line ${block.line} (${block.heading}): ${commands[0]?.text.split('\n')[0] ?? '(empty)'}`;
    if (block.marker?.kind === 'skip') return;
    it(title, () => {
      expect(commands.length, `README.md:${block.line}: a bash block with no command`).toBeGreaterThan(0);
      const ws = workspace(block, n);
      previous = ws;
      runBlock(block, commands, ws);
    }, BLOCK_TIMEOUT_MS + 30_000);
  });
});

describe('the README test itself', () => {
  it('splits commands at line ends, keeps continuations, heredocs and quotes together, and reads the comments', () => {
    const b: Block = {
      line: 10,
      heading: 't',
      lang: 'bash',
      body: [
        'export PATH="$PWD/bin:$PATH"',
        '# a comment line',
        "echo '{\"a\":\"#not a comment\"}' \\",
        '  | cat                 # → {"a":"#not a comment"}, exit 0',
        "cat > f.txt <<'EOF'    # writes f.txt",
        'line one # kept',
        'EOF',
        "printf '%s\\n' 'multi",
        "line'                  # → multi line",
        'false                  # exit 1: says no',
        'grep x f.txt           # one retry, then escalate (exit 1)',
      ],
    };
    const cs = splitCommands(b);
    expect(cs.map((c) => [c.line, c.exit, c.output])).toEqual([
      [11, 0, undefined],
      [13, 0, '{"a":"#not a comment"}'],
      [15, 0, undefined],
      [18, 0, 'multi line'],
      [20, 1, undefined],
      [21, 1, undefined],
    ]);
    expect(cs[2]?.text.split('\n')).toHaveLength(3);
  });

  it('matches stated output exactly, with … for any text', () => {
    expect(outputMatches('w1 w2', 'w1\nw2\n')).toBe(true);
    expect(outputMatches('w1 w2', 'w1\nw2\nw3\n')).toBe(false);
    expect(outputMatches('h-…/claude-code.2 claude-code.2@team', 'h-3f9a2c1d/claude-code.2\tclaude-code.2@team\n')).toBe(true);
    expect(outputMatches('5173', '5174\n')).toBe(false);
  });

  it('reads markers with their reasons', () => {
    const bs = parseBlocks(['## A', '<!-- readme-test: skip (installs from the registry) -->', '```bash', 'npm i x', '```', '', '<!-- readme-test: continue -->', '', '```bash', 'ls', '```', '```json', '{}', '```'].join('\n'));
    expect(bs.map((b) => [b.lang, b.marker?.kind, b.marker?.reason])).toEqual([
      ['bash', 'skip', 'installs from the registry'],
      ['bash', 'continue', undefined],
      ['json', undefined, undefined],
    ]);
  });
});
