/**
 * The stdio entry of heimdall-ledger-mcp (bundled to dist/mcp/stdio.js, started by
 * bin/heimdall-ledger-mcp). stdout carries the protocol only; every diagnostic goes to stderr.
 * The planning tree, the wire log and the caller's identity come from the composition root; with
 * no planning tree the server says so and exits 2, like every command but `init`.
 *
 * Hosts start it with no arguments. `--help` and `--version` answer and exit 0 instead of serving
 * (a person trying the program sees what it is rather than a server waiting on stdin); any other
 * argument is a usage error (exit 2), so a mistyped option never starts a server that ignores it.
 */
import { closest, noTreeMessage } from '../core/index.js';
import { versionInfo, versionLine } from '../version.js';

const PROGRAM = 'heimdall-ledger-mcp';

export const USAGE = [
  `usage: ${PROGRAM} [--help | --version]`,
  '',
  "Heimdall's team ledger over the Model Context Protocol, on stdio: claims, capsules, decisions, conflict PRs,",
  'herd check-ins and messages, the a2a handshake. An agent client (MCP host) starts it and speaks JSON-RPC on its',
  'stdin and stdout (newline-delimited JSON or Content-Length frames in, one line per message out); logs go to',
  'stderr. With no planning tree it says so and exits 2 (create one with `heimdall init`).',
  '',
  'How clients start it: `heimdall setup claude-code|cursor|vscode|codex` writes the entry in each client\'s own',
  'file (.mcp.json, .cursor/mcp.json, .vscode/mcp.json, .codex/config.toml): the command',
  '`npx --no-install heimdall-ledger-mcp` in a project that installed heimdall-agents (`heimdall-ledger-mcp` when',
  'it is on PATH), with HEIMDALL_AGENT forwarded. Any MCP SDK client can start it the same way.',
  '',
  'Environment:',
  '  HEIMDALL_AGENT           the agent session this connection acts as: claude-code.2, mason.1@core or a HAID',
  '  HEIMDALL_HAID            the 1.x name of the same variable (HEIMDALL_AGENT wins)',
  '  CLAUDE_CODE_SESSION_ID   Claude Code\'s session id (CODEX_THREAD_ID: Codex\'s): a reconnect keeps its identity',
  '                           (with none of these, each connection gets a fresh identity {client}.s{n})',
  '  HEIMDALL_PLANNING_DIR    the planning tree; default: the nearest .planning/ from CLAUDE_PROJECT_DIR (Claude',
  '                           Code\'s project folder) or else the working directory, as git finds .git',
  '  HEIMDALL_CEILING_DIRECTORIES  colon-separated folders the search for .planning/ stops below',
  '  HEIMDALL_STREAM_URL      nats://... puts the wire events (check-ins, announces) on NATS JetStream',
  '                           (HEIMDALL_STREAM_PREFIX names its streams); unset: .planning/wire/*.jsonl',
  '  HEIMDALL_MAX_READ_BYTES, HEIMDALL_MAX_JSON_DEPTH, HEIMDALL_LOCK_TIMEOUT_MS   storage limits',
  '',
  'Tools, attribution and errors: server/mcp/README.md in the package.',
].join('\n');

/** What the arguments ask for: serve (none), help or version, or a usage error. */
export function parseServerArgs(argv: readonly string[]): { action: 'serve' | 'help' | 'version' } | { action: 'usage'; message: string } {
  if (argv.length === 0) return { action: 'serve' };
  const [a] = argv;
  if (argv.length === 1 && (a === '--help' || a === '-h')) return { action: 'help' };
  if (argv.length === 1 && (a === '--version' || a === '-V')) return { action: 'version' };
  const bad = argv.find((x) => !['--help', '-h', '--version', '-V'].includes(x)) ?? argv[1];
  const near = bad?.startsWith('--') ? closest(bad.slice(2), ['help', 'version']) : undefined;
  return { action: 'usage', message: `unexpected argument ${JSON.stringify(bad)}${near ? ` (did you mean --${near}?)` : ''}: the server takes no arguments (its host starts it plain)` };
}

export async function main(argv: readonly string[] = []): Promise<void> {
  const log = (m: string) => {
    process.stderr.write(`${PROGRAM}: ${m}\n`);
  };
  const asked = parseServerArgs(argv);
  if (asked.action === 'help' || asked.action === 'version') {
    process.stdout.write(`${asked.action === 'help' ? USAGE : versionLine(versionInfo(PROGRAM))}\n`);
    return;
  }
  if (asked.action === 'usage') {
    process.stderr.write(`${PROGRAM}: ${asked.message}\n${USAGE}\n`);
    process.exitCode = 2;
    return;
  }
  // The server's own modules (the MCP SDK, zod) load only to serve.
  const [{ createServerRuntime }, { createLedgerServer }, { LineStdioTransport }] = await Promise.all([import('../runtime.js'), import('./server.js'), import('./transport.js')]);
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
