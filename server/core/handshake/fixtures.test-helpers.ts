/** Message builders shared by the handshake tests (the seed's examples, with overrides). */
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
