import { initPlanning } from '../../core/planning/init.js';
import { bool, parseArgs } from '../args.js';
import type { Command } from '../command.js';
import { printJson } from './_util.js';

const USAGE = 'heimdall-protocol init [--json]   (creates .planning/, or HEIMDALL_PLANNING_DIR)';

export const command: Command = {
  summary: 'create the planning tree',
  async run(argv, { io, ctx }) {
    const p = parseArgs(argv, { usage: USAGE, flags: { json: 'boolean' }, positionals: [0, 0] });
    const r = initPlanning(ctx());
    if (bool(p, 'json')) printJson(io, r);
    else {
      io.out(`planning root: ${r.root}`);
      for (const f of r.created) io.out(`created\t${f}`);
      for (const f of r.kept) io.out(`kept\t${f}`);
      const { locks, journals, scratch } = r.recovered;
      if (locks + journals + scratch > 0) io.out(`recovered\t${locks} lock(s) of dead writers, ${journals} unfinished write(s), ${scratch} scratch file(s)`);
    }
    return 0;
  },
};
