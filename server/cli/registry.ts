/**
 * The mechanisms `heimdall <mechanism> ...` dispatches to. Each entry is loaded lazily so a call
 * only pays for the code it runs (the bundle splits one chunk per command).
 *
 * To add a command: one line here, the module in ./commands/<name>.ts exporting `command`.
 */
import type { Command } from './command.js';

type Loader = () => Promise<{ command: Command }>;

export const REGISTRY: Record<string, Loader> = {
  // --- core protocol (§H-4)
  init: () => import('./commands/init.js'),
  log: () => import('./commands/log.js'),
  demo: () => import('./commands/demo.js'),
  validate: () => import('./commands/validate.js'),
  resolve: () => import('./commands/resolve.js'),
  capsule: () => import('./commands/capsule.js'),
  brief: () => import('./commands/brief.js'),
  blackboard: () => import('./commands/blackboard.js'),
  ledger: () => import('./commands/ledger.js'),
  gate: () => import('./commands/gate.js'),
  // --- other issues register below this line (one line each)
  import: () => import('./commands/import.js'),
  bench: () => import('./commands/bench.js'),
  claim: () => import('./commands/claim.js'),
  haid: () => import('./commands/haid.js'),
  csp: () => import('./commands/csp.js'),
  herd: () => import('./commands/herd.js'),
  a2a: () => import('./commands/a2a.js'),
  wire: () => import('./commands/wire.js'),
  setup: () => import('./commands/setup.js'),
  studio: () => import('./commands/studio.js'),
  hook: () => import('./commands/hook.js'),
  gsd: () => import('./commands/gsd.js'),
};

/** One-line summaries for `heimdall --help`, kept here so help needs no command module loaded. */
export const SUMMARIES: Record<string, string> = {
  init: 'create the .planning/ tree (idempotent, never clobbers state)',
  log: 'tail protocol.log: log [N]',
  demo: 'run one measured wave, v1 verbatim vs v2 protocol: demo [--show] [--fixture DIR]',
  validate: 'validate a typed message from stdin: validate [--on-receipt]',
  resolve: 'symbol table: resolve ID | set ID VALUE | --reverse VALUE | list | delete ID',
  capsule: 'context capsules: capsule write|hydrate|deps|show|list',
  brief: 'delta briefs: brief build --task --spec --symbols --capsules --invariants | gsd PLAN-ID | unit ID|--reverse TEXT|--list',
  blackboard: 'shared facts: blackboard set|get|list|delete',
  ledger: 'token ledger: ledger log|baseline|delta|report',
  gate: 'gate adapter: gate to-message --report PATH --from ID --msg-id ID',
  import: 'adopt a GSD project: import gsd [--from DIR] (units, STATE facts, symbols, capsules, task list; idempotent, prunes)',
  bench: 'measure v1 vs lean vs v2 brief tokens and recall on GSD trees: bench gsd DIR [--json] [--emit-briefs OUT] [--record]',
  claim: 'team ledger claims: claim claim --surfaces GLOBS --task REF | list | release (collision gate)',
  haid: 'HAID identities: haid spawn CLIENT | register HAID | list | retire HAID | root',
  csp: 'CSP/1 compact protocol: csp parse|format|validate|init|apply|state|to-json|from-json',
  herd: 'agents in the loop: herd checkin|send|inbox|status|team --as name.1@team',
  a2a: 'three-message handshake: a2a announce|dispatch|result|route|peers (JSON on stdin)',
  wire: 'wire stream: wire emit|tail|state|listen|replay|release [--topic T] (Wire JSON on stdin for emit)',
  setup: 'register the MCP server with agent clients: setup claude-code|cursor|vscode|codex... [--dry-run] [--json]',
  studio: 'serve Studio (the dashboard) for this repository: studio [--port N] [--host H]',
  hook: 'claims enforced at the edit: hook claude-pre-tool-use (Claude Code PreToolUse) | pre-commit (git) | check PATH...',
  gsd: 'run a GSD phase: gsd ready | check-wave N | start PLAN | done PLAN --status pass|fail|partial | edit-shared FILE -- CMD',
};
