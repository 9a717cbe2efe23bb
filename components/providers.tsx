'use client';
import { type ReactNode, useEffect } from 'react';
import { LiveProvider } from '@/components/live/LiveProvider';
import { TrpcProviders } from '@/components/trpc/react';

export function Providers({ children }: { children: ReactNode }) {
  // A marker for tests and benchmarks: the page is hydrated and answers input.
  useEffect(() => {
    document.documentElement.dataset.hydrated = 'true';
  }, []);
  return (
    <TrpcProviders>
      <LiveProvider>{children}</LiveProvider>
    </TrpcProviders>
  );
}
