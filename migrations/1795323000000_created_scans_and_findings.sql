-- Up Migration
--
-- Scans, their findings, and the first/last sighting of every finding fingerprint.
-- Applied by node-pg-migrate (libs/store/src/migrate.util.ts). Append-only: never edit this file
-- once released; add a new `<timestamp>_<past_tense_name>.sql` instead (STYLE.md D.14).

-- One audit run. `summary` holds counts by severity / check (libs/store ScanSummary), `coverage`
-- the CoverageEntry[] of libs/domain (which targets were read, which failed and why), `settings`
-- the effective audit settings. Status moves running -> succeeded | failed.
CREATE TABLE scans (
  id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  status      text NOT NULL DEFAULT 'running' CHECK (status IN ('running', 'succeeded', 'failed')),
  source      text NOT NULL CHECK (source IN ('offline', 'live', 'distributed')),
  fleet_name  text,
  started_at  timestamptz NOT NULL DEFAULT now(),
  finished_at timestamptz,
  error       text,
  summary     jsonb,
  coverage    jsonb,
  settings    jsonb NOT NULL DEFAULT '{}'::jsonb
);

-- GET /v1/scans (newest first) and "latest succeeded scan" (the default of GET /v1/findings).
CREATE INDEX scans_started_at_idx ON scans (started_at DESC, id DESC);
CREATE INDEX scans_succeeded_started_at_idx ON scans (started_at DESC, id DESC) WHERE status = 'succeeded';

-- One failed (check, resource) pair of one scan: the Finding contract of libs/domain.
-- "limit" is quoted: it is a reserved word.
CREATE TABLE findings (
  scan_id       uuid NOT NULL REFERENCES scans (id) ON DELETE CASCADE,
  fingerprint   text NOT NULL,
  check_id      text NOT NULL,
  severity      text NOT NULL CHECK (severity IN ('info', 'warning', 'critical')),
  -- Sort key so listings show critical first without a sort over the whole scan.
  severity_rank smallint GENERATED ALWAYS AS (
                  CASE severity WHEN 'critical' THEN 2 WHEN 'warning' THEN 1 ELSE 0 END
                ) STORED,
  account_id    text NOT NULL,
  region_id     text NOT NULL,
  cluster_id    text,
  resource_kind text NOT NULL,
  resource_id   text NOT NULL,
  namespace     text,
  name          text,
  message       text NOT NULL,
  remediation   text NOT NULL,
  source        text NOT NULL,
  used          numeric,
  "limit"       numeric,
  ratio         numeric,
  figures       jsonb,
  PRIMARY KEY (scan_id, fingerprint)
);

-- Filters of GET /v1/findings, all scoped by scan; the first one is also the default order.
CREATE INDEX findings_scan_order_idx ON findings (scan_id, severity_rank DESC, check_id, fingerprint);
CREATE INDEX findings_scan_check_idx ON findings (scan_id, check_id);
CREATE INDEX findings_scan_severity_idx ON findings (scan_id, severity);
CREATE INDEX findings_scan_account_idx ON findings (scan_id, account_id);
CREATE INDEX findings_scan_cluster_idx ON findings (scan_id, cluster_id);
-- History of one fingerprint across scans (diffs, waivers).
CREATE INDEX findings_fingerprint_idx ON findings (fingerprint);

-- First and last sighting of each fingerprint over all succeeded scans (scan started_at is the
-- observation time), so findings carry "first seen" / "last seen" and scans diff cleanly.
CREATE TABLE finding_fingerprints (
  fingerprint   text PRIMARY KEY,
  check_id      text NOT NULL,
  first_seen_at timestamptz NOT NULL,
  last_seen_at  timestamptz NOT NULL,
  first_scan_id uuid NOT NULL REFERENCES scans (id),
  last_scan_id  uuid NOT NULL REFERENCES scans (id)
);

-- Down Migration
DROP TABLE finding_fingerprints;
DROP TABLE findings;
DROP TABLE scans;
