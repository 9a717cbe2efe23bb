/**
 * `heimdall setup <client>...`: register Heimdall's MCP server in each client's own config file and
 * tell its agents (AGENTS.md / CLAUDE.md) when to check in, claim and release.
 *
 * Two steps, so a run is all-or-nothing and a dry run is the same computation:
 * - `planSetup` reads every file it would touch and computes each new text in memory (a malformed
 *   or unreadable file stops it here, before anything is written);
 * - `applySetup` checks the files are unchanged and writable, then writes them all, restoring the
 *   ones already written if a later write fails.
 * The repository root is a parameter; the caller finds it (`findRepositoryRoot`).
 */
import fs from 'node:fs';
import path from 'node:path';
import { HeimdallError } from '../errors.js';
import { atomicWrite } from '../planning/fsx.js';
import { type ClientName, type ClientSpec, type Launcher, AGENT_ENV, SERVER_NAME, SERVER_PROGRAM, clientSpec } from './clients.js';
import { unifiedDiff } from './diff.js';
import { type JsonDialect, type JsonNode, type JsonValue, formatJson, parseJsonDocument, setJsonValue } from './jsonc.js';
import { CLAUDE_SETTINGS_FILE, type HookLauncher, claudeHookCommand, editClaudeSettings, editGitHook } from './hooks.js';
import { upsertSection } from './section.js';
import { parseToml, upsertTomlTable } from './toml.js';

/** Config and instruction files larger than this are refused rather than read whole. */
export const MAX_SETUP_FILE_BYTES = 1024 * 1024;

export interface SetupOptions {
  /** The repository root (absolute): project files are written here. */
  root: string;
  clients: ClientName[];
  launcher: Launcher;
  /** Codex only: write `config.toml` in this directory ($CODEX_HOME or ~/.codex) instead of `.codex/`. */
  codexUserHome?: string;
  /**
   * Claude Code's PreToolUse claims hook in `.claude/settings.json` (`--hooks`; claude-code must be
   * among the clients), started with this launcher (hooks.ts: `detectHookLauncher` from the root).
   */
  claudeHook?: HookLauncher;
  /**
   * Git's pre-commit claims hook (`--git-hook`): the folder git runs hooks from (absolute:
   * `git rev-parse --git-path hooks`) and the launcher, relative to the top of the working tree.
   */
  gitHook?: { dir: string; launcher: HookLauncher };
}

export type FileAction = 'create' | 'update' | 'unchanged';

export interface PlannedFile {
  /** Absolute path (a symlink is written through to its target). */
  path: string;
  /** Relative to the root, or absolute when outside the repository. */
  display: string;
  outsideRepository: boolean;
  purpose: 'mcp-config' | 'instructions' | 'claude-hook' | 'git-hook';
  /** The clients it is for (none for the git hook, which is every client's). */
  clients: ClientName[];
  /** The permission bits a new file gets (the git hook is executable); an existing file keeps its own. */
  mode?: number;
  action: FileAction;
  /** The current text, null when the file does not exist. */
  before: string | null;
  after: string;
}

export interface SetupPlan {
  root: string;
  clients: ClientName[];
  launcher: Launcher;
  files: PlannedFile[];
  /** What the user does next, per client (and for the git hook, `git`). */
  next: { client: ClientName | 'git'; label: string; lines: string[] }[];
  /** Things the user should know that setup will not change for them (e.g. a second Heimdall entry). */
  warnings: string[];
}

const JSON_DIALECT: Record<'json' | 'jsonc', JsonDialect> = { json: { comments: false }, jsonc: { comments: true } };

