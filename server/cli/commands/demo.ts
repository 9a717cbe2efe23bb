import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { defaultFixtureDir, demoRefusal, loadWave, runDemo, HeimdallError } from '../../core/index.js';
import { bool, parseArgs, str } from '../args.js';
import type { Command } from '../command.js';
import { printJson } from './_util.js';

const USAGE = [
  'heimdall-protocol demo [--show] [--fixture DIR] [--dir DIR] [--json]',
  '  The demo writes symbols, capsules, a blackboard fact and ledger lines, so it never runs in a planning',
  '  tree that holds your state: there (or where there is no tree) it runs in a new directory of its own and',
  '  prints it. In an empty tree (just made by `heimdall init`) it runs in place and marks the tree as a demo',
  '  workspace; later runs there add their own run (nothing the demo wrote may have been changed). --dir DIR:',
  '  run in DIR (a planning root that is missing, empty, or a demo workspace).',
].join('\n');

export const command: Command = {
  summary: 'measured demo',
  async run(argv, { io, runtime }) {
    const p = parseArgs(argv, { usage: USAGE, flags: { show: 'boolean', fixture: 'string', json: 'boolean', dir: 'string' }, positionals: [0, 0] });
    const tree = runtime.tree;
    const dir = str(p, 'dir');
    const fixture = str(p, 'fixture') ?? defaultFixtureDir();
    let root: string;
    let why: string | undefined;
    if (dir !== undefined) {
      root = path.resolve(tree.cwd, dir);
      const refusal = demoRefusal(runtime.ctxAt(root), loadWave(fixture));
      if (refusal) throw new HeimdallError('usage', `--dir ${root} ${refusal}; the demo runs only where it cannot overwrite anything: give a missing or empty folder, a demo workspace, or leave out --dir`);
    } else {
      const held = tree.exists ? demoRefusal(runtime.ctxAt(tree.root), loadWave(fixture)) : undefined;
      if (tree.exists && !held) root = tree.root;
      else {
        // A fresh folder per run: the workspace is left untouched and the figures are the same every time.
        root = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'heimdall-demo-')), '.planning');
        why = tree.exists ? `${tree.root} ${held}` : 'there is no planning tree here';
      }
    }
    const r = runDemo(runtime.ctxAt(root), { fixture });
    if (bool(p, 'json')) {
      printJson(io, { ...r, workspace: root, own_workspace: why !== undefined });
      return 0;
    }
    if (why) io.out(`demo workspace: ${root} (${why}, so the demo ran in a folder of its own; look at it with HEIMDALL_PLANNING_DIR=${root})`);
    if (bool(p, 'show')) {
      for (const t of [...r.v1.briefs, ...r.v1.results, r.v2.symbolTable, ...r.v2.briefs, ...r.v2.results]) {
        io.out(`===== ${t.label} (${t.tokens} tokens) =====`);
        io.out(t.text.trimEnd());
      }
      io.out('=====');
    }
    for (const l of r.lines) io.out(l);
    return 0;
  },
};
