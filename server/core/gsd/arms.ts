/**
 * The texts the bench compares for one plan, besides Heimdall's v2 brief (brief.ts):
 *  - v1, what GSD sends: the PLAN.md as it is on disk plus every `@.planning/...` file its
 *    `<context>` names (globs expanded, each file once; files outside .planning and GSD's own
 *    workflow files are not counted on any arm, so v1 is a lower bound);
 *  - lean, what a careful person would send without Heimdall: the PLAN.md plus the whole files
 *    named in its `<read_first>` steps or holding a unit its text cites by id (the phase CONTEXT.md
 *    of a `D-07`, REQUIREMENTS.md of an `FR-3`);
 *  - the floor: the plan's own objective and tasks, below which no brief can go without dropping
 *    the work itself.
 */
import fs from 'node:fs';
import { readTextFile } from '../planning/fsx.js';
import path from 'node:path';
import type { PlanAnalysis } from './cite.js';
import { type GsdPlan, type GsdProject, contextFiles } from './tree.js';
import type { UnitIndex } from './units.js';

/** What a GSD executor reads for a plan: the plan, then each context file of .planning. */
export function v1Text(planningDir: string, plan: GsdPlan): { text: string; files: string[]; missing: string[] } {
  const parts = [plan.raw];
  const missing: string[] = [];
  const files: string[] = [];
  for (const c of contextFiles({ planningDir }, plan.contextRefs)) {
    if (!c.exists) {
      missing.push(`.planning/${c.rel}`);
      continue;
    }
    files.push(c.rel);
    parts.push(`=== .planning/${c.rel} ===\n${readTextFile(c.abs) ?? ''}`);
  }
  return { text: parts.join('\n\n'), files, missing };
}

/** The lean arm (see the module comment): plan, read_first documents, documents holding ids it cites. */
export function leanText(project: GsdProject, index: UnitIndex, analysis: PlanAnalysis): { text: string; files: string[] } {
  const files: string[] = [];
  const add = (rel: string | undefined) => {
    if (rel && !files.includes(rel)) files.push(rel);
  };
  for (const r of analysis.refs) if (r.via === 'read_first' && r.rel && r.resolution !== 'missing') add(r.rel);
  for (const c of analysis.units) if (c.how.includes('id')) add(index.byId.get(c.id)?.file);
  const parts = [analysis.plan.raw];
  for (const rel of files) {
    let text: string | undefined;
    try {
      text = readTextFile(path.join(project.planningDir, rel)) ?? index.files.get(rel);
    } catch {
      text = index.files.get(rel);
    }
    if (text !== undefined) parts.push(`=== .planning/${rel} ===\n${text}`);
  }
  return { text: parts.join('\n\n'), files };
}

/** The plan's own objective and tasks; the whole body when it has neither. */
export function floorText(plan: GsdPlan): string {
  const pp = plan.parsed;
  const parts = [pp.objective, pp.tasks].filter((x): x is string => !!x && x.trim() !== '');
  return parts.length ? parts.join('\n\n') : pp.frontmatter.body;
}
