import { agentsRouter } from './routers/agents.js';
import { blackboardRouter } from './routers/blackboard.js';
import { capsulesRouter } from './routers/capsules.js';
import { claimsRouter } from './routers/claims.js';
import { ledgerRouter } from './routers/ledger.js';
import { liveRouter } from './routers/live.js';
import { logRouter } from './routers/log.js';
import { peersRouter } from './routers/peers.js';
import { phaseRouter } from './routers/phase.js';
import { streamsRouter } from './routers/streams.js';
import { studioRouter } from './routers/studio.js';
import { symbolsRouter } from './routers/symbols.js';
import { router } from './trpc.js';

export const appRouter = router({
  studio: studioRouter,
  log: logRouter,
  symbols: symbolsRouter,
  blackboard: blackboardRouter,
  capsules: capsulesRouter,
  ledger: ledgerRouter,
  claims: claimsRouter,
  agents: agentsRouter,
  streams: streamsRouter,
  peers: peersRouter,
  phase: phaseRouter,
  live: liveRouter,
});

export type AppRouter = typeof appRouter;
