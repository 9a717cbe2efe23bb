/**
 * reply_schema enforcement: the dispatch says what shape the result must have, and a result that
 * does not have it is refused (nothing recorded) with what was expected.
 *
 *   prose       a non-empty `summary`
 *   structured  `artifacts` (object) and `next_steps` (list), so nothing has to be parsed out of prose
 *   json        an `output` value; when the dispatch gives `output_schema`, output must validate
 *
 * Applies to results that deliver something (done, partial); blocked and error results carry their
 * own required fields (blocked_reason, error_summary) checked by the TASK_RESULT schema.
 */
import type { ValidationError, ValidationResult } from '../messages/ajv.js';
import { type TaskDispatch, type TaskResult, compileOutputSchema } from './messages.js';

export function checkReply(d: TaskDispatch, r: TaskResult): ValidationResult {
  if (r.status === 'blocked' || r.status === 'error') return { valid: true, errors: [] };
  const errors: ValidationError[] = [];
  switch (d.task.reply_schema) {
    case 'prose':
      if (typeof r.summary !== 'string' || r.summary.trim() === '') errors.push({ path: '/summary', message: 'is required by reply_schema "prose" (the result in words)' });
      break;
    case 'structured':
      if (typeof r.artifacts !== 'object' || r.artifacts === null || Array.isArray(r.artifacts)) {
        errors.push({ path: '/artifacts', message: 'is required by reply_schema "structured", e.g. {"pr": "...", "files_changed": ["src/a.ts"]}' });
      }
      if (!Array.isArray(r.next_steps)) errors.push({ path: '/next_steps', message: 'is required by reply_schema "structured" (a list, possibly empty)' });
      break;
    case 'json':
      if (r.output === undefined) errors.push({ path: '/output', message: 'is required by reply_schema "json"' });
      else if (d.task.output_schema) {
        for (const e of compileOutputSchema(d.task.output_schema)(r.output).errors) {
          errors.push({ path: `/output${e.path === '/' ? '' : e.path}`, message: `${e.message} (output_schema of the dispatch)` });
        }
      }
      break;
    default: {
      const never: never = d.task.reply_schema;
      errors.push({ path: '/', message: `unknown reply_schema ${String(never)}` });
    }
  }
  return { valid: errors.length === 0, errors };
}
