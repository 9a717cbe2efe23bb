import path from 'node:path';
import { initPlanning } from '../../core/index.js';
import { bool, parseArgs } from '../args.js';
import type { Command } from '../command.js';
import { printJson } from './_util.js';

const USAGE = [
  'heimdall-protocol init [--json]',
  '  The only command that creates a planning tree: ./.planning, or HEIMDALL_PLANNING_DIR. Inside an existing',
  '  tree (this folder or one above it has .planning/) it checks that tree instead of making a second one.',
].join('\n');

export const command: Command = {
  summary: 'create the planning tree',
  async run(argv, { io, runtime }) {
    const p = parseArgs(argv, { usage: USAGE, flags: { json: 'boolean' }, positionals: [0, 0] });
    const tree = runtime.tree;
    const r = initPlanning(runtime.ctxAt(tree.root));
    const above = tree.source === 'found' && path.dirname(tree.root) !== tree.cwd;
    if (bool(p, 'json')) printJson(io, { ...r, found_above: above });
    else {
      io.out(`planning root: ${r.root}`);
      if (above) io.out(`(the tree of ${path.dirname(tree.root)}, found above ${tree.cwd}; no second tree was made)`);
      for (const f of r.created) io.out(`created\t${f}`);
      for (const f of r.kept) io.out(`kept\t${f}`);
      const { locks, journals, scratch } = r.recovered;
      if (locks + journals + scratch > 0) io.out(`recovered\t${locks} lock(s) of dead writers, ${journals} unfinished write(s), ${scratch} scratch file(s)`);
    }
    return 0;
  },
};
