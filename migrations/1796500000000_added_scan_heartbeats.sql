-- Up Migration
--
-- Lease of a running scan (issue 14 "no scan left running"): the process that runs an offline or
-- live scan renews `heartbeat_at` every few seconds; a reaper in the API and in the worker marks a
-- running scan whose heartbeat is older than the lease as failed ("interrupted: ..."), so a scan
-- whose owner was SIGKILLed or lost its database connection never stays `running` forever.
-- NULL for scans that are not leased this way (distributed scans: their jobs have BullMQ's own
-- stalled-job handling and the client's verdict, libs/queue) and for scans created before.
-- Append-only: never edit once released (STYLE.md D.14).

ALTER TABLE scans ADD COLUMN heartbeat_at timestamptz;
CREATE INDEX scans_running_heartbeat_idx ON scans (heartbeat_at) WHERE status = 'running';

-- Down Migration
DROP INDEX scans_running_heartbeat_idx;
ALTER TABLE scans DROP COLUMN heartbeat_at;
