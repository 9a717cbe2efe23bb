/**
 * Server components load each page's data and hand it over as a `Settled` value; client components
 * start their queries from it (no loading flash, no second request), then stay live.
 */
import type { Settled } from '@/server/trpc/caller';

export type { Settled };

/** Query options that start from server-loaded data when there is some. */
export function seeded<T>(initial: Settled<T> | undefined): { initialData?: T; initialDataUpdatedAt?: number } {
  return initial?.ok ? { initialData: initial.data } : {};
}

/** The message to show: the live query's error if it has one, else the server's. */
export function errorMessage(queryError: { message: string } | null | undefined, initial: Settled<unknown> | undefined, hasData: boolean): string | undefined {
  if (queryError) return queryError.message;
  if (!hasData && initial && !initial.ok) return initial.error.message;
  return undefined;
}
