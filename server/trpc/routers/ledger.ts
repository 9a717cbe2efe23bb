import { z } from 'zod';
import { report, scopeLines } from '../../core/index.js';
import { procedure, router } from '../trpc.js';

// A run id, or "-" for the lines without a run; the core checks it and names the runs it knows.
const run = z.string().max(200).optional();

export const ledgerRouter = router({
  /**
   * The savings of one run (by default the latest), exactly as `heimdall-ledger report --json --run R`
   * computes them, with every run for the picker and the chart over time.
   */
  report: procedure.input(z.object({ run }).optional()).query(({ ctx, input }) => report(ctx.core, { run: input?.run || undefined })),
  /** The latest ledger lines of the same run, newest first. */
  entries: procedure
    .input(z.object({ run, limit: z.number().int().min(1).max(1000).optional() }).optional())
    .query(({ ctx, input }) => scopeLines(ctx.core, { run: input?.run || undefined, limit: input?.limit })),
});