/** Read a text file whole: null when absent; refused when not a regular file, too large, or not UTF-8. */
export function readTextFile(file: string, display = file): string | null {
  let st: fs.Stats;
  try {
    st = fs.statSync(file);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return null;
    if (code === 'ENOTDIR') throw new HeimdallError('environment', `cannot use ${display}: a parent of it is a file, not a directory. Nothing was changed.`, { file: display });
    throw new HeimdallError('environment', `cannot read ${display}: ${(e as Error).message}. Nothing was changed.`, { file: display });
  }
  if (!st.isFile()) throw new HeimdallError('environment', `cannot use ${display}: expected a regular file, found a ${st.isDirectory() ? 'directory' : 'special file'}. Nothing was changed.`, { file: display });
  if (st.size > MAX_SETUP_FILE_BYTES) {
    throw new HeimdallError('environment', `refusing to read ${display}: ${st.size} bytes is more than the ${MAX_SETUP_FILE_BYTES}-byte limit for a config or instructions file. Nothing was changed.`, { file: display });
  }
  let bytes: Buffer;
  try {
    bytes = fs.readFileSync(file);
  } catch (e) {
    throw new HeimdallError('environment', `cannot read ${display}: ${(e as Error).message}. Nothing was changed.`, { file: display });
  }
  try {
    // Fatal decoding: a lenient one would turn stray bytes into U+FFFD and write them back changed.
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new HeimdallError('environment', `cannot edit ${display}: it is not valid UTF-8 text. The file was left untouched.`, { file: display });
  }
}

/** The managed section of AGENTS.md / CLAUDE.md: when to check in, claim and release. */
export function instructionsSection(file: 'CLAUDE.md' | 'AGENTS.md'): string {
  const naming =
    file === 'CLAUDE.md'
      ? `Each Claude Code session is its own agent. To keep one name across restarts, start it with \`${AGENT_ENV}=<name> claude\` (one name per terminal or pane); without it each session gets a fresh identity.`
      : `Each session is its own agent. To keep one name across restarts, start the client with \`${AGENT_ENV}=<name>\` set (\`${AGENT_ENV}=alice codex\`, or start Cursor / VS Code from such a terminal: one name per terminal, pane or window); without it each connection gets a fresh identity.`;
  return [
    '## Heimdall: working alongside other agents',
    '',
    `Other agents may be changing this repository at the same time. Heimdall's MCP server (\`${SERVER_NAME}\`) keeps the shared ledger; use its tools:`,
    '',
    '- **Check in** with `herd_checkin` when you start, at each transition (a phase done, blocked, handing over) and before you finish; act on the messages it returns.',
    '- **Claim before you edit**: call `make_claim` with the files you are about to change (globs such as `src/api/**`) and your task. If it is refused, another agent holds them: do not edit them; take other work or message the holder with `herd_send`. `read_claims` shows who holds what.',
    '- **Release** with `release_claim` as soon as you are done with those files, and before you stop.',
    '',
    naming,
  ].join('\n');
}

function findMember(node: JsonNode, key: string): JsonNode | undefined {
  return node.kind === 'object' ? node.members.find((m) => m.key === key)?.value : undefined;
}

/** Leaf paths of an entry: setup sets each leaf, so keys the user added beside them survive. */
function leaves(value: JsonValue, prefix: string[] = []): { path: string[]; value: JsonValue }[] {
  if (value !== null && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length > 0) {
    return Object.entries(value).flatMap(([k, v]) => leaves(v, [...prefix, k]));
  }
  return [{ path: prefix, value }];
}

function editMcpJson(spec: ClientSpec, display: string, text: string | null): string {
  const t = spec.mcp;
  const dialect = JSON_DIALECT[t.format as 'json' | 'jsonc'];
  const entry = t.entry as { [key: string]: JsonValue };
  if (text === null || text.trim() === '') {
    return `${formatJson({ [t.key[0] as string]: { [SERVER_NAME]: entry } }, { eol: '\n', indent: '  ' }, '')}\n`;
  }
  const base = [...t.key, SERVER_NAME];
  const root = parseJsonDocument(text, dialect, display);
  const servers = findMember(root, t.key[0] as string);
  if (!servers || !findMember(servers, SERVER_NAME)) return setJsonValue(text, dialect, display, base, entry);
  let out = text;
  for (const leaf of leaves(entry)) out = setJsonValue(out, dialect, display, [...base, ...leaf.path], leaf.value);
  return out;
}

function editMcp(spec: ClientSpec, display: string, text: string | null): string {
  const t = spec.mcp;
  if (t.format === 'toml') return upsertTomlTable(text ?? '', display, t.key, t.toml ?? [], t.comment);
  return editMcpJson(spec, display, text);
}

const mentionsServer = (v: unknown): boolean => (typeof v === 'string' ? v.includes(SERVER_PROGRAM) : Array.isArray(v) && v.some(mentionsServer));

