import { onReceipt, validateAndLog } from '../../core/index.js';
import { bool, parseArgs } from '../args.js';
import type { Command } from '../command.js';
import { printJson } from './_util.js';

const USAGE = 'heimdall-validate [--on-receipt] [--json]   (message JSON on stdin; --on-receipt: one message per line; prints JSON either way)';

export const command: Command = {
  summary: 'typed messages',
  async run(argv, { io, ctx, prog }) {
    const p = parseArgs(argv, { usage: USAGE, flags: { 'on-receipt': 'boolean', json: 'boolean' }, positionals: [0, 0] });
    if (!bool(p, 'on-receipt')) {
      const r = validateAndLog(ctx(), (await io.readStdin()).trim());
      printJson(io, r);
      return r.valid ? 0 : 1;
    }
    for await (const outcome of onReceipt(ctx(), io.stdinLines())) {
      printJson(io, { line: outcome.line, outcome: outcome.kind, valid: outcome.result.valid, errors: outcome.result.errors });
      if (outcome.kind === 'escalated') {
        io.err(`${prog}: escalated at line ${outcome.line}: a second invalid message after one retry (see protocol.log)`);
        return 1;
      }
    }
    return 0;
  },
};
