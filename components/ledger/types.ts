/**
 * The ledger page's data, typed from the router (the client never takes types from core files):
 * one run's savings as `heimdall-ledger report --json --run R` prints them, and its latest lines.
 */
import type { inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from '@/server/trpc/root';

type Outputs = inferRouterOutputs<AppRouter>;

export type SavingsData = Outputs['ledger']['report'];
export type RoleSaving = SavingsData['roles'][number];
export type RunSummary = SavingsData['runs'][number];
export type GsdData = NonNullable<SavingsData['gsd']>;
export type LedgerLines = Outputs['ledger']['entries'];

/** The run id of the lines logged without a run (the core's NO_RUN), as the URL and the CLI take it. */
export const NO_RUN = '-';
