import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { HeimdallError } from '../../core/errors.js';
import { type PlannedFile, applySetup, detectLauncher, findRepositoryRoot, planDiff, planSetup, resolveClientName } from '../../core/setup/index.js';
import { bool, parseArgs, str } from '../args.js';
import type { Command } from '../command.js';
import { printJson } from './_util.js';

const USAGE = [
  'heimdall setup <client>... [--dry-run] [--json] [--root DIR] [--user]',
  '  clients: claude-code (alias claude), cursor, vscode (alias copilot), codex',
  '  --dry-run  print the unified diff of every file it would write, write nothing',
  '  --root     the repository (default: the nearest folder up from here with .git or .planning)',
  '  --user     codex only: write $CODEX_HOME/config.toml (default ~/.codex) instead of .codex/config.toml',
].join('\n');

const VERB: Record<PlannedFile['action'], string> = { create: 'created', update: 'updated', unchanged: 'unchanged' };
const DRY_VERB: Record<PlannedFile['action'], string> = { create: 'would create', update: 'would update', unchanged: 'unchanged' };

export const command: Command = {
  summary: 'register the MCP server with agent clients',
  async run(argv, { io }) {
    const p = parseArgs(argv, { usage: USAGE, flags: { 'dry-run': 'boolean', json: 'boolean', root: 'string', user: 'boolean' }, positionals: [1, Infinity] });
    const clients = p.positionals.map(resolveClientName);
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
    const detected = detectLauncher(root, (process.env.PATH ?? '').split(path.delimiter));
    const plan = planSetup({ root, clients, launcher: detected.launcher, codexUserHome });
    const dryRun = bool(p, 'dry-run');
    const written = dryRun ? [] : applySetup(plan);
    const changed = plan.files.some((f) => f.action !== 'unchanged');
    // Only `heimdall init` creates a planning tree; without one the server refuses to start, so say so.
    const hasTree = fs.existsSync(path.join(root, '.planning')) || !!process.env.HEIMDALL_PLANNING_DIR?.trim();
    const initStep = hasTree ? [] : [{ label: 'next', lines: [`no planning tree in ${root} yet: run \`heimdall init\` there (the MCP server needs it)`] }];
    const next = [...initStep, ...plan.next];
    const warnings = [...(detected.warning ? [detected.warning] : []), ...plan.warnings];

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
    io.out(`server: ${[plan.launcher.command, ...plan.launcher.args].join(' ')}`);
    for (const f of plan.files) {
      const where = f.outsideRepository ? '  (outside the repository)' : '';
      io.out(`${(dryRun ? DRY_VERB : VERB)[f.action].padEnd(12)} ${f.display}${where}`);
    }
    if (!changed) io.out(`nothing to change: ${plan.clients.join(', ')} ${plan.clients.length === 1 ? 'is' : 'are'} already set up.`);
    else if (dryRun) io.out('dry run: nothing was written.');
    for (const n of changed ? next : initStep) for (const line of n.lines) io.out(`${n.label}: ${line}`);
    return 0;
  },
};
