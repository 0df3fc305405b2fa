-- Up Migration
--
-- Per-target state of distributed scans (ARCHITECTURE.md "The one data flow"): one row per crawl
-- target (an account's RAM, an (account, region), a cluster) of one scan. The plan job inserts
-- `pending` rows, each crawl job upserts its TargetSlice (`ok`), the analyze job reads the slices
-- and marks what never arrived `failed`. Writes are upserts keyed by (scan_id, target_key), so a
-- retried or duplicated job changes nothing. Append-only: never edit once released (STYLE.md D.14).

CREATE TABLE scan_targets (
  scan_id    uuid NOT NULL REFERENCES scans (id) ON DELETE CASCADE,
  -- Stable key of the target: `account/<uid>`, `region/<uid>/<region>`, `cluster/<uid>/<region>/<cluster>`.
  target_key text NOT NULL,
  -- The target itself ({kind, accountId, regionId?, clusterId?}), so pending rows name it too.
  target     jsonb NOT NULL,
  status     text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'ok', 'failed')),
  -- The TargetSlice the crawl produced (libs/collectors); NULL until `ok`.
  slice      jsonb,
  -- Why the target could not be read; NULL unless `failed`. Never contains credentials.
  error      text,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (scan_id, target_key)
);

-- Progress of one scan (GET /v1/scans/{id}): counts by status.
CREATE INDEX scan_targets_scan_status_idx ON scan_targets (scan_id, status);

-- Down Migration
DROP TABLE scan_targets;
