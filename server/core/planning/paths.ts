/**
 * The `.planning/` layout, exactly as heimdall-core-spec §H-4 draws it, plus the folders later
 * mechanisms add (ledger/ for the team ledger, wire/ for the stream log).
 */
import path from 'node:path';

export interface PlanningPaths {
  root: string;
  protocolLog: string;
  blackboard: string;
  protocolDir: string;
  symbols: string;
  messageSchema: string;
  baselines: string;
  ledger: string;
  capsulesDir: string;
  teamLedgerDir: string;
  wireDir: string;
}

export function planningPaths(root: string): PlanningPaths {
  const protocolDir = path.join(root, 'protocol');
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
    teamLedgerDir: path.join(root, 'ledger'),
    wireDir: path.join(root, 'wire'),
  };
}

/** HEIMDALL_PLANNING_DIR overrides the root; otherwise `.planning` under the working directory. */
export function resolvePlanningRoot(env: Record<string, string | undefined>, cwd: string): string {
  const override = env.HEIMDALL_PLANNING_DIR;
  if (override && override.trim() !== '') return path.resolve(cwd, override);
  return path.join(cwd, '.planning');
}
