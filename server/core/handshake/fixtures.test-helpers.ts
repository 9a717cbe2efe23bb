/** Builders shared by the herd and handshake tests: the seed's messages, and an in-memory wire log. */
import type { Appended, ReadResult, WireLog } from '../wire/log.js';
import type { LogRecord, Wire, WireDraft } from '../wire/types.js';
import type { SessionAnnounce, TaskDispatch, TaskResult } from './messages.js';

export function announceMsg(agentId: string, over: { tier?: string; health?: Record<string, string>; active?: number; clean?: boolean; tools?: string[]; version?: string } = {}): SessionAnnounce {
  const health = over.health ?? { context_mode: 'ok', claude_mem: 'ok', trek: 'timeout' };
  return {
    type: 'SESSION_ANNOUNCE',
    protocol_version: over.version ?? '2.0',
    worker: { agent_id: agentId, model: 'claude-sonnet-4-20250514', model_tier: over.tier ?? 'sonnet', context_window: 200000 },
    capabilities: { tools: over.tools ?? ['browser', 'terminal', 'file', 'patch'], mcp_servers: Object.keys(health) },
    mcp_health: health,
    session: { context_id: 'handshake:hermes-switch', active_tasks: over.active ?? 0, repo_state: { branch: 'main', clean: over.clean ?? true }, session_fresh: true },
  };
}

export function dispatchMsg(taskId = 'abc-123', over: Partial<TaskDispatch['task']> & { required_mcp?: string[]; caps?: string[]; deadline?: string; version?: string } = {}): TaskDispatch {
  const { required_mcp, caps, deadline, version, ...task } = over;
  return {
    type: 'TASK_DISPATCH',
    protocol_version: version ?? '2.0',
    task: { task_id: taskId, priority: 'high', reply_schema: 'structured', token_budget: 4000, ...task },
    requirements: { required_mcp: required_mcp ?? ['context_mode'], required_capabilities: caps ?? ['terminal', 'file'] },
    ...(deadline ? { deadline } : {}),
    brief: 'Refactor the auth module. Focus on token refresh logic...',
  };
}

export function resultMsg(taskId = 'abc-123', over: Partial<TaskResult> = {}): TaskResult {
  return {
    type: 'TASK_RESULT',
    protocol_version: '2.0',
    task_id: taskId,
    status: 'done',
    tokens_spent: 3240,
    next_steps: ['Run the full test suite to verify refactor', 'Open PR for review'],
    blocked_reason: null,
    artifacts: { pr: 'https://example.invalid/pull/72', files_changed: ['src/auth/token_refresh.py', 'tests/auth/test_token_refresh.py'] },
    ...over,
  };
}

/**
 * An in-memory WireLog for core tests (the real adapters live in server/stream, which the core may
 * not import): sequence numbers per topic, stream_seq per stream, consensus time from `now`.
 * `failWith` makes every append throw, to test what a check-in does when the log is down.
 */
export function memoryWireLog(now: () => number, opts: { failWith?: string } = {}): WireLog & { records: LogRecord[] } {
  const records: LogRecord[] = [];
  const streamSeq = new Map<string, number>();
  const append = async (topic: string, draft: WireDraft): Promise<Appended> => {
    if (opts.failWith) throw new Error(opts.failWith);
    const seq = draft.stream_seq ?? (streamSeq.get(draft.stream_id) ?? 0) + 1;
    streamSeq.set(draft.stream_id, seq);
    const wire = { ...draft, stream_seq: seq } as Wire;
    const rec: LogRecord = { topic, sequence_number: records.filter((r) => r.topic === topic).length + 1, consensus_timestamp: new Date(now()).toISOString(), body: wire };
    records.push(rec);
    return { topic, sequence_number: rec.sequence_number, consensus_timestamp: rec.consensus_timestamp, wire };
  };
  return {
    kind: 'file',
    location: 'memory',
    records,
    append,
    async appendBatch(topic, wires) {
      const out: Appended[] = [];
      for (const w of wires) out.push(await append(topic, w));
      return out;
    },
    async read(topic, fromSeq, o = {}): Promise<ReadResult> {
      const rs = records.filter((r) => r.topic === topic && r.sequence_number >= fromSeq).slice(0, o.limit ?? Infinity);
      return { records: rs, problems: [], next: (rs.at(-1)?.sequence_number ?? fromSeq - 1) + 1 };
    },
    subscribe() {
      return { stop: async () => {} };
    },
    async topics() {
      return [...new Set(records.map((r) => r.topic))].sort();
    },
    async close() {},
  };
}
