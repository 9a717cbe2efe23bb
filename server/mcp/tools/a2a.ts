/** The handshake over MCP: a2a_announce, a2a_dispatch, a2a_result, a2a_peers (core: server/core/handshake). */
import { announce, dispatch, listPeers, routeOnly, submitResult } from '../../core/index.js';
import { type ToolContext, type ToolDef, defineTool } from './types.js';

/** Who is calling: the agent's herd address, else its HAID (the handshake records a client HAID by its last segment). */
function caller({ identity }: ToolContext): string {
  return identity.address ?? identity.haid;
}

const MESSAGE = (what: string) => ({ type: 'object' as const, description: `${what} JSON (protocol_version 2.0)` });

export const a2aTools: ToolDef[] = [
  defineTool<{ message: Record<string, unknown>; client_identity?: string }>({
    name: 'a2a_announce',
    description: 'Announce your session (SESSION_ANNOUNCE): model tier, tools, MCP server health, active tasks, repo state. Re-announce when they change.',
    input: { properties: { message: MESSAGE('SESSION_ANNOUNCE') }, required: ['message'] },
    output: { properties: { profile: { type: 'object' }, routed: { type: 'array' } } },
    run: async (a, tc) => {
      const wire = await tc.runtime.tryWireLog();
      const r = await announce(tc.ctx, a.message, { as: caller(tc), wire: wire.log });
      return wire.problem ? { ...r, warnings: [...(r.warnings ?? []), `wire log unavailable, no event appended: ${wire.problem}`] } : { ...r };
    },
  }),
  defineTool<{ message: Record<string, unknown>; to?: string; dry_run?: boolean; client_identity?: string }>({
    name: 'a2a_dispatch',
    description: 'Dispatch a task (TASK_DISPATCH): checked before work starts, then routed to a qualifying peer, or answered with a blocked TASK_RESULT.',
    input: {
      properties: {
        message: MESSAGE('TASK_DISPATCH'),
        to: { type: 'string', description: 'A peer agent_id; default: route' },
        dry_run: { type: 'boolean', description: 'Only show the routing decision' },
      },
      required: ['message'],
    },
    output: { properties: { decision: { type: 'string', enum: ['routed', 'blocked', 'dry_run'] } }, required: ['decision'] },
    run: async (a, tc) => {
      if (a.dry_run) return { decision: 'dry_run', ...(await routeOnly(tc.ctx, a.message)) };
      return { ...(await dispatch(tc.ctx, a.message, { to: a.to, as: caller(tc) })) };
    },
  }),
  defineTool<{ message: Record<string, unknown>; client_identity?: string }>({
    name: 'a2a_result',
    description: "Report a dispatched task's outcome (TASK_RESULT). Must match the dispatch's reply_schema; tokens_spent is shown beside the ledger.",
    input: { properties: { message: MESSAGE('TASK_RESULT') }, required: ['message'] },
    output: { properties: { task_id: { type: 'string' }, status: { type: 'string' }, state: { type: 'string' }, tokens: { type: 'object' } }, required: ['task_id', 'status', 'state', 'tokens'] },
    run: async (a, tc) => ({ ...(await submitResult(tc.ctx, a.message, { as: caller(tc) })) }),
  }),
  defineTool<Record<string, never>>({
    name: 'a2a_peers',
    description: 'List announced peers: tier, load, MCP health, repo state.',
    output: { properties: { peers: { type: 'array', items: { type: 'object' } }, count: { type: 'integer' } } },
    run: async (_a, { ctx }) => {
      const peers = await listPeers(ctx);
      return { peers, count: peers.length };
    },
  }),
];
