/**
 * The tool registry of heimdall-ledger-mcp. To add tools: write `tools/<concept>.ts` exporting a
 * `ToolDef[]` built with `defineTool` (one core call per tool), then add one line below. Names must
 * be unique; the server refuses to start otherwise.
 */
import { capsuleTools } from './capsules.js';
import { claimTools } from './claims.js';
import { decisionTools } from './decisions.js';
import { a2aTools } from './a2a.js';
import { herdTools } from './herd.js';
import { gsdTools } from './gsd.js';
import type { ToolDef } from './types.js';

/** The six team-ledger tools of heimdall-team-spec §T-4 (their shape is the public 1.0.0 contract). */
export const LEDGER_TOOLS: ToolDef[] = [...claimTools, ...capsuleTools, ...decisionTools];

/** Everything the server serves: the ledger tools, then other concepts (one line each). */
export const ALL_TOOLS: ToolDef[] = [
  ...LEDGER_TOOLS,
  ...herdTools,
  ...a2aTools,
  ...gsdTools,
];

export { defineTool, type ToolDef, type ToolContext, type JsonSchema, type ObjectSchema } from './types.js';
