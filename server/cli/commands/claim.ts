import { DEFAULT_TTL_MINUTES, listClaims, makeClaim, releaseClaim, splitSurfaceList } from '../../core/claims/index.js';
import { HAID_ENV, actingHaid } from '../../core/identity/index.js';
import { bool, int, parseArgs, requireStr, str, usageError } from '../args.js';
import type { Command } from '../command.js';
import { printJson } from './_util.js';

const USAGE = [
  'heimdall-claim claim --surfaces GLOB[,GLOB...] --task REF [--ttl-minutes N] [--haid H] [--json]',
  '       heimdall-claim list [--json]',
  '       heimdall-claim release [--haid H] [--json]',
  `  Without --haid the claim is made as $${HAID_ENV}, or else as {root}/cli (see heimdall-haid root).`,
  `  --ttl-minutes defaults to ${DEFAULT_TTL_MINUTES}; commas inside braces stay in one glob: src/{a,b}.ts,docs/**`,
].join('\n');

export const command: Command = {
  summary: 'claims with a collision gate',
  async run(argv, { io, ctx }) {
    const p = parseArgs(argv, {
      usage: USAGE,
      flags: { surfaces: 'string', task: 'string', 'ttl-minutes': 'int', haid: 'string', json: 'boolean' },
      positionals: [1, 1],
    });
    const json = bool(p, 'json');
    const verb = p.positionals[0] as string;
    const only = (allowed: string[]) => {
      for (const f of Object.keys(p.flags)) {
        if (!allowed.includes(f)) throw usageError(USAGE, `--${f} does not apply to ${verb}`);
      }
    };
    switch (verb) {
      case 'claim': {
        const surfaces = splitSurfaceList(requireStr(p, 'surfaces', USAGE));
        if (surfaces.length === 0) throw usageError(USAGE, '--surfaces needs at least one glob');
        const task = requireStr(p, 'task', USAGE);
        const c = ctx();
        const haid = actingHaid(c, str(p, 'haid'));
        const r = makeClaim(c, { haid, surfaces, task, ttlMinutes: int(p, 'ttl-minutes') });
        if (json) printJson(io, { haid, extended: r.extended, claim: r.claim });
        else io.out(`${r.extended ? 'extended' : 'claimed'} ${r.claim.surfaces.join(',')} for ${r.claim.task_ref} until ${r.claim.expires_at}`);
        return 0;
      }
      case 'list': {
        only(['json']);
        const l = listClaims(ctx());
        if (json) printJson(io, l);
        else for (const c of l.claims) io.out([c.haid, c.status, c.expires_at, c.task_ref, c.surfaces.join(',')].join('\t'));
        return 0;
      }
      case 'release': {
        only(['haid', 'json']);
        const c = ctx();
        const haid = actingHaid(c, str(p, 'haid'));
        const r = releaseClaim(c, { haid });
        if (json) printJson(io, { haid, released: r.released });
        else io.out(`released ${r.released.surfaces.join(',')} held by ${haid} (${r.released.status})`);
        return 0;
      }
      default:
        throw usageError(USAGE, `unknown subcommand ${JSON.stringify(verb)}`);
    }
  },
};
