/** read_capsules (core: server/core/decisions/capsules.ts, which reuses the capsules mechanism). */
import { readLedgerCapsules } from '../../core/index.js';
import { type ToolDef, defineTool } from './types.js';

export const capsuleTools: ToolDef[] = [
  defineTool<{ id?: string }>({
    name: 'read_capsules',
    description: 'Read short summaries of finished work instead of re-reading code or history. Without id, all of them.',
    input: { properties: { id: { type: 'string', description: 'One capsule id' } } },
    output: {
      properties: {
        capsules: {
          type: 'array',
          items: {
            type: 'object',
            properties: { id: { type: 'string' }, source: { type: 'string', enum: ['completed', 'protocol'] }, text: { type: 'string' } },
            required: ['id', 'source', 'text'],
          },
        },
        count: { type: 'integer' },
      },
    },
    run: (a, { ctx }) => readLedgerCapsules(ctx, a.id) as unknown as Record<string, unknown>,
  }),
];
