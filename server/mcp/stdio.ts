/**
 * The stdio entry of heimdall-ledger-mcp (bundled to dist/mcp/stdio.js, started by
 * bin/heimdall-ledger-mcp). stdout carries the protocol only; every diagnostic goes to stderr.
 * The planning root comes from the composition root (HEIMDALL_PLANNING_DIR or ./.planning).
 */
import { createRuntime } from '../runtime.js';
import { createLedgerServer } from './server.js';
import { LineStdioTransport } from './transport.js';

export async function main(): Promise<void> {
  const log = (m: string) => {
    process.stderr.write(`heimdall-ledger-mcp: ${m}\n`);
  };
  const { ctx } = createRuntime();
  const ledger = createLedgerServer({ ctx, log });
  const transport = new LineStdioTransport(process.stdin, process.stdout, { log });
  ledger.server.onerror = (e) => log(`error: ${e.message}`);
  await ledger.connect(transport);
  log(`serving ${ledger.tools.length} tools on stdio (planning root ${ctx.root})`);
}
