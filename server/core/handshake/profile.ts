/**
 * Peer profiles: what the orchestrator knows about each worker, built from its SESSION_ANNOUNCE and
 * replaced by each re-announce (counted, first-seen time kept).
 *
 * Profiles are kept behind `PeerStore`, so where they live is one local decision: the file store
 * (`.planning/handshake/peers.json`, versioned) or the wire read model.
 */
import type { Ctx } from '../context.js';
import { HeimdallError } from '../errors.js';
import type { Audit } from '../planning/fsx.js';
import { dataMap, hasKey, readVersionedMap, updateVersionedMap } from '../planning/state.js';
import type { SessionAnnounce } from './messages.js';

export interface PeerProfile {
  agent_id: string;
  model: string;
  model_tier: string;
  context_window: number;
  protocol_version: string;
  tools: string[];
  mcp_servers: string[];
  /** Every listed server with its health; a server the announce did not report is "unknown". */
  mcp_health: Record<string, string>;
  context_id: string | null;
  active_tasks: number;
  repo_state: { branch: string | null; clean: boolean };
  session_fresh: boolean | null;
  announced_at: string;
  first_announced_at: string;
  announce_count: number;
  /** Who sent the announce (CLI --as / MCP client_identity), when known. */
  announced_by: string | null;
}

/** Build the profile an announce describes. Pure. */
export function buildProfile(a: SessionAnnounce, nowIso: string, previous?: PeerProfile, announcedBy?: string): PeerProfile {
  // Keyed by data: a server named "constructor" or "__proto__" is an ordinary name.
  const health = dataMap<string>();
  for (const s of a.capabilities.mcp_servers) health[s] = hasKey(a.mcp_health, s) ? (a.mcp_health[s] as string) : 'unknown';
  return {
    agent_id: a.worker.agent_id,
    model: a.worker.model,
    model_tier: a.worker.model_tier,
    context_window: a.worker.context_window,
    protocol_version: a.protocol_version,
    tools: [...a.capabilities.tools],
    mcp_servers: [...a.capabilities.mcp_servers],
    mcp_health: health,
    context_id: a.session.context_id ?? null,
    active_tasks: a.session.active_tasks,
    repo_state: { branch: a.session.repo_state.branch ?? null, clean: a.session.repo_state.clean },
    session_fresh: a.session.session_fresh ?? null,
    announced_at: nowIso,
    first_announced_at: previous?.first_announced_at ?? nowIso,
    announce_count: (previous?.announce_count ?? 0) + 1,
    announced_by: announcedBy ?? null,
  };
}

export interface PeerStore {
  list(): Promise<PeerProfile[]>;
  get(agentId: string): Promise<PeerProfile | undefined>;
  /** Read-modify-write one profile atomically. */
  /** `audit` gives the protocol.log line of the change, committed with it. */
  upsert(agentId: string, make: (previous: PeerProfile | undefined) => PeerProfile, audit?: (p: PeerProfile) => Audit): Promise<PeerProfile>;
}

const strList = (v: unknown) => Array.isArray(v) && v.every((x) => typeof x === 'string');

export function isPeerProfile(v: unknown): v is PeerProfile {
  const p = v as PeerProfile;
  return (
    typeof p === 'object' &&
    p !== null &&
    typeof p.agent_id === 'string' &&
    typeof p.model === 'string' &&
    typeof p.model_tier === 'string' &&
    Number.isInteger(p.context_window) &&
    typeof p.protocol_version === 'string' &&
    strList(p.tools) &&
    strList(p.mcp_servers) &&
    typeof p.mcp_health === 'object' &&
    p.mcp_health !== null &&
    Object.values(p.mcp_health).every((h) => typeof h === 'string') &&
    Number.isInteger(p.active_tasks) &&
    p.active_tasks >= 0 &&
    typeof p.repo_state === 'object' &&
    p.repo_state !== null &&
    typeof p.repo_state.clean === 'boolean' &&
    typeof p.announced_at === 'string' &&
    Number.isInteger(p.announce_count)
  );
}

const PROFILE_SHAPE = 'a peer profile {"agent_id", "model", "model_tier", "context_window", "protocol_version", "tools", "mcp_servers", "mcp_health", "active_tasks", "repo_state": {"clean"}, "announced_at", "announce_count", ...}';

export function handshakeDir(ctx: Ctx): string {
  return ctx.paths.handshakeDir;
}

/** Profiles in `.planning/handshake/peers.json`: {"version", "peers": {agent_id: profile}}. */
export function filePeerStore(ctx: Ctx): PeerStore {
  const file = ctx.paths.handshakePeers;
  const read = () => {
    const map = readVersionedMap(file, 'peers', isPeerProfile, PROFILE_SHAPE);
    for (const [k, v] of Object.entries(map)) {
      if (k !== v.agent_id) throw new HeimdallError('environment', `${file}: key ${JSON.stringify(k)} differs from its profile's agent_id ${JSON.stringify(v.agent_id)}; the file was left untouched`);
    }
    return map;
  };
  return {
    async list() {
      return Object.values(read()).sort((a, b) => a.agent_id.localeCompare(b.agent_id));
    },
    async get(id) {
      return read()[id];
    },
    async upsert(id, make, audit) {
      return updateVersionedMap(
        file,
        'peers',
        isPeerProfile,
        PROFILE_SHAPE,
        (map) => {
          const p = make(map[id]);
          map[id] = p;
          return p;
        },
        { audit },
      );
    },
  };
}