/**
 * Other entries of the same file that start Heimdall's server under another name (an older
 * `heimdall-ledger` entry, say): two entries mean every tool twice, so the user is told. Setup does
 * not remove them: they are the user's.
 */
function otherHeimdallEntries(spec: ClientSpec, display: string, text: string): string[] {
  const t = spec.mcp;
  const names: string[] = [];
  if (t.format === 'toml') {
    const table = t.key.slice(0, -1);
    for (const s of parseToml(text, display)) {
      if (s.kind !== 'keyval' || s.table.length !== table.length + 1 || !table.every((p, i) => s.table[i] === p)) continue;
      const name = s.table[table.length] as string;
      const v = s.value;
      const plain = v.type === 'string' ? v.value : v.type === 'array' ? v.items.map((i) => (i.type === 'string' ? i.value : '')) : '';
      if (name !== SERVER_NAME && (s.key[0] === 'command' || s.key[0] === 'args') && mentionsServer(plain) && !names.includes(name)) names.push(name);
    }
  } else {
    const servers = findMember(parseJsonDocument(text, JSON_DIALECT[t.format], display), t.key[0] as string);
    if (servers?.kind === 'object') {
      for (const m of servers.members) {
        const cmd = findMember(m.value, 'command');
        const args = findMember(m.value, 'args');
        const plain = [cmd?.kind === 'string' ? cmd.value : '', ...(args?.kind === 'array' ? args.items.map((i) => (i.kind === 'string' ? i.value : '')) : [])];
        if (m.key !== SERVER_NAME && mentionsServer(plain) && !names.includes(m.key)) names.push(m.key);
      }
    }
  }
  return names.map((n) => `${display} also starts ${SERVER_PROGRAM} as ${JSON.stringify(n)}: ${spec.label} would then offer every Heimdall tool twice. Remove that entry by hand; setup leaves it alone.`);
}

function displayOf(root: string, abs: string): { display: string; outside: boolean } {
  const rel = path.relative(root, abs);
  const outside = rel === '' || rel.startsWith('..') || path.isAbsolute(rel);
  return { display: outside ? abs : rel.split(path.sep).join('/'), outside };
}

/**
 * Compute what setup would write for `clients`, reading every file it touches and writing none.
 * Throws (with the file, line and what was expected) on a file it cannot read or parse.
 */
export function planSetup(opts: SetupOptions): SetupPlan {
  if (!path.isAbsolute(opts.root)) throw new HeimdallError('internal', `setup needs an absolute repository root, got ${JSON.stringify(opts.root)}`);
  if (opts.clients.length === 0 && !opts.gitHook) throw new HeimdallError('usage', 'name at least one client to set up (or --git-hook)');
  if (opts.claudeHook && !opts.clients.includes('claude-code')) {
    throw new HeimdallError('usage', "the PreToolUse hook (--hooks) is Claude Code's: name claude-code among the clients (heimdall setup claude-code --hooks)");
  }
  const clients = [...new Set(opts.clients)];
  const files = new Map<string, PlannedFile>();
  const current = new Map<string, string | null>();
  const touch = (rel: string, purpose: PlannedFile['purpose'], client: ClientName | undefined, edit: (display: string, text: string | null) => string, mode?: number) => {
    const requested = path.resolve(opts.root, rel);
    // Write through a symlink to its target rather than replacing the link with a file.
    let abs = requested;
    try {
      if (fs.lstatSync(requested).isSymbolicLink()) abs = fs.realpathSync(requested);
    } catch {
      /* absent (or a dangling link): written where requested */
    }
    const { display, outside } = displayOf(opts.root, requested);
    let f = files.get(abs);
    if (!f) {
      const before = readTextFile(abs, display);
      f = { path: abs, display, outsideRepository: outside, purpose, clients: [], action: 'unchanged', before, after: before ?? '', ...(mode !== undefined ? { mode } : {}) };
      files.set(abs, f);
      current.set(abs, before);
    }
    if (client && !f.clients.includes(client)) f.clients.push(client);
    const next = edit(display, current.get(abs) ?? null);
    current.set(abs, next);
    f.after = next;
  };
  const next: SetupPlan['next'] = [];
  const warnings: string[] = [];
  for (const client of clients) {
    const spec = clientSpec(client, { launcher: opts.launcher, codexUserHome: client === 'codex' ? opts.codexUserHome : undefined });
    touch(spec.mcp.file, 'mcp-config', client, (display, text) => {
      const out = editMcp(spec, display, text);
      warnings.push(...otherHeimdallEntries(spec, display, out));
      return out;
    });
    touch(spec.instructions, 'instructions', client, (display, text) => upsertSection(text ?? '', display, instructionsSection(spec.instructions)));
    const lines = [...spec.next];
    if (client === 'claude-code' && opts.claudeHook) {
      const command = claudeHookCommand(opts.claudeHook);
      touch(CLAUDE_SETTINGS_FILE, 'claude-hook', client, (display, text) => editClaudeSettings(text, display, command));
      lines.push(
        `Edits (Edit, Write, MultiEdit) of a file another agent has claimed are now refused, naming the holder, the task and the time left. Claude Code reads hooks when a session starts: restart running sessions (/hooks lists them).`,
      );
    }
    next.push({ client, label: spec.label, lines });
  }
  if (opts.gitHook) {
    const { dir, launcher } = opts.gitHook;
    touch(path.join(dir, 'pre-commit'), 'git-hook', undefined, (display, text) => editGitHook(text, display, launcher), 0o755);
    next.push({ client: 'git', label: 'git', lines: ['A commit that touches a file another agent has claimed is now refused, naming the holder; bypass it once with git commit --no-verify.'] });
  }
  for (const f of files.values()) f.action = f.before === null ? 'create' : f.before === f.after ? 'unchanged' : 'update';
  return { root: opts.root, clients, launcher: opts.launcher, files: [...files.values()], next, warnings };
}

