/**
 * gsd_ready, gsd_start and gsd_done (core: server/core/phase): an agent runs the plans of an
 * imported GSD phase. Calls act as the connection's agent (or client_identity), like the claim tools.
 */
import { GSD_RESULT_STATUSES, gsdDone, gsdReady, gsdStart, MAX_TTL_MINUTES, type GsdResultStatus } from '../../core/index.js';
import { type ToolDef, defineTool } from './types.js';

const PLAN = { type: 'string' as const, minLength: 1, maxLength: 200, description: 'Plan id, e.g. 01-02' };

export const gsdTools: ToolDef[] = [
  defineTool<{ phase?: string }>({
    name: 'gsd_ready',
    description: 'GSD plans you can start now (dependencies done, files free), and why each other plan waits. Call before gsd_start.',
    input: { properties: { phase: { type: 'string', maxLength: 40, description: 'Only this phase, e.g. 01' } } },
    output: {
      properties: {
        ready: { type: 'array', items: { type: 'string' } },
        complete: { type: 'boolean' },
        counts: { type: 'object' },
        plans: { type: 'array', items: { type: 'object' } },
      },
    },
    run: async (a, { ctx, haid, runtime }) => {
      const r = await runtime.exclusive((w) => gsdReady(ctx, w, { haid, phase: a.phase }));
      const plans = r.phases.flatMap((p) => p.waves.flatMap((w) => w.plans)).map((s) => ({ id: s.id, phase: s.phase, wave: s.wave, status: s.status, holder: s.holder, reasons: s.reasons }));
      return { ready: r.ready, complete: r.complete, counts: r.counts, plans };
    },
  }),
  defineTool<{ plan: string; ttl_minutes?: number }>({
    name: 'gsd_start',
    description: "Start a GSD plan: claims all its files for you (or names who holds them), opens its attempt, returns its brief. Call again to renew.",
    input: {
      properties: { plan: PLAN, ttl_minutes: { type: 'integer', minimum: 1, maximum: MAX_TTL_MINUTES, description: 'Default 60' } },
      required: ['plan'],
    },
    output: {
      properties: {
        plan: { type: 'string' },
        attempt: { type: 'integer' },
        resumed: { type: 'boolean' },
        claim: { type: 'object' },
        lease_expires_at: { type: 'string' },
        brief: { type: 'string' },
        brief_tokens: { type: 'integer' },
        total_tokens: { type: 'integer' },
        reads: { type: 'array', items: { type: 'object' } },
      },
    },
    run: async (a, { ctx, haid, runtime }) => {
      const r = await runtime.exclusive((w) => gsdStart(ctx, w, { haid, plan: a.plan, ttlMinutes: a.ttl_minutes }));
      return {
        plan: r.plan,
        attempt: r.attempt,
        resumed: r.resumed,
        claim: r.claim,
        lease_expires_at: r.lease_expires_at,
        brief: r.brief.text,
        brief_tokens: r.brief.tokens,
        total_tokens: r.brief.total_tokens,
        reads: r.brief.reads,
      };
    },
  }),
  defineTool<{ plan: string; status: GsdResultStatus; note?: string; commit?: string; criteria?: number[] }>({
    name: 'gsd_done',
    description: 'Finish the GSD plan you hold: records your typed result (and its SUMMARY as a capsule), releases its files. partial returns it to the queue.',
    input: {
      properties: {
        plan: PLAN,
        status: { type: 'string', enum: [...GSD_RESULT_STATUSES] },
        note: { type: 'string', maxLength: 2000 },
        commit: { type: 'string', description: 'Commit hash' },
        criteria: { type: 'array', items: { type: 'integer', minimum: 0 }, description: 'Criteria met' },
      },
      required: ['plan', 'status'],
    },
    output: {
      properties: {
        plan: { type: 'string' },
        attempt: { type: 'integer' },
        status: { type: 'string' },
        result: { type: 'object' },
        capsule: { type: 'object' },
        released: { type: 'array', items: { type: 'string' } },
      },
      required: ['plan', 'attempt', 'status', 'result', 'released'],
    },
    run: async (a, { ctx, haid, runtime }) => {
      const r = await runtime.exclusive((w) => gsdDone(ctx, w, { haid, plan: a.plan, status: a.status, note: a.note, commit: a.commit, criteria: a.criteria }));
      return { plan: r.plan, attempt: r.attempt, status: r.status, result: r.result, ...(r.capsule ? { capsule: r.capsule } : {}), released: r.released, event: r.event, summary_file: r.summary_file };
    },
  }),
];
