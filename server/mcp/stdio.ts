/**
 * The stdio entry of heimdall-ledger-mcp (bundled to dist/mcp/stdio.js, started by
 * bin/heimdall-ledger-mcp). stdout carries the protocol only; every diagnostic goes to stderr.
 * The planning tree, the wire log and the caller's identity come from the composition root; with
 * no planning tree the server says so and exits 2, like every command but `init`.
 */
import { noTreeMessage } from '../core/planning/paths.js';
import { createServerRuntime } from '../runtime.js';
import { createLedgerServer } from './server.js';
import { LineStdioTransport } from './transport.js';

export async function main(): Promise<void> {
  const log = (m: string) => {
    process.stderr.write(`heimdall-ledger-mcp: ${m}\n`);
  };
  const runtime = createServerRuntime();
  if (!runtime.tree.exists) {
    log(noTreeMessage(runtime.tree));
    process.exitCode = 2;
    return;
  }
  const ledger = createLedgerServer({ runtime, log });
  const transport = new LineStdioTransport(process.stdin, process.stdout, { log });
  ledger.server.onerror = (e) => log(`error: ${e.message}`);
  // The wire log (a NATS connection at scale) lives as long as the connection, not longer.
  ledger.server.onclose = () => {
    runtime.close().catch((e: Error) => log(`closing the wire log: ${e.message}`));
  };
  await ledger.connect(transport);
  log(`serving ${ledger.tools.length} tools on stdio (planning root ${runtime.tree.root})`);
}
