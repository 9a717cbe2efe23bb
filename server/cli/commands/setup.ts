import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  HeimdallError,
  applySetup,
  detectHookLauncher,
  detectLauncher,
  findRepositoryRoot,
  planDiff,
  planSetup,
  resolveClientName,
  type PlannedFile,
} from '../../core/index.js';
import { bool, parseArgs, str } from '../args.js';
import type { Command } from '../command.js';
import { gitHooksDir, gitTopLevel } from '../git.js';
import { printJson } from './_util.js';

const USAGE = [
  'heimdall setup <client>... [--hooks] [--git-hook] [--dry-run] [--json] [--root DIR] [--user]',
  'heimdall setup --git-hook [--dry-run] [--json] [--root DIR]',
  '  clients: claude-code (alias claude), cursor, vscode (alias copilot), codex',
  '  --hooks     claude-code: add a PreToolUse hook to .claude/settings.json that refuses an edit of a file another agent claimed',
  '  --git-hook  install a git pre-commit hook that refuses a commit touching a file another agent claimed (any client)',
  '  --dry-run   print the unified diff of every file it would write, write nothing',
  '  --root      the repository (default: the nearest folder up from here with .git or .planning)',
  '  --user      codex only: write $CODEX_HOME/config.toml (default ~/.codex) instead of .codex/config.toml',
].join('\n');

const VERB: Record<PlannedFile['action'], string> = { create: 'created', update: 'updated', unchanged: 'unchanged' };
const DRY_VERB: Record<PlannedFile['action'], string> = { create: 'would create', update: 'would update', unchanged: 'unchanged' };

export const command: Command = {
  summary: 'register the MCP server with agent clients',
  async run(argv, { io }) {
    const p = parseArgs(argv, {
      usage: USAGE,
      flags: { 'dry-run': 'boolean', json: 'boolean', root: 'string', user: 'boolean', hooks: 'boolean', 'git-hook': 'boolean' },
      positionals: [0, Infinity],
    });
    const clients = p.positionals.map(resolveClientName);
    const hooks = bool(p, 'hooks');
    const gitHook = bool(p, 'git-hook');
    if (clients.length === 0 && !gitHook) throw new HeimdallError('usage', `name at least one client to set up, or --git-hook\nusage: ${USAGE}`);
    if (hooks && !clients.includes('claude-code')) {
      throw new HeimdallError('usage', `--hooks adds Claude Code's PreToolUse hook: name claude-code (heimdall setup claude-code --hooks); for git, use --git-hook\nusage: ${USAGE}`);
    }
    const user = bool(p, 'user');
    if (user && !clients.includes('codex')) throw new HeimdallError('usage', `--user applies to codex only (the other clients are set up in the repository)\nusage: ${USAGE}`);
    const rootFlag = str(p, 'root');
    if (rootFlag !== undefined && !fs.statSync(rootFlag, { throwIfNoEntry: false })?.isDirectory()) {
      throw new HeimdallError('usage', `--root ${rootFlag}: expected an existing directory (the repository to set up)\nusage: ${USAGE}`);
    }
    const root = rootFlag !== undefined ? path.resolve(rootFlag) : findRepositoryRoot(process.cwd());
    if (!root) {
      throw new HeimdallError('usage', `no repository found from ${process.cwd()}: expected a folder with .git or .planning here or above. Run setup from your repository, or pass --root DIR.`);
    }
    const codexUserHome = user ? (process.env.CODEX_HOME?.trim() ? path.resolve(process.env.CODEX_HOME) : path.join(os.homedir(), '.codex')) : undefined;
    const pathDirs = (process.env.PATH ?? '').split(path.delimiter);
    const detected = detectLauncher(root, pathDirs);
    const hookWarnings: string[] = [];
    const claudeHook = hooks ? detectHookLauncher(root, pathDirs) : undefined;
    if (claudeHook?.warning) hookWarnings.push(claudeHook.warning);
    let git: { dir: string; launcher: ReturnType<typeof detectHookLauncher>['launcher'] } | undefined;
    if (gitHook) {
      // Git runs the hook from the top of the working tree: the program's path is taken from there.
      const top = await gitTopLevel(root, process.env);
      const l = detectHookLauncher(top, pathDirs);
      if (l.warning && !hookWarnings.includes(l.warning)) hookWarnings.push(l.warning);
      git = { dir: await gitHooksDir(root, process.env), launcher: l.launcher };
    }
    const plan = planSetup({ root, clients, launcher: detected.launcher, codexUserHome, ...(claudeHook ? { claudeHook: claudeHook.launcher } : {}), ...(git ? { gitHook: git } : {}) });
    const dryRun = bool(p, 'dry-run');
    const written = dryRun ? [] : applySetup(plan);
    const changed = plan.files.some((f) => f.action !== 'unchanged');
    // Only `heimdall init` creates a planning tree; without one the server refuses to start, so say so.
    const hasTree = fs.existsSync(path.join(root, '.planning')) || !!process.env.HEIMDALL_PLANNING_DIR?.trim();
    const initStep = hasTree ? [] : [{ label: 'next', lines: [`no planning tree in ${root} yet: run \`heimdall init\` there (the MCP server needs it)`] }];
    const next = [...initStep, ...plan.next];
    // The MCP server's launcher matters only when a client is set up.
    const warnings = [...(detected.warning && clients.length ? [detected.warning] : []), ...hookWarnings, ...plan.warnings];

    if (bool(p, 'json')) {
      printJson(io, {
        root,
        clients: plan.clients,
        dry_run: dryRun,
        changed,
        launcher: plan.launcher,
        files: plan.files.map((f) => ({
          path: f.display,
          purpose: f.purpose,
          clients: f.clients,
          action: f.action,
          written: written.includes(f),
          outside_repository: f.outsideRepository,
          ...(dryRun && f.action !== 'unchanged' ? { diff: planDiff({ ...plan, files: [f] }) } : {}),
        })),
        next,
        warnings,
      });
      return 0;
    }
    for (const w of warnings) io.err(`warning: ${w}`);
    if (dryRun) {
      const diff = planDiff(plan);
      if (diff) io.out(diff.replace(/\n$/, ''));
    }
    io.out(`repository: ${root}`);
    if (clients.length) io.out(`server: ${[plan.launcher.command, ...plan.launcher.args].join(' ')}`);
    for (const f of plan.files) {
      const where = f.outsideRepository ? '  (outside the repository)' : '';
      io.out(`${(dryRun ? DRY_VERB : VERB)[f.action].padEnd(12)} ${f.display}${where}`);
    }
    const what = [...plan.clients, ...(gitHook ? ['the git hook'] : [])];
    if (!changed) io.out(`nothing to change: ${what.join(', ')} ${what.length === 1 ? 'is' : 'are'} already set up.`);
    else if (dryRun) io.out('dry run: nothing was written.');
    for (const n of changed ? next : initStep) for (const line of n.lines) io.out(`${n.label}: ${line}`);
    return 0;
  },
};
