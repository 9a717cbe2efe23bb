import { planningChanges } from '../live.js';
import { procedure, router } from '../trpc.js';

export const liveRouter = router({
  /** Which parts of the planning tree changed; see server/trpc/live.ts for why SSE + stat polling. */
  changes: procedure.subscription(({ ctx, signal }) => planningChanges(ctx.core, signal)),
});
