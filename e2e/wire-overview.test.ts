/**
 * The dashboard reads of the wire (core/wire/overview.ts) on the default adapters: a JSONL file log
 * and a SQLite read model in a temporary planning tree.
 */
import { describe, expect, it } from 'vitest';
import { emitWire } from '../server/core/wire/producer.js';
import { MAX_STREAM_EVENTS, readStreamEvents, wireOverview } from '../server/core/wire/overview.js';
import { createRuntime } from '../server/runtime.js';
import { tmpCtx } from '../server/testing/fixtures.js';

describe('wire overview', () => {
  it('catches the read model up, then shows streams, tasks and agents; one stream reads back its own records', async () => {
    const ctx = tmpCtx(new Date().toISOString());
    const runtime = createRuntime({ ctx });
    const log = await runtime.wireLog();
    const store = await runtime.readModel();
    try {
      await emitWire(ctx, log, { wire: '1.1', stream_id: 'task:R1:attempt:1', type: 'task.available', sender: 'system', payload: { task_id: 'R1', attempt: 1, role: 'developer' } } as never);
      await emitWire(ctx, log, { wire: '1.1', stream_id: 'task:R2:attempt:1', type: 'task.available', sender: 'system', payload: { task_id: 'R2', attempt: 1, role: 'developer' } } as never);
      await emitWire(ctx, log, { wire: '1.1', stream_id: 'agent:quinn-07', type: 'agent.heartbeat', sender: 'agent:quinn-07', payload: {} } as never);
      const o = await wireOverview(ctx, log, store);
      expect(o.tasks.map((t) => [t.task_id, t.status])).toEqual([
        ['R1', 'available'],
        ['R2', 'available'],
      ]);
      expect(o.agents.map((a) => a.agent_id)).toEqual(['quinn-07']);
      expect(o.streams.map((s) => s.stream_id).sort()).toEqual(['agent:quinn-07', 'task:R1:attempt:1', 'task:R2:attempt:1']);
      expect(o.problems).toEqual([]);
      const topic = o.offsets[0]?.topic as string;
      const r1 = await readStreamEvents(log, topic, 'task:R1:attempt:1');
      expect(r1.total).toBe(1);
      expect((r1.events[0]?.body as { type: string }).type).toBe('task.available');
      const capped = await readStreamEvents(log, topic, 'task:R2:attempt:1', 0);
      expect(capped).toEqual({ events: [], total: 1 });
      expect(MAX_STREAM_EVENTS).toBeGreaterThan(0);
    } finally {
      await runtime.close();
    }
  });
});
