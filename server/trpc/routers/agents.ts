import { z } from 'zod';
import { listAgents, send } from '../../core/herd/index.js';
import { procedure, router } from '../trpc.js';

export const agentsRouter = router({
  /** Every known agent with tier, last status line, last check-in and heartbeat status. */
  list: procedure.query(({ ctx }) => listAgents(ctx.core)),
  /** Queue a directive, inform or flag (`heimdall herd send`); the core checks addresses and tiers. */
  send: procedure
    .input(z.object({ from: z.string().max(200), to: z.string().max(200), type: z.string().max(40), body: z.string().max(20_000) }))
    .mutation(({ ctx, input }) => send(ctx.core, input)),
});