/** The unified diff of every file the plan would create or change ('' when there is nothing to do). */
export function planDiff(plan: SetupPlan): string {
  return plan.files.map((f) => unifiedDiff(f.display, f.before, f.after)).join('');
}

function nearestExisting(dir: string): string {
  let d = dir;
  while (!fs.existsSync(d)) {
    const up = path.dirname(d);
    if (up === d) break;
    d = up;
  }
  return d;
}

/** Refuse a file (or the folder it goes in) that is read-only, before anything is written. */
function checkWritable(f: PlannedFile): void {
  const readOnly = (what: string, p: string, mode: number) =>
    new HeimdallError(
      'environment',
      `cannot write ${f.display}: ${what} ${p === f.path ? '' : `${p} `}is read-only (mode ${(mode & 0o777).toString(8).padStart(4, '0')}). Nothing was changed; make it writable (chmod u+w) or leave this client out.`,
      { file: f.display },
    );
  const dir = nearestExisting(path.dirname(f.path));
  const dst = fs.statSync(dir);
  if (!dst.isDirectory()) throw new HeimdallError('environment', `cannot write ${f.display}: ${dir} is a file, not a directory. Nothing was changed.`, { file: f.display });
  // The mode bits are checked as well as access(): root passes access() on any file, and a file
  // someone made read-only should not be replaced behind their back (rename would allow it).
  if ((dst.mode & 0o222) === 0) throw readOnly('the folder', dir, dst.mode);
  if (f.before !== null) {
    const st = fs.statSync(f.path);
    if ((st.mode & 0o222) === 0) throw readOnly('the file', f.path, st.mode);
  }
  for (const p of f.before !== null ? [f.path, dir] : [dir]) {
    try {
      fs.accessSync(p, fs.constants.W_OK);
    } catch {
      throw new HeimdallError('environment', `cannot write ${f.display}: ${p === f.path ? 'the file' : `the folder ${p}`} is not writable by this user. Nothing was changed.`, { file: f.display });
    }
  }
}

function writeChecked(f: PlannedFile, text: string, mode: number | undefined): void {
  fs.mkdirSync(path.dirname(f.path), { recursive: true });
  atomicWrite(f.path, text);
  if (mode !== undefined) fs.chmodSync(f.path, mode & 0o7777);
  // A write that did not land (a full disk, a quota) must not pass for one that did.
  if (fs.readFileSync(f.path, 'utf8') !== text) throw new Error(`${f.display} does not hold what was written`);
}

/**
 * Write a plan: every file is checked first (unchanged since planning, writable), then all are
 * written; if one write fails, the files already written get their old content back. Returns the
 * files that were written.
 */
