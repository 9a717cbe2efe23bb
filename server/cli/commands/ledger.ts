import { readTextFile } from '../../core/planning/fsx.js';
import { computeDelta, logTokens, report, setBaseline } from '../../core/ledger/ledger.js';
import { HeimdallError } from '../../core/errors.js';
import { bool, int, parseArgs, requireStr, str, usageError } from '../args.js';
import type { Command } from '../command.js';
import { printJson } from './_util.js';

const USAGE = [
  'heimdall-ledger log --role ROLE --kind KIND --msg-id ID [--tokens N | --text-file PATH | text on stdin]',
  '       heimdall-ledger baseline --role ROLE --tokens N',
  '       heimdall-ledger delta --role ROLE',
  '       heimdall-ledger report            (all take --json; --run ID limits to one run)',
].join('\n');

export const command: Command = {
  summary: 'token ledger',
  async run(argv, { io, ctx, prog }) {
    const p = parseArgs(argv, {
      usage: USAGE,
      flags: { role: 'string', kind: 'string', tokens: 'int', 'msg-id': 'string', 'text-file': 'string', run: 'string', json: 'boolean' },
      positionals: [1, 1],
    });
    const json = bool(p, 'json');
    const run = str(p, 'run');
    const torn = (line?: number) => {
      if (line) io.err(`${prog}: warning: ledger.jsonl line ${line} is cut short (a writer died mid-line); it was skipped`);
    };
    switch (p.positionals[0]) {
      case 'log': {
        let text: string | undefined;
        const tokens = int(p, 'tokens');
        const file = str(p, 'text-file');
        if (tokens === undefined) {
          if (file !== undefined) {
            text = readTextFile(file, `--text-file ${file}`);
            if (text === undefined) throw new HeimdallError('environment', `cannot read --text-file ${file}: no such file`);
          } else if (!io.stdinIsTTY) text = await io.readStdin();
          else throw usageError(USAGE, 'give --tokens N, --text-file PATH, or pipe the text to count on stdin');
        }
        const e = logTokens(ctx(), { role: requireStr(p, 'role', USAGE), kind: requireStr(p, 'kind', USAGE), msgId: requireStr(p, 'msg-id', USAGE), tokens, text, run });
        if (json) printJson(io, { ...e, tokenizer: e.tokenizer ?? ctx().tokenizer.name });
        else io.out(`${e.role}/${e.kind}=${e.tokens} (${e.source === 'tokenizer' ? `counted with ${e.tokenizer}` : 'reported'})`);
        return 0;
      }
      case 'baseline': {
        const role = requireStr(p, 'role', USAGE);
        const tokens = int(p, 'tokens');
        if (tokens === undefined) throw usageError(USAGE, '--tokens is required');
        setBaseline(ctx(), role, tokens);
        if (json) printJson(io, { role, baseline: tokens });
        return 0;
      }
      case 'delta': {
        const d = computeDelta(ctx(), requireStr(p, 'role', USAGE), { run });
        torn(d.tornLine);
        if (json) printJson(io, d);
        else io.out(d.line);
        return 0;
      }
      case 'report': {
        const r = report(ctx(), { run });
        torn(r.tornLine);
        if (json) printJson(io, r);
        else {
          io.out(`role\tentries\ttokens\tbaseline\tchange   (tokenizer: ${r.tokenizer})`);
          for (const x of r.roles) io.out(`${x.role}\t${x.entries}\t${x.tokens}\t${x.baseline ?? '-'}\t${x.pct === undefined ? '-' : `${x.pct > 0 ? '+' : ''}${x.pct}%`}`);
          io.out(`total\t\t${r.total_tokens}`);
        }
        return 0;
      }
      default:
        throw usageError(USAGE, `unknown subcommand ${JSON.stringify(p.positionals[0])}`);
    }
  },
};
