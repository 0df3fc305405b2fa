-- Up Migration
--
-- Sharded analysis of distributed scans (issue 22 item 2): the analyze step becomes one `analyze-shard`
-- job per (account, region) (an account without regions: one account-only shard) and a final
-- `complete-scan` job.
--   scan_shards: one row per shard that ended: `done` with what it stored (its summary part, coverage,
--     skipped results and gzip snapshot part: the snapshot loader merges the parts of a scan that has no
--     whole snapshot), or `failed` with the reason (written by complete-scan). Findings, quota samples and
--     fleet-graph rows of a shard go to their usual tables in the same transaction as its `done` row.
--     region_id is '' for an account-only shard; `lead` marks the shard that reports the account's own
--     results and coverage (its lowest region, or the account-only shard).
--   scan_targets_place_idx: a shard reads only its slices (its account target, its region target and that
--     region's cluster targets) by (scan, account, region) instead of scanning every slice of the scan.
-- Append-only: never edit once released (STYLE.md D.14).

CREATE TABLE scan_shards (
  scan_id     uuid NOT NULL REFERENCES scans (id) ON DELETE CASCADE,
  shard_key   text COLLATE "C" NOT NULL,
  account_id  text COLLATE "C" NOT NULL,
  region_id   text COLLATE "C" NOT NULL,
  lead        boolean NOT NULL,
  status      text NOT NULL CHECK (status IN ('done', 'failed')),
  summary     jsonb,
  coverage    jsonb NOT NULL DEFAULT '[]'::jsonb,
  skipped     jsonb NOT NULL DEFAULT '[]'::jsonb,
  snapshot    bytea,
  bytes_raw   bigint CHECK (bytes_raw >= 0),
  error       text,
  updated_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (scan_id, shard_key)
);

CREATE INDEX scan_targets_place_idx ON scan_targets (scan_id, (target ->> 'accountId'), (target ->> 'regionId'));

-- Down Migration
DROP INDEX scan_targets_place_idx;
DROP TABLE scan_shards;