export function applySetup(plan: SetupPlan): PlannedFile[] {
  const changed = plan.files.filter((f) => f.action !== 'unchanged');
  const modes = new Map<string, number>();
  for (const f of changed) {
    if (readTextFile(f.path, f.display) !== f.before) {
      throw new HeimdallError('conflict', `${f.display} changed while setup was running; nothing was written. Run setup again.`, { file: f.display });
    }
    checkWritable(f);
    if (f.before !== null) modes.set(f.path, fs.statSync(f.path).mode);
    else if (f.mode !== undefined) modes.set(f.path, f.mode);
  }
  const done: PlannedFile[] = [];
  // Folders this run creates, so a failed run takes them away again (deepest first).
  const createdDirs: string[] = [];
  for (const f of changed) {
    for (let d = path.dirname(f.path); !fs.existsSync(d) && !createdDirs.includes(d); d = path.dirname(d)) createdDirs.push(d);
  }
  createdDirs.sort((a, b) => b.length - a.length);
  for (const f of changed) {
    try {
      writeChecked(f, f.after, modes.get(f.path));
      done.push(f);
    } catch (e) {
      const restored: string[] = [];
      for (const w of done.reverse()) {
        try {
          if (w.before === null) fs.rmSync(w.path, { force: true });
          else writeChecked(w, w.before, modes.get(w.path));
          restored.push(w.display);
        } catch {
          /* reported below: the message lists only what was restored */
        }
      }
      for (const d of createdDirs) {
        try {
          fs.rmdirSync(d);
        } catch {
          /* not empty (someone else wrote there) or already gone: leave it */
        }
      }
      throw new HeimdallError(
        'environment',
        `cannot write ${f.display}: ${(e as Error).message}.${restored.length ? ` Restored ${restored.join(', ')} to ${restored.length === 1 ? 'its' : 'their'} previous content.` : ''} Nothing else was changed.`,
        { file: f.display },
      );
    }
  }
  return done;
}

/**
 * How a client should start the server from this repository: through `npx --no-install` when the
 * package is installed in the repository (node_modules/.bin up the tree, as npx looks) or is the
 * repository itself (a Heimdall checkout), which works for every teammate after `npm install` and
 * never downloads anything; the bare program name when it is only on PATH (a global install); and
 * the npx form with a warning when it is found nowhere.
 */
export function detectLauncher(root: string, pathDirs: string[]): { launcher: Launcher; found: 'repository' | 'path' | 'nowhere'; warning?: string } {
  const npx: Launcher = { command: 'npx', args: ['--no-install', SERVER_PROGRAM] };
  for (let d = root; ; d = path.dirname(d)) {
    if (fs.existsSync(path.join(d, 'node_modules', '.bin', SERVER_PROGRAM))) return { launcher: npx, found: 'repository' };
    if (path.dirname(d) === d) break;
  }
  try {
    const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { bin?: unknown };
    if (pkg.bin && typeof pkg.bin === 'object' && Object.hasOwn(pkg.bin, SERVER_PROGRAM)) return { launcher: npx, found: 'repository' };
  } catch {
    /* no package.json, or not one that ships the server */
  }
  for (const dir of pathDirs) {
    if (dir && fs.existsSync(path.join(dir, SERVER_PROGRAM))) return { launcher: { command: SERVER_PROGRAM, args: [] }, found: 'path' };
  }
  return {
    launcher: npx,
    found: 'nowhere',
    warning: `${SERVER_PROGRAM} is not installed in this repository (node_modules/.bin) nor on PATH: the clients will fail to start the server until you install Heimdall here (npm install --save-dev <the Heimdall package>).`,
  };
}

/**
 * The repository root for `start`: the nearest directory, walking up, that holds `.git` (a folder,
 * or a file in a worktree) or a `.planning` folder; undefined when there is none.
 */
export function findRepositoryRoot(start: string): string | undefined {
  for (let d = path.resolve(start); ; d = path.dirname(d)) {
    if (fs.existsSync(path.join(d, '.git'))) return d;
    try {
      if (fs.statSync(path.join(d, '.planning')).isDirectory()) return d;
    } catch {
      /* none here */
    }
    if (path.dirname(d) === d) return undefined;
  }
}

