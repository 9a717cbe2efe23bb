import { tailLog } from '../../core/index.js';
import { bool, parseArgs, usageError } from '../args.js';
import type { Command } from '../command.js';
import { printJson } from './_util.js';

const USAGE = 'heimdall-protocol log [N] [--json]   (the last N lines of protocol.log, default 20)';

export const command: Command = {
  summary: 'tail protocol.log',
  async run(argv, { io, ctx, prog }) {
    const p = parseArgs(argv, { usage: USAGE, flags: { json: 'boolean' }, positionals: [0, 1] });
    const nArg = p.positionals[0];
    if (nArg !== undefined && !/^\d+$/.test(nArg)) throw usageError(USAGE, `N must be a non-negative integer, got ${JSON.stringify(nArg)}`);
    const t = tailLog(ctx(), nArg === undefined ? 20 : Number(nArg));
    if (t.tornLine) io.err(`${prog}: warning: protocol.log line ${t.tornLine} is cut short; it was skipped`);
    if (bool(p, 'json')) printJson(io, t);
    else for (const e of t.entries) io.out([e.ts, e.mechanism, e.action, e.detail].join('\t'));
    return 0;
  },
};
