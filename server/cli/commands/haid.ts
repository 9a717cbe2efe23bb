import { listHaids, registerHaid, retireHaid, rootHaid, spawnHaid } from '../../core/index.js';
import { bool, parseArgs, str, usageError, unknownWord } from '../args.js';
import type { Command } from '../command.js';
import { printJson } from './_util.js';

const USAGE = [
  'heimdall-haid spawn CLIENT | register AGENT [--role ROLE] | list | retire AGENT | root | whoami [--as AGENT]   [--json]',
  '  spawn derives {root}/{client} (e.g. cursor, copilot, claude-code) without registering it;',
  '  register records an agent active with its herd address; its role is its last segment without',
  '  a .instance suffix (--role, if given, must match). AGENT: a HAID, mason.1@core or claude-code.2.',
  '  whoami: the identity this shell acts as (HEIMDALL_AGENT, the client session, else {root}/cli).',
].join('\n');

export const command: Command = {
  summary: 'HAID identities',
  async run(argv, { io, ctx, caller }) {
    const p = parseArgs(argv, { usage: USAGE, flags: { role: 'string', as: 'string', json: 'boolean' }, positionals: [1, 2] });
    const json = bool(p, 'json');
    const [verb, arg] = p.positionals as [string, string?];
    const noArg = () => {
      if (arg !== undefined) throw usageError(USAGE, `${verb} takes no argument`);
    };
    const needArg = (what: string): string => {
      if (arg === undefined) throw usageError(USAGE, `${verb} needs ${what}`);
      return arg;
    };
    if (verb !== 'register' && str(p, 'role') !== undefined) throw usageError(USAGE, `--role applies to register only`);
    if (verb !== 'whoami' && str(p, 'as') !== undefined) throw usageError(USAGE, `--as applies to whoami only`);
    switch (verb) {
      case 'root': {
        noArg();
        const root = rootHaid(ctx());
        if (json) printJson(io, { root });
        else io.out(root);
        return 0;
      }
      case 'spawn': {
        const haid = spawnHaid(ctx(), needArg('a CLIENT name such as cursor'));
        if (json) printJson(io, { haid });
        else io.out(haid);
        return 0;
      }
      case 'register': {
        const r = registerHaid(ctx(), needArg('a HAID'), str(p, 'role'));
        if (json) printJson(io, { ...r.record, changed: r.changed });
        else io.out(`${r.changed ? 'registered' : 'already registered'} ${r.record.haid} role=${r.record.role}`);
        return 0;
      }
      case 'list': {
        noArg();
        const l = listHaids(ctx());
        if (json) printJson(io, l);
        else for (const h of l.haids) io.out([h.haid, h.role, h.status, h.registered_at, h.address ?? '-'].join('\t'));
        return 0;
      }
      case 'whoami': {
        noArg();
        const { identity } = await caller(str(p, 'as'), '--as');
        if (json) printJson(io, identity);
        else io.out(`${identity.haid}\t${identity.address ?? '-'}\t${identity.source}${identity.via ? ` (${identity.via})` : ''}`);
        return 0;
      }
      case 'retire': {
        const r = retireHaid(ctx(), needArg('a HAID'));
        if (json) printJson(io, { ...r.record, changed: r.changed });
        else io.out(`${r.changed ? 'retired' : 'already retired'} ${r.record.haid}`);
        return 0;
      }
      default:
        throw unknownWord(USAGE, verb, ['spawn', 'register', 'list', 'retire', 'root', 'whoami']);
    }
  },
};
