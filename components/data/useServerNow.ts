'use client';
import { useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { useTRPC } from '@/components/trpc/react';

/**
 * The server's clock (the core's Clock port, so a test server with HEIMDALL_NOW agrees with what
 * it computes), advanced by the time elapsed in the browser since it was read. Ticks every `everyMs`.
 */
export function useServerNow(initialNow?: number, everyMs = 10_000): number {
  const trpc = useTRPC();
  const info = useQuery(trpc.studio.info.queryOptions());
  const base = info.data?.now ?? initialNow;
  const [readAt, setReadAt] = useState(() => Date.now());
  const [, tick] = useState(0);
  useEffect(() => setReadAt(Date.now()), [base]);
  useEffect(() => {
    const t = setInterval(() => tick((n) => n + 1), everyMs);
    return () => clearInterval(t);
  }, [everyMs]);
  if (base === undefined) return Date.now();
  return base + Math.max(0, Date.now() - readAt);
}
