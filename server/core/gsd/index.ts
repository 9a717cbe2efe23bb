/**
 * Adopting a GSD project (issues 8 and 11): `heimdall import gsd` writes Heimdall state beside a GSD
 * `.planning/` tree (units, STATE facts, symbols, capsules, the task list), `heimdall brief gsd`
 * prints the brief an orchestrator sends one plan's executor, and `heimdall bench gsd` measures
 * what GSD, a careful person and Heimdall send, with what each leaves out. Transports call these.
 */
export {
  /** Import a GSD tree: units, STATE facts, symbols, one capsule per SUMMARY, protocol/tasks.json; idempotent, prunes what the tree dropped. */
  importGsd,
  /** Rebuild the brief model of the tree imported into a planning root (for briefs after an import). */
  loadGsdModel,
  /** Read protocol/tasks.json (undefined before the first import). */
  readTasksFile,
  /** Where the task list lives (protocol/tasks.json). */
  tasksFilePath,
  /** A plan's write set: files_modified plus its tasks' files, normalised. */
  writeSet,
  /** The symbol id prefix of file paths (`F<n>`). */
  PATH_PREFIX,
  type GsdImport,
  type GsdTask,
  type ImportReport,
  type TasksFile,
  type SymbolKind,
} from './importer.js';
export {
  /** The v2 brief of one imported plan: text, tokens, units, reads (what the bench counts). */
  gsdBrief,
  /** Build a brief (or an ablation of it) from a model, without token counts. */
  buildGsdBrief,
  /** Token counts and listings of a built brief. */
  describeBrief,
  /** Find a plan by id (`02-02`, `2-2`, `03-05b`, `quick-001`) or PLAN file path. */
  findPlan,
  ALL_MECHANISMS,
  type GsdBrief,
  type GsdModel,
  type BuiltBrief,
  type BriefMechanisms,
  type BriefRead,
} from './brief.js';
export {
  /** v1 vs lean vs v2 tokens per plan, phase, tree and total, with recall, ablation and the results side. */
  benchGsd,
  /** The table `heimdall bench gsd` prints. */
  formatBench,
  /** The GSD trees of a folder (itself, or its children). */
  findTrees,
  ARM_DESCRIPTIONS,
  type BenchResult,
  type BenchPlan,
  type BenchPhase,
  type BenchTree,
  type BenchTotals,
  type BenchOptions,
  type AblationRow,
} from './bench.js';
export {
  /** What GSD sends for a plan (the v1 arm). */
  v1Text,
  /** What a careful person sends without Heimdall (the lean arm). */
  leanText,
  /** A plan's objective and tasks alone (the floor). */
  floorText,
} from './arms.js';
export {
  /** The recall items of a plan: its lines, the units it cites, the documents it reads. */
  recallItems,
  /** Check a text against recall items (v2 ids resolved first). */
  checkRecall,
  /** A v2 brief with its ids replaced by their values. */
  resolveBrief,
  type RecallItem,
  type RecallResult,
} from './recall.js';
export {
  /** Everything a plan references, resolved to units, capsules, reads and project files. */
  analysePlan,
  type PlanAnalysis,
  type RefResolution,
  type CitedUnit,
} from './cite.js';
export {
  /** Split a GSD tree's documents into addressable units. */
  projectUnits,
  /** The unit id prefix of a planning file (`phases/02-x/02-CONTEXT.md` -> `02-CONTEXT`). */
  fileKey,
  type UnitIndex,
  type PlacedUnit,
} from './units.js';
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
  type PlanFileEntry,
} from './tree.js';
export {
  /** Parse one PLAN.md (frontmatter in any list style, reads, objective, tasks). */
  parsePlan,
  /** Parse one SUMMARY.md (hyphen, underscore and dependency_graph spellings). */
  parseSummary,
  /** Split `---` frontmatter from a Markdown body; invalid YAML is read key by key, nothing guessed. */
  splitFrontmatter,
  type ParsedPlan,
  type ParsedSummary,
  type PlanRead,
} from './parse.js';
