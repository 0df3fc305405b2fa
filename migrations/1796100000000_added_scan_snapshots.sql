-- Up Migration
--
-- The fleet snapshot of each succeeded scan, gzip-compressed JSON (libs/domain FleetSnapshot): what
-- `forecast whatif --database-url`, `forecast headroom --database-url` and POST /v1/forecasts/whatif run
-- on (the latest succeeded scan that has one). Written in the same transaction as the scan's findings
-- (ScanRepository.complete). A snapshot holds no credentials (scan configs and secrets are never in it).
-- Append-only: never edit once released (STYLE.md D.14).

CREATE TABLE scan_snapshots (
  scan_id    uuid PRIMARY KEY REFERENCES scans (id) ON DELETE CASCADE,
  encoding   text NOT NULL DEFAULT 'gzip+json' CHECK (encoding = 'gzip+json'),
  snapshot   bytea NOT NULL,
  bytes_raw  bigint NOT NULL CHECK (bytes_raw >= 0)
);

-- History of quota series across scans by observation time (forecast trends): the scans' start times.
CREATE INDEX scans_succeeded_started_idx ON scans (started_at) WHERE status = 'succeeded';

-- Down Migration
DROP INDEX scans_succeeded_started_idx;
DROP TABLE scan_snapshots;
