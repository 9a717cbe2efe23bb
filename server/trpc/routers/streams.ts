import { z } from 'zod';
import { replayReadModel, streamEvents, wireOverview } from '../compose.js';
import { procedure, router } from '../trpc.js';

export const streamsRouter = router({
  /** The read model, caught up with the log: streams, task runs, agents. */
  overview: procedure.query(({ ctx }) => wireOverview(ctx.core)),
  /** One stream's events from the canonical log. */
  events: procedure.input(z.object({ topic: z.string().max(64), stream_id: z.string().max(300) })).query(({ ctx, input }) => streamEvents(ctx.core, input.topic, input.stream_id)),
  /** Drop the read model and rebuild it from the log (`heimdall wire replay`). */
  replay: procedure.mutation(({ ctx }) => replayReadModel(ctx.core)),
});
