/**
 * The tRPC endpoint: queries and mutations over HTTP, the live-change subscription over SSE.
 * Host, token and origin checks happen before this, in Studio's request guard (proxy.ts).
 */
import { fetchRequestHandler } from '@trpc/server/adapters/fetch';
import { createContext } from '@/server/trpc/context';
import { appRouter } from '@/server/trpc/root';
import { internalDetail } from '@/server/trpc/trpc';

export const dynamic = 'force-dynamic';

function handler(req: Request): Promise<Response> {
  return fetchRequestHandler({
    endpoint: '/api/trpc',
    req,
    router: appRouter,
    createContext,
    onError({ error, path }) {
      // A person-facing error (bad input, corrupted file) is shown on the page; log only the rest.
      // The browser only reads a fixed sentence for these; the cause is here, in the server output.
      if (error.code === 'INTERNAL_SERVER_ERROR') console.error(`studio: ${path ?? '?'}: ${internalDetail(error)}`);
    },
  });
}

export { handler as GET, handler as POST };
