import { deleteSymbol, getSymbol, readSymbols, reverseSymbol, setSymbol } from '../../core/index.js';
import { bool, parseArgs, usageError, unknownWord } from '../args.js';
import type { Command } from '../command.js';
import { printJson, printTable } from './_util.js';

const USAGE = 'heimdall-resolve ID | set ID VALUE | --reverse VALUE | list | delete ID  [--json]';

export const command: Command = {
  summary: 'symbol table',
  async run(argv, { io, ctx }) {
    const p = parseArgs(argv, { usage: USAGE, flags: { reverse: 'boolean', json: 'boolean' }, positionals: [1, 3] });
    const json = bool(p, 'json');
    const [a, b, c] = p.positionals as [string, string?, string?];
    if (bool(p, 'reverse')) {
      if (p.positionals.length !== 1) throw usageError(USAGE, '--reverse takes exactly one VALUE');
      const ids = reverseSymbol(ctx(), a);
      if (json) printJson(io, { value: a, ids });
      else for (const id of ids) io.out(id);
      return 0;
    }
    if (a === 'set') {
      if (b === undefined || c === undefined) throw usageError(USAGE, 'set needs ID and VALUE');
      const r = setSymbol(ctx(), b, c);
      if (json) printJson(io, { id: b, value: c, ...r });
      return 0;
    }
    if (a === 'list') {
      if (p.positionals.length !== 1) throw usageError(USAGE, 'list takes no arguments');
      const m = readSymbols(ctx());
      if (json) printJson(io, { symbols: m });
      else printTable(io, m);
      return 0;
    }
    if (a === 'delete') {
      if (b === undefined || c !== undefined) throw usageError(USAGE, 'delete needs exactly one ID');
      deleteSymbol(ctx(), b);
      if (json) printJson(io, { deleted: b });
      return 0;
    }
    if (p.positionals.length !== 1) throw unknownWord(USAGE, a, ['set', 'list', 'delete']);
    const v = getSymbol(ctx(), a);
    if (json) printJson(io, { id: a, value: v });
    else io.out(v);
    return 0;
  },
};
