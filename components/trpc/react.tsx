'use client';
/**
 * The browser side of tRPC: one QueryClient and one tRPC client per tab. Queries and mutations go
 * over batched HTTP; the live-change subscription over SSE (httpSubscriptionLink uses EventSource,
 * which sends the Studio cookie like any other request).
 */
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { createTRPCClient, httpBatchLink, httpSubscriptionLink, splitLink } from '@trpc/client';
import { createTRPCContext } from '@trpc/tanstack-react-query';
import { type ReactNode, useState } from 'react';
import type { AppRouter } from '@/server/trpc/root';

export const { TRPCProvider, useTRPC, useTRPCClient } = createTRPCContext<AppRouter>();

function endpoint(): string {
  // Relative in the browser; the SSR pass never fetches (it renders from server-loaded data), but
  // the links want an absolute URL to construct.
  return typeof window === 'undefined' ? 'http://127.0.0.1/api/trpc' : '/api/trpc';
}

function makeQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: {
        // Freshness comes from the live stream (it invalidates what changed), not from timers.
        staleTime: 60_000,
        refetchOnWindowFocus: true,
        retry: (count, error) => count < 2 && !/^(BAD_REQUEST|NOT_FOUND|PRECONDITION_FAILED|FORBIDDEN|UNAUTHORIZED)$/.test((error as { data?: { code?: string } }).data?.code ?? ''),
      },
    },
  });
}

export function TrpcProviders({ children }: { children: ReactNode }) {
  const [queryClient] = useState(makeQueryClient);
  const [trpcClient] = useState(() =>
    createTRPCClient<AppRouter>({
      links: [
        splitLink({
          condition: (op) => op.type === 'subscription',
          true: httpSubscriptionLink({ url: endpoint() }),
          false: httpBatchLink({ url: endpoint(), maxURLLength: 4000 }),
        }),
      ],
    }),
  );
  return (
    <QueryClientProvider client={queryClient}>
      <TRPCProvider trpcClient={trpcClient} queryClient={queryClient}>
        {children}
      </TRPCProvider>
    </QueryClientProvider>
  );
}
