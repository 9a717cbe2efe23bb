import { z } from 'zod';
import { readLedger, report } from '../../core/ledger/ledger.js';
import { procedure, router } from '../trpc.js';

export const ledgerRouter = router({
  /** Per-role totals with baseline and change, exactly as `heimdall-ledger report` computes them. */
  report: procedure.input(z.object({ run: z.string().max(200).optional() }).optional()).query(({ ctx, input }) => report(ctx.core, { run: input?.run })),
  /** Every ledger line, for the charts over time. */
  entries: procedure.query(({ ctx }) => readLedger(ctx.core)),
});
