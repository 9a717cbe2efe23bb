import { deleteFact, getFact, readFacts, setFact } from '../../core/index.js';
import { bool, parseArgs, usageError, unknownWord } from '../args.js';
import type { Command } from '../command.js';
import { printJson, printTable } from './_util.js';

const USAGE = 'heimdall-blackboard set KEY VALUE | get KEY | list | delete KEY  [--json]';

export const command: Command = {
  summary: 'shared key/value facts',
  async run(argv, { io, ctx }) {
    const p = parseArgs(argv, { usage: USAGE, flags: { json: 'boolean' }, positionals: [1, 3] });
    const json = bool(p, 'json');
    const [verb, key, value] = p.positionals as [string, string?, string?];
    switch (verb) {
      case 'set':
        if (key === undefined || value === undefined) throw usageError(USAGE, 'set needs KEY and VALUE');
        setFact(ctx(), key, value);
        if (json) printJson(io, { key, value });
        return 0;
      case 'get': {
        if (key === undefined || value !== undefined) throw usageError(USAGE, 'get needs exactly one KEY');
        const v = getFact(ctx(), key);
        if (json) printJson(io, { key, value: v });
        else io.out(v);
        return 0;
      }
      case 'list': {
        if (key !== undefined) throw usageError(USAGE, 'list takes no arguments');
        const m = readFacts(ctx());
        if (json) printJson(io, { facts: m });
        else printTable(io, m);
        return 0;
      }
      case 'delete':
        if (key === undefined || value !== undefined) throw usageError(USAGE, 'delete needs exactly one KEY');
        deleteFact(ctx(), key);
        if (json) printJson(io, { deleted: key });
        return 0;
      default:
        throw unknownWord(USAGE, verb, ['set', 'get', 'list', 'delete']);
    }
  },
};
