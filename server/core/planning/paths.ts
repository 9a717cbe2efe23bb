/**
 * The `.planning/` layout, exactly as heimdall-core-spec §H-4 draws it, plus every folder later
 * mechanisms add: the team ledger (ledger/), herd (herd/), the handshake (handshake/), CSP state
 * (csp/), measured runs (protocol/runs/) and the wire log (wire/). This is the one place a path
 * inside the tree is spelled; core modules take theirs from `ctx.paths` (files named by an id, such
 * as a capsule or a run, are joined to their folder here named).
 *
 * Where the tree is: found the way git finds `.git` (see `locatePlanningTree`).
 */
import fs from 'node:fs';
import path from 'node:path';

export interface PlanningPaths {
  root: string;
  protocolLog: string;
  blackboard: string;
  // protocol/: the H-4 mechanisms
  protocolDir: string;
  symbols: string;
  messageSchema: string;
  baselines: string;
  ledger: string;
  capsulesDir: string;
  /** protocol/runs/<run>.json: one record per measured run (demo, GSD bench). */
  runsDir: string;
  /** protocol/tasks.json: the task list an adopted GSD project imports. */
  gsdTasks: string;
  /** protocol/results/<plan>.a<attempt>.json: the typed task_result `heimdall gsd done` recorded for each attempt. */
  taskResultsDir: string;
  // ledger/: the team ledger
  teamLedgerDir: string;
  haids: string;
  claims: string;
  decisions: string;
  completedDir: string;
  conflictsDir: string;
  // herd/: check-ins, mailbox, tiers
  herdDir: string;
  herdAgents: string;
  herdMailbox: string;
  /** The lock target shared by agents.json and mailbox.jsonl (`state.lock` on disk). */
  herdLock: string;
  herdTeam: string;
  // handshake/: peers, dispatched tasks, routing
  handshakeDir: string;
  handshakePeers: string;
  handshakeTasks: string;
  handshakeRouting: string;
  // csp/: CSP/1 checkpoints and patches
  cspDir: string;
  cspIndex: string;
  cspCheckpointsDir: string;
  cspPatchesDir: string;
  // wire/: the file wire log (one JSONL per topic) and the SQLite read model
  wireDir: string;
}

export function planningPaths(root: string): PlanningPaths {
  const protocolDir = path.join(root, 'protocol');
  const teamLedgerDir = path.join(root, 'ledger');
  const herdDir = path.join(root, 'herd');
  const handshakeDir = path.join(root, 'handshake');
  const cspDir = path.join(root, 'csp');
  return {
    root,
    protocolLog: path.join(root, 'protocol.log'),
    blackboard: path.join(root, 'blackboard.json'),
    protocolDir,
    symbols: path.join(protocolDir, 'symbols.json'),
    messageSchema: path.join(protocolDir, 'message-schema.json'),
    baselines: path.join(protocolDir, 'baselines.json'),
    ledger: path.join(protocolDir, 'ledger.jsonl'),
    capsulesDir: path.join(protocolDir, 'capsules'),
    runsDir: path.join(protocolDir, 'runs'),
    gsdTasks: path.join(protocolDir, 'tasks.json'),
    taskResultsDir: path.join(protocolDir, 'results'),
    teamLedgerDir,
    haids: path.join(teamLedgerDir, 'haids.json'),
    claims: path.join(teamLedgerDir, 'claims.json'),
    decisions: path.join(teamLedgerDir, 'decisions.md'),
    completedDir: path.join(teamLedgerDir, 'completed'),
    conflictsDir: path.join(teamLedgerDir, 'conflicts'),
    herdDir,
    herdAgents: path.join(herdDir, 'agents.json'),
    herdMailbox: path.join(herdDir, 'mailbox.jsonl'),
    herdLock: path.join(herdDir, 'state'),
    herdTeam: path.join(herdDir, 'team.json'),
    handshakeDir,
    handshakePeers: path.join(handshakeDir, 'peers.json'),
    handshakeTasks: path.join(handshakeDir, 'tasks.json'),
    handshakeRouting: path.join(handshakeDir, 'routing.json'),
    cspDir,
    cspIndex: path.join(cspDir, 'index.json'),
    cspCheckpointsDir: path.join(cspDir, 'checkpoints'),
    cspPatchesDir: path.join(cspDir, 'patches'),
    wireDir: path.join(root, 'wire'),
  };
}

/** The folder name the walk looks for. */
export const PLANNING_DIR_NAME = '.planning';
export const PLANNING_DIR_ENV = 'HEIMDALL_PLANNING_DIR';
/** Colon-separated absolute folders the walk does not climb into (as GIT_CEILING_DIRECTORIES). */
export const CEILING_ENV = 'HEIMDALL_CEILING_DIRECTORIES';

export interface PlanningLocation {
  /** The planning root: the tree found, or where `heimdall init` would create one. */
  root: string;
  /** True when `root` is an existing directory. */
  exists: boolean;
  /** `env`: HEIMDALL_PLANNING_DIR; `found`: a `.planning/` in the working directory or above it; `none`: nothing found. */
  source: 'env' | 'found' | 'none';
  /** The working directory the walk started from. */
  cwd: string;
}

function isDir(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/**
 * Where the planning tree is, found like git finds `.git`: HEIMDALL_PLANNING_DIR when set
 * (relative to `cwd`), else the first `.planning/` directory in `cwd` or one of its parents
 * (stopping below any folder of HEIMDALL_CEILING_DIRECTORIES), else none: `root` is then
 * `cwd/.planning`, where `heimdall init` creates it. Nothing is created here.
 */
export function locatePlanningTree(env: Record<string, string | undefined>, cwd: string): PlanningLocation {
  const override = env[PLANNING_DIR_ENV];
  if (override !== undefined && override.trim() !== '') {
    const root = path.resolve(cwd, override.trim());
    return { root, exists: isDir(root), source: 'env', cwd };
  }
  const start = path.resolve(cwd);
  const ceilings = new Set(
    (env[CEILING_ENV] ?? '')
      .split(':')
      .map((s) => s.trim())
      .filter((s) => path.isAbsolute(s))
      .map((s) => path.resolve(s)),
  );
  for (let dir = start; ; ) {
    const candidate = path.join(dir, PLANNING_DIR_NAME);
    if (isDir(candidate)) return { root: candidate, exists: true, source: 'found', cwd: start };
    const parent = path.dirname(dir);
    if (parent === dir || ceilings.has(parent)) break;
    dir = parent;
  }
  return { root: path.join(start, PLANNING_DIR_NAME), exists: false, source: 'none', cwd: start };
}

/** Why there is no tree, and how to make one: the message every command but `init` gives (exit 2). */
export function noTreeMessage(loc: PlanningLocation): string {
  if (loc.source === 'env') {
    return `no planning tree at ${loc.root} (${PLANNING_DIR_ENV}): create it with \`heimdall init\`, or point ${PLANNING_DIR_ENV} at an existing tree`;
  }
  return `no planning tree: there is no ${PLANNING_DIR_NAME}/ in ${loc.cwd} or any folder above it. Create one with \`heimdall init\` at the root of your repository (or set ${PLANNING_DIR_ENV} to an existing tree)`;
}
