/**
 * A deterministic, realistic coordination history for tests and the benchmark: a project graph with
 * contract and completion dependencies, role pools racing for tasks, leases, heartbeats, capacity
 * updates, blocked tasks and a sprinkling of duplicates. `scenario(n)` returns about n wires.
 */
import type { WireDraft } from '../../core/index.js';
import { mulberry32 } from '../../testing/prng.js';

const prng = mulberry32;

export interface ScenarioOptions {
  seed?: number;
  agents?: number;
  /** Prefix for ids, so two scenarios can share a log. */
  prefix?: string;
}

export function scenario(n: number, opts: ScenarioOptions = {}): WireDraft[] {
  const rnd = prng(opts.seed ?? 42);
  const pick = <T>(xs: T[]): T => xs[Math.floor(rnd() * xs.length)] as T;
  const pre = opts.prefix ?? '';
  const agents = Array.from({ length: opts.agents ?? 12 }, (_, i) => `${pre}dev-${i}`);
  const out: WireDraft[] = [];
  let clock = Date.parse('2026-05-01T16:00:00Z');
  let ids = 0;
  const ts = () => new Date((clock += 250)).toISOString().replace(/\.\d{3}Z$/, 'Z');
  const push = (type: string, stream_id: string, sender: string, payload: object) => {
    out.push({ wire: '1.1', wire_id: `${pre}w${++ids}`, stream_id, correlation_id: `project:${pre}kv`, type, sender, ts: ts(), payload } as WireDraft);
  };
  for (const a of agents) {
    push('agent.started', `agent:${a}`, `agent:${a}`, { role: 'developer', max_units: 4, available_units: 4, skills: ['typescript'] });
  }
  push('project.created', `project:${pre}kv`, 'system', { project_id: `${pre}kv`, name: 'knowledge vault' });
  let t = 0;
  while (out.length < n) {
    t++;
    const id = `${pre}T${t}`;
    const stream = `task:${id}:attempt:1`;
    if (t > 1 && rnd() < 0.3) {
      push('dependency.created', `project:${pre}kv`, 'system', { task_id: id, depends_on_task: `${pre}T${t - 1}`, ...(rnd() < 0.5 ? { contract: 'api' } : {}) });
    }
    push('task.available', stream, 'system', { task_id: id, role: 'developer', capacity_units: 1 + Math.floor(rnd() * 2) });
    const racers = 1 + Math.floor(rnd() * 3);
    const claimants = Array.from({ length: racers }, () => pick(agents));
    for (const a of claimants) {
      push('task.claimed', stream, `agent:${a}`, { task_id: id, role: 'developer', lease_expires_at: new Date(clock + 30 * 60_000).toISOString(), capacity_units_reserved: 1 });
    }
    const owner = claimants[0] as string;
    push('task.started', stream, `agent:${owner}`, { task_id: id });
    push('agent.heartbeat', `agent:${owner}`, `agent:${owner}`, { status: 'working', task_id: id });
    push('task.plan.created', stream, `agent:${owner}`, { task_id: id, plan_ref: `git://plans/${id}.md` });
    if (rnd() < 0.2) push('task.blocked', stream, `agent:${owner}`, { task_id: id, blocker: 'waiting for a schema decision' });
    if (rnd() < 0.5) push('contract.ready', stream, `agent:${owner}`, { task_id: id, contract: 'api' });
    if (rnd() < 0.3) push('artifact.ready', stream, `agent:${owner}`, { task_id: id, artifact_type: 'migration', artifact_ref: `git://repo/db/${id}.sql`, sha256: 'ab'.repeat(32) });
    if (rnd() < 0.1) push('review.concern', stream, `agent:${pick(agents)}`, { task_id: id, concern: 'index missing on expert_id', severity: 'major' });
    if (rnd() < 0.1) out.push({ ...(out[out.length - 1] as WireDraft) }); // a re-sent wire: same wire_id
    if (rnd() < 0.3) push('agent.capacity.updated', `agent:${owner}`, `agent:${owner}`, { available_units: Math.floor(rnd() * 4), max_units: 4 });
    if (rnd() < 0.85) push('task.complete', stream, `agent:${owner}`, { task_id: id, output_ref: `git://repo@${t}`, verification_status: 'passed' });
    else if (rnd() < 0.5) push('agent.lease.released', `agent:${owner}`, `agent:${owner}`, { task_id: id, reason: 'out of budget' });
  }
  return out.slice(0, n);
}
