-- CreateTable
CREATE TABLE "wire_events" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "topic" TEXT NOT NULL,
    "sequence_number" BIGINT NOT NULL,
    "consensus_timestamp" TEXT NOT NULL,
    "wire_version" TEXT NOT NULL,
    "wire_id" TEXT NOT NULL,
    "stream_id" TEXT NOT NULL,
    "stream_seq" INTEGER,
    "correlation_id" TEXT,
    "causation_id" TEXT,
    "type" TEXT NOT NULL,
    "sender" TEXT NOT NULL,
    "ts" TEXT NOT NULL,
    "payload" JSONB NOT NULL,
    "disposition" TEXT NOT NULL,
    "reason" TEXT,
    "received_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateTable
CREATE TABLE "stream_state" (
    "stream_id" TEXT NOT NULL PRIMARY KEY,
    "topic" TEXT NOT NULL,
    "stream_type" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "last_wire_id" TEXT NOT NULL,
    "last_event_type" TEXT NOT NULL,
    "last_event_at" DATETIME NOT NULL,
    "last_stream_seq" INTEGER,
    "correlation_id" TEXT,
    "event_count" INTEGER NOT NULL,
    "gap_count" INTEGER NOT NULL,
    "duplicate_count" INTEGER NOT NULL,
    "reducer_version" INTEGER NOT NULL,
    "state" JSONB NOT NULL
);

-- CreateTable
CREATE TABLE "task_run_state" (
    "stream_id" TEXT NOT NULL PRIMARY KEY,
    "task_id" TEXT NOT NULL,
    "attempt" INTEGER NOT NULL,
    "role" TEXT,
    "status" TEXT NOT NULL,
    "claimed_by" TEXT,
    "claim_sequence" BIGINT,
    "lease_expires_at" DATETIME,
    "last_heartbeat_at" DATETIME,
    "plan_ref" TEXT,
    "blocker" TEXT,
    "output_ref" TEXT,
    "verification_status" TEXT,
    "capacity_units" INTEGER NOT NULL,
    "capacity_units_reserved" INTEGER,
    "available_since" DATETIME,
    "state" JSONB NOT NULL
);

-- CreateTable
CREATE TABLE "agent_runtime_state" (
    "agent_id" TEXT NOT NULL PRIMARY KEY,
    "role" TEXT,
    "status" TEXT NOT NULL,
    "available_units" INTEGER,
    "max_units" INTEGER,
    "reserved_units" INTEGER NOT NULL,
    "active_leases" INTEGER NOT NULL,
    "last_heartbeat_at" DATETIME,
    "state" JSONB NOT NULL
);

-- CreateTable
CREATE TABLE "stream_offsets" (
    "topic" TEXT NOT NULL PRIMARY KEY,
    "last_sequence_number" BIGINT NOT NULL,
    "reducer_version" INTEGER NOT NULL,
    "updated_at" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "read_model_meta" (
    "key" TEXT NOT NULL PRIMARY KEY,
    "value" TEXT NOT NULL
);

-- CreateIndex
CREATE INDEX "wire_events_wire_id_idx" ON "wire_events"("wire_id");

-- CreateIndex
CREATE INDEX "wire_events_stream_id_stream_seq_idx" ON "wire_events"("stream_id", "stream_seq");

-- CreateIndex
CREATE UNIQUE INDEX "wire_events_topic_sequence_number_key" ON "wire_events"("topic", "sequence_number");

-- CreateIndex
CREATE INDEX "task_run_state_task_id_idx" ON "task_run_state"("task_id");

-- CreateIndex
CREATE INDEX "task_run_state_claimed_by_idx" ON "task_run_state"("claimed_by");

-- CreateIndex
CREATE INDEX "task_run_state_status_idx" ON "task_run_state"("status");

