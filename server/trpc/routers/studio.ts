import { procedure, router } from '../trpc.js';

export const studioRouter = router({
  /** What the header shows: which tree this Studio reads, the tokenizer, and the server's clock. */
  info: procedure.query(({ ctx }) => ({
    root: ctx.core.root,
    tokenizer: ctx.core.tokenizer.name,
    now: ctx.core.clock.now(),
  })),
});
