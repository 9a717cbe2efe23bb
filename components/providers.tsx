'use client';
import type { ReactNode } from 'react';
import { LiveProvider } from '@/components/live/LiveProvider';
import { TrpcProviders } from '@/components/trpc/react';

export function Providers({ children }: { children: ReactNode }) {
  return (
    <TrpcProviders>
      <LiveProvider>{children}</LiveProvider>
    </TrpcProviders>
  );
}
