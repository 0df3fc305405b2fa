-- Up Migration
--
-- When the scan's processing began by the database clock (issue 21 item 9). `started_at` is the
-- observation time of the findings, which a backfill sets in the past (`scan --now 2026-11-01T00:00:00Z`);
-- durations measured from it read as the time since the observation (12.5 h for a backfill), not the
-- processing time. Processing durations are `finished_at - processing_started_at`. Scans stored before
-- this migration have no value; their duration falls back to `finished_at - started_at`.
-- Append-only: never edit once released (STYLE.md D.14).

ALTER TABLE scans ADD COLUMN processing_started_at timestamptz;
-- New rows: the database clock at creation (existing rows keep NULL: their start is unknown).
ALTER TABLE scans ALTER COLUMN processing_started_at SET DEFAULT now();

-- Down Migration

ALTER TABLE scans DROP COLUMN processing_started_at;
