import type { Metadata } from 'next';
import type { ReactNode } from 'react';
import { Shortcuts } from '@/components/nav/Shortcuts';
import { Sidebar } from '@/components/nav/Sidebar';
import { THEME_SCRIPT } from '@/components/nav/theme';
import { Providers } from '@/components/providers';
import { getRuntime } from '@/server/trpc/context';
import './globals.css';

export const metadata: Metadata = {
  title: { default: 'Heimdall Studio', template: '%s · Heimdall Studio' },
  description: 'The protocol log, symbols, capsules, blackboard, ledger, claims, agents, streams and peers of a Heimdall planning tree.',
};

export const dynamic = 'force-dynamic';

function planningRoot(): string {
  try {
    return getRuntime().ctx.root;
  } catch (e) {
    return `(${(e as Error).message})`;
  }
}

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    // The theme script sets the class on <html> before React hydrates: a difference React should not flag.
    <html lang="en" suppressHydrationWarning>
      <head>
        {/* A constant of this code base (never user data), run before the first paint so a dark page never flashes white. */}
        <script dangerouslySetInnerHTML={{ __html: THEME_SCRIPT }} />
      </head>
      <body>
        <a href="#main" className="sr-only focus:not-sr-only focus:fixed focus:left-2 focus:top-2 focus:z-50 focus:rounded focus:bg-white focus:px-3 focus:py-2 focus:text-sm focus:shadow">
          Skip to content
        </a>
        <Providers>
          <Shortcuts />
          <div className="flex min-h-full">
            <Sidebar root={planningRoot()} />
            <main id="main" tabIndex={-1} className="min-w-0 flex-1 focus:outline-none">
              <div className="mx-auto max-w-[1400px] px-4 py-6 xl:px-6">{children}</div>
            </main>
          </div>
        </Providers>
      </body>
    </html>
  );
}
