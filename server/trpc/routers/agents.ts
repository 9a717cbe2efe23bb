import { z } from 'zod';
import { HERD_MESSAGE_TYPES, send } from '../../core/index.js';
import { agentBoard } from '../compose.js';
import { procedure, router } from '../trpc.js';

export const agentsRouter = router({
  /** Every agent the herd knows, most urgent first, with its claims, wire tasks and current task; and the operator Studio acts as. */
  list: procedure.query(({ ctx }) => agentBoard(ctx.core)),
  /**
   * Queue a directive, inform or flag from Studio's operator (`{root}/studio`, herd address
   * `studio.operator@team`): the sender is who Studio is, never a field of the request, so the input
   * is strict and a `from` is refused. The core checks the recipient and the tiers.
   */
  send: procedure
    .input(z.strictObject({ to: z.string().max(200), type: z.enum(HERD_MESSAGE_TYPES), body: z.string().max(20_000) }))
    .mutation(({ ctx, input }) => send(ctx.core, { from: ctx.core.actor ?? '', ...input })),
});
