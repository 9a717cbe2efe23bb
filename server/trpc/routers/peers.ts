import { listPeers, listTasks } from '../../core/index.js';
import { procedure, router } from '../trpc.js';

export const peersRouter = router({
  /** Handshake peer profiles with their load and unhealthy MCP servers (`heimdall a2a peers`). */
  list: procedure.query(({ ctx }) => listPeers(ctx.core)),
  /** Dispatched tasks and where they went. */
  tasks: procedure.query(({ ctx }) => listTasks(ctx.core)),
});
