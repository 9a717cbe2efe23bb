/**
 * Adopting a GSD project (issue 8): `heimdall import gsd` writes Heimdall state beside a GSD
 * `.planning/` tree, and `heimdall bench gsd` measures what its executors' briefs cost with and
 * without Heimdall. Transports call these.
 */
export {
  /** Import a GSD tree: symbols, one capsule per SUMMARY, protocol/tasks.json; idempotent. */
  importGsd,
  /** Where the task list lives (protocol/tasks.json). */
  tasksFilePath,
  /** The symbol id prefix of file paths (`F<n>`). */
  PATH_PREFIX,
  type GsdImport,
  type GsdTask,
  type ImportReport,
  type TasksFile,
  type SymbolKind,
} from './importer.js';
export {
  /** v1 (GSD) vs v2 (Heimdall delta brief) tokens per plan, phase and total, on a copy of the tree. */
  benchGsd,
  /** The per-phase table `heimdall bench gsd` prints. */
  formatBench,
  /** What a GSD executor reads for one plan (the v1 text). */
  v1Text,
  /** A plan's objective and tasks alone (the floor). */
  floorText,
  type BenchResult,
  type BenchPlan,
  type BenchPhase,
  type BenchTotals,
  type BenchOptions,
} from './bench.js';
export {
  /** The task spec of one plan as its delta brief carries it. */
  planSpec,
  /** Check a built brief: ids defined, entries true to the table, closure present, named paths reachable. */
  checkCompleteness,
  type PlanSpec,
  type Completeness,
} from './spec.js';
export {
  /** Read a GSD .planning tree into plans, summaries, dependencies, waves and a list of issues. */
  loadGsdProject,
  /** Find the .planning folder of a project folder (or accept the folder itself). */
  resolveGsdDir,
  type GsdProject,
  type GsdPlan,
  type GsdSummary,
  type Issue,
  type IssueKind,
} from './tree.js';
export {
  /** Parse one PLAN.md (frontmatter in any list style, context references, objective, tasks). */
  parsePlan,
  /** Parse one SUMMARY.md (hyphen, underscore and dependency_graph spellings). */
  parseSummary,
  /** Split `---` frontmatter from a Markdown body; invalid YAML falls back to a line reading. */
  splitFrontmatter,
  type ParsedPlan,
  type ParsedSummary,
} from './parse.js';
