/**
 * The wire read model (issue 4) for readers such as the Studio: open the Prisma client, or the
 * ReadModelStore the listener writes through. The tables (prisma/schema.prisma):
 *   wire_events          one row per log record (topic, sequence_number, consensus_timestamp, wire fields, disposition)
 *   stream_state         one row per stream (status, last event, gaps, duplicates, reducer_version, state JSON)
 *   task_run_state       one row per task attempt (status, claimed_by, lease_expires_at, ...; state JSON = TaskRun)
 *   agent_runtime_state  one row per agent (status, units, leases, last_heartbeat_at; state JSON = AgentRun, with profile)
 *   stream_offsets       how far the listener has read each topic
 * Clock-dependent views (stale leases, heartbeat liveness) come from server/core/wire: viewTask,
 * viewAgent, heartbeatStatus.
 */
export { openReadModelDb, defaultSqliteFile, isPostgresUrl, type ReadModelDb, type ReadModelKind, type OpenOptions, type PrismaClient } from './prisma.js';
export { PrismaReadModelStore, dumpReadModel } from './readModel.js';
