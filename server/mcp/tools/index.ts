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
import type { ToolDef } from './types.js';

export const LEDGER_TOOLS: ToolDef[] = [
  ...claimTools,
  ...capsuleTools,
  ...decisionTools,
  // --- other concepts register below this line (one line each)
  ...herdTools, ...a2aTools,
];

export { defineTool, type ToolDef, type ToolContext, type JsonSchema, type ObjectSchema } from './types.js';
