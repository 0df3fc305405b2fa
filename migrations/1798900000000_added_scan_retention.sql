-- Up Migration
--
-- Retention (issue 22 item 1): scans are thinned by age (libs/store retention.policy.ts): every scan for the
-- raw window, then the last scan of each UTC day, then of each ISO week. A scan that is not kept whole but
-- is still inside the quota-sample window is *pruned*: its findings, targets, snapshot and fleet graph are
-- deleted and its row and quota samples stay, so `forecast trends` reads the same samples as before.
--   scans.pruned_at: when retention pruned the scan (NULL: whole).
--   finding_fingerprints first/last_scan_id: the first and last sighting keep their times; the scan they
--     name may since have been removed by retention, so they no longer reference scans (nothing joins them).
--   retention_removed: rows removed by retention per table (and runs per kind), the counters /metrics
--     exports; kept in PostgreSQL because the workers run retention and the API serves /metrics.
-- Not partitioned: the policy keeps one scan per day or week inside every time range, so no partition
-- ever becomes wholly deletable; see README "Retention".
-- Append-only: never edit once released (STYLE.md D.14).

ALTER TABLE scans ADD COLUMN pruned_at timestamptz;

ALTER TABLE finding_fingerprints DROP CONSTRAINT IF EXISTS finding_fingerprints_first_scan_id_fkey;
ALTER TABLE finding_fingerprints DROP CONSTRAINT IF EXISTS finding_fingerprints_last_scan_id_fkey;

CREATE TABLE retention_removed (
  -- a table name (rows removed) or `run:scans_deleted`, `run:scans_pruned`, `run:runs`
  kind        text PRIMARY KEY,
  removed     bigint NOT NULL DEFAULT 0 CHECK (removed >= 0),
  last_run_at timestamptz NOT NULL
);

-- Down Migration
DROP TABLE retention_removed;
ALTER TABLE scans DROP COLUMN pruned_at;
