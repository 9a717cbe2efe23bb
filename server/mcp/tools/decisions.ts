/** append_decision and raise_conflict_pr (core: server/core/decisions). */
import { MAX_SURFACES, appendDecision, raiseConflictPr } from '../../core/index.js';
import { type ToolDef, defineTool } from './types.js';

export const decisionTools: ToolDef[] = [
  defineTool<{ title: string; body: string }>({
    name: 'append_decision',
    description: 'Record a decision others must follow (API shape, library choice, convention). Append-only, attributed to you.',
    input: {
      properties: { title: { type: 'string', minLength: 1 }, body: { type: 'string', minLength: 1, description: 'Markdown' } },
      required: ['title', 'body'],
    },
    output: { properties: { id: { type: 'string' }, at: { type: 'string' }, path: { type: 'string' } } },
    run: (a, { ctx, haid }) => {
      const d = appendDecision(ctx, { haid, title: a.title, body: a.body });
      return { id: d.id, at: d.at, path: d.path };
    },
  }),
  defineTool<{ id: string; title: string; surfaces: string[]; displaced_haid?: string; overriding_intent?: string; displaced_intent?: string }>({
    name: 'raise_conflict_pr',
    description:
      "When you must override another agent's claim or decision, write a conflict PR for review instead of editing over it. Returns its path.",
    input: {
      properties: {
        id: { type: 'string', description: 'Short id, e.g. engine-owner' },
        title: { type: 'string', minLength: 1 },
        surfaces: { type: 'array', items: { type: 'string' }, minItems: 1, maxItems: MAX_SURFACES },
        displaced_haid: { type: 'string', description: 'Default: holders of claims on surfaces' },
        overriding_intent: { type: 'string' },
        displaced_intent: { type: 'string' },
      },
      required: ['id', 'title', 'surfaces'],
    },
    output: {
      properties: {
        id: { type: 'string' },
        path: { type: 'string' },
        decision_id: { type: 'string' },
        displaced: { type: 'array', items: { type: 'object', properties: { haid: { type: 'string' }, task_ref: { type: 'string' } }, required: ['haid'] } },
      },
    },
    run: (a, { ctx, haid }) => {
      const c = raiseConflictPr(ctx, {
        haid,
        id: a.id,
        title: a.title,
        surfaces: a.surfaces,
        displacedHaid: a.displaced_haid,
        overridingIntent: a.overriding_intent,
        displacedIntent: a.displaced_intent,
      });
      return { id: c.id, path: c.path, decision_id: c.decision_id, displaced: c.displaced };
    },
  }),
];
