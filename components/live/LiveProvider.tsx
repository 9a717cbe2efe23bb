'use client';
/**
 * Keeps every open page live. The server pushes which parts of the planning tree changed (SSE, see
 * server/trpc/live.ts for the reasoning); this invalidates exactly the queries that read them, and
 * React Query refetches the ones on screen. While the stream is down, it polls every 2 s instead, so
 * the 2-second promise holds even behind a proxy that buffers event streams.
 */
import { type Query, useQueryClient } from '@tanstack/react-query';
import { useSubscription } from '@trpc/tanstack-react-query';
import { type ReactNode, createContext, useCallback, useContext, useEffect, useMemo, useRef, useState } from 'react';
import type { Topic } from '@/server/trpc/live';
import { useTRPC } from '@/components/trpc/react';

export type LiveStatus = 'connecting' | 'live' | 'polling';

interface LiveState {
  status: LiveStatus;
  /** When the last change event arrived (ms since epoch, browser clock). */
  lastChange?: number;
}

const LiveContext = createContext<LiveState>({ status: 'connecting' });

export function useLiveStatus(): LiveState {
  return useContext(LiveContext);
}

/** Log pages pinned to a line number (`upTo`) never change: the log is append-only. */
function isPinnedLogPage(q: Query): boolean {
  const [pathKey, meta] = q.queryKey as [string[], { input?: { upTo?: number } } | undefined];
  return Array.isArray(pathKey) && pathKey[0] === 'log' && pathKey[1] === 'page' && meta?.input?.upTo !== undefined;
}

export function LiveProvider({ children }: { children: ReactNode }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [state, setState] = useState<LiveState>({ status: 'connecting' });

  const keysFor = useMemo<Record<Topic, readonly unknown[][]>>(
    () => ({
      log: [trpc.log.pathKey()],
      symbols: [trpc.symbols.pathKey()],
      blackboard: [trpc.blackboard.pathKey()],
      capsules: [trpc.capsules.pathKey(), trpc.phase.pathKey()],
      ledger: [trpc.ledger.pathKey()],
      team: [trpc.claims.pathKey(), trpc.agents.pathKey(), trpc.phase.pathKey()],
      // The agents board shows each agent's wire tasks; the phase board its plans' attempts.
      wire: [trpc.streams.pathKey(), trpc.peers.pathKey(), trpc.agents.pathKey(), trpc.phase.pathKey()],
      // The phase board also follows claims and wire attempts (above) and capsules (brief tokens).
      phase: [trpc.phase.pathKey()],
    }),
    [trpc],
  );

  const invalidate = useCallback(
    (topics: readonly Topic[]) => {
      for (const t of topics) {
        for (const queryKey of keysFor[t] ?? []) {
          void queryClient.invalidateQueries({ queryKey, predicate: (q) => !isPinnedLogPage(q) });
        }
      }
      // The header clock and anything time-relative follow every change.
      void queryClient.invalidateQueries({ queryKey: trpc.studio.pathKey() });
    },
    [keysFor, queryClient, trpc],
  );

  const sub = useSubscription(
    trpc.live.changes.subscriptionOptions(undefined, {
      onData: (e) => {
        // The first event after (re)connecting names every topic: refetch all, a gap may hide changes.
        if (e.seq > 0) setState({ status: 'live', lastChange: Date.now() });
        else setState((s) => ({ ...s, status: 'live' }));
        invalidate(e.topics);
      },
    }),
  );

  // Fall back to polling while the stream is not delivering.
  const subStatus = sub.status;
  const down = subStatus === 'error' || subStatus === 'connecting' || subStatus === 'idle';
  const downSince = useRef<number | undefined>(undefined);
  useEffect(() => {
    if (!down) {
      downSince.current = undefined;
      return;
    }
    downSince.current ??= Date.now();
    const timer = setInterval(() => {
      if (downSince.current !== undefined && Date.now() - downSince.current > 1500) {
        setState((s) => (s.status === 'polling' ? s : { ...s, status: 'polling' }));
        void queryClient.invalidateQueries({ predicate: (q) => !isPinnedLogPage(q) });
      }
    }, 2000);
    return () => clearInterval(timer);
  }, [down, queryClient]);

  return <LiveContext.Provider value={state}>{children}</LiveContext.Provider>;
}
