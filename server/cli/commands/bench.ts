import { benchGsd, formatBench } from '../../core/gsd/bench.js';
import { bool, parseArgs, usageError } from '../args.js';
import type { Command } from '../command.js';
import { printJson } from './_util.js';

const USAGE = 'heimdall bench gsd DIR [--json] [--keep]   (DIR: a GSD project folder or its .planning; read only, measured on a copy)';

export const command: Command = {
  summary: 'token benchmarks',
  async run(argv, { io, runtime }) {
    const p = parseArgs(argv, { usage: USAGE, flags: { json: 'boolean', keep: 'boolean' }, positionals: [2, 2] });
    const [kind, dir] = p.positionals as [string, string];
    if (kind !== 'gsd') throw usageError(USAGE, `unknown bench ${JSON.stringify(kind)} (supported: gsd)`);
    // Measured on a copy in its own folder: only the ports are needed, not a planning tree here.
    const r = benchGsd(runtime.ctxAt(runtime.tree.root), dir, { keep: bool(p, 'keep') });
    if (bool(p, 'json')) printJson(io, r);
    else {
      for (const line of formatBench(r)) io.out(line);
      if (bool(p, 'keep')) io.out(`copy kept at ${r.planning_dir}`);
    }
    // An incomplete brief is a negative answer: the saving it shows is not earned.
    return r.total.completeness_pct === 100 ? 0 : 1;
  },
};
