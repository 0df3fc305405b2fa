-- Up Migration
--
-- Quota trend fits (issue 22 item 4): the Theil-Sen fit of every quota series over one window of scans, kept so
-- that `/v1/forecasts/trends` (and `forecast trends`, /metrics) reads one row per series instead of refitting
-- every sample of the window on each request (0.8-2.2 s per account of a 5,000-cluster fleet before).
--   quota_trend_windows: one fitted window. `scans_key` names the samples it was fitted on: the md5 of the ids,
--     start and finish times of the succeeded scans started in [since, until] (QuotaTrendRepository.scansKey). A
--     request whose window holds exactly those scans reads the fits; any other window (older `now`, a scan since
--     completed, completed again or deleted by retention) does not match, and trends refit the samples as before.
--     `mixed_cluster_series` counts series whose samples name different clusters: a `clusterId` filter narrows
--     such a series to some of its samples, which its fit does not cover, so that filter refits while it is > 0.
--   quota_trend_fits: per series (the quota_usage key) the window part of a forecast (libs/forecast TrendFit):
--     sample count, span (ms), latest sample (epoch ms) with its used and limit, and the fit (slope, Sen's slope
--     interval, intercept, residual band; NULL without a fit). float8 throughout: values read back bit for bit.
--     The key columns sort bytewise (COLLATE "C"): pages of `/v1/forecasts/trends?limit=` walk the primary key in
--     the order JavaScript compares the same (ASCII) ids, whatever the database's collation.
-- Written when a scan completes (ScanRepository), replacing the older windows; no table references scans, so
-- retention needs no change (a window naming a removed scan just stops matching and is replaced).
-- Append-only: never edit once released (STYLE.md D.14).

CREATE TABLE quota_trend_windows (
  id                   bigserial PRIMARY KEY,
  scans_key            text NOT NULL,
  since                timestamptz NOT NULL,
  until                timestamptz NOT NULL,
  interval_coverage    double precision NOT NULL,
  scan_count           integer NOT NULL,
  series               integer NOT NULL,
  mixed_cluster_series integer NOT NULL,
  computed_at          timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX quota_trend_windows_key_idx ON quota_trend_windows (scans_key);

CREATE TABLE quota_trend_fits (
  window_id     bigint NOT NULL REFERENCES quota_trend_windows (id) ON DELETE CASCADE,
  check_id      text COLLATE "C" NOT NULL,
  account_id    text COLLATE "C" NOT NULL,
  region_id     text COLLATE "C" NOT NULL,
  cluster_id    text,
  resource_kind text COLLATE "C" NOT NULL,
  resource_id   text COLLATE "C" NOT NULL,
  samples       integer NOT NULL,
  span_ms       double precision NOT NULL,
  latest_at     double precision,
  has_latest    boolean NOT NULL,
  used          double precision NOT NULL,
  "limit"       double precision NOT NULL,
  slope         double precision,
  slope_low     double precision,
  slope_high    double precision,
  intercept     double precision,
  residual_low  double precision,
  residual_high double precision,
  PRIMARY KEY (window_id, check_id, account_id, region_id, resource_kind, resource_id)
);
-- The filters of /v1/forecasts/trends, each followed by the rest of the series key, so a page of one account or one
-- cluster is an index range in page order (check is the primary key's prefix).
CREATE INDEX quota_trend_fits_account_idx ON quota_trend_fits (window_id, account_id, check_id, region_id, resource_kind, resource_id);
CREATE INDEX quota_trend_fits_cluster_idx ON quota_trend_fits (window_id, cluster_id, check_id, account_id, region_id, resource_kind, resource_id);

-- Down Migration
DROP TABLE quota_trend_fits;
DROP TABLE quota_trend_windows;
