/** Claim tools: read_claims, make_claim, release_claim (core: server/core/claims). */
import { MAX_SURFACES, MAX_TTL_MINUTES, listClaims, makeClaim, releaseClaim } from '../../core/index.js';
import { CLAIM_SCHEMA, type ToolDef, defineTool } from './types.js';

export const claimTools: ToolDef[] = [
  defineTool<Record<string, never>>({
    name: 'read_claims',
    description: 'List active claims: who is editing which files (globs), for what task, until when. Call before starting work.',
    output: { properties: { claims: { type: 'array', items: CLAIM_SCHEMA }, count: { type: 'integer' } } },
    run: (_args, { ctx }) => {
      const l = listClaims(ctx, { activeOnly: true });
      return { claims: l.claims, count: l.count };
    },
  }),
  defineTool<{ surfaces: string[]; task: string; ttl_minutes?: number }>({
    name: 'make_claim',
    description:
      'Claim files before editing them, one claim per task. Refused if another agent holds an overlapping claim (the error names holder and task). Claiming the same task again extends it.',
    input: {
      properties: {
        surfaces: { type: 'array', items: { type: 'string' }, minItems: 1, maxItems: MAX_SURFACES, description: 'Repo-relative globs, e.g. ["src/a/**"]' },
        task: { type: 'string', minLength: 1, description: 'Task id or summary' },
        ttl_minutes: { type: 'integer', minimum: 1, maximum: MAX_TTL_MINUTES, description: 'Default 60' },
      },
      required: ['surfaces', 'task'],
    },
    output: { properties: { claim: CLAIM_SCHEMA, extended: { type: 'boolean' } } },
    run: (a, { ctx, haid }) => {
      const r = makeClaim(ctx, { haid, surfaces: a.surfaces, task: a.task, ttlMinutes: a.ttl_minutes });
      return { claim: r.claim, extended: r.extended };
    },
  }),
  defineTool<{ id?: string; haid?: string; reason?: string }>({
    name: 'release_claim',
    description: "Release your claims when done: one by id, or all of yours. With haid, another agent's claims once they expired.",
    input: {
      properties: {
        id: { type: 'string', description: 'One claim id (default: all of yours)' },
        haid: { type: 'string', description: 'Whose claims (default: yours)' },
        reason: { type: 'string' },
      },
    },
    output: { properties: { released: { type: 'array', items: CLAIM_SCHEMA }, count: { type: 'integer' } } },
    run: (a, { ctx, haid }) => {
      const r = releaseClaim(ctx, { by: haid, id: a.id, haid: a.haid, reason: a.reason });
      return { released: r.released, count: r.released.length };
    },
  }),
];
