-- Up Migration
--
-- quota_trend_fits partitioned by window (LIST (window_id)): each fitted window's fits are a table of their own
-- (libs/store QuotaTrendRepository.refresh). A refresh replaces every series' fit, a million rows at 5,000 clusters:
-- written into the indexed table each row cost a descent of three B-trees of six and seven text columns, and the
-- window it replaced was deleted row by row and left for VACUUM. Now the refresh writes its window into a new table
-- without indexes, and ATTACH PARTITION builds the three indexes on it in one sorted pass each; the replaced window's
-- table is detached and dropped. One million fits (this VM, PostgreSQL 15): COPY into the indexed table 23.1 s;
-- COPY into a bare table 1.5 s, ATTACH with its index builds 7.6-9.0 s; the old window's DELETE 1.5 s plus its
-- VACUUM 6.2 s, against a DROP in 0.2 s.
-- No foreign key to quota_trend_windows: a window's fits are its partition, dropped with it.
-- The fits are derived from quota_usage: the kept windows go with the old table, and trends refit the samples (as for
-- any window not kept) until the next scan's refresh keeps a window again.
-- Append-only: never edit once released (STYLE.md D.14).

DELETE FROM quota_trend_windows;
DROP TABLE quota_trend_fits;

CREATE TABLE quota_trend_fits (
  window_id     bigint NOT NULL,
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
) PARTITION BY LIST (window_id);
CREATE INDEX quota_trend_fits_account_idx ON quota_trend_fits (window_id, account_id, check_id, region_id, resource_kind, resource_id);
CREATE INDEX quota_trend_fits_cluster_idx ON quota_trend_fits (window_id, cluster_id, check_id, account_id, region_id, resource_kind, resource_id);

-- Down Migration
DELETE FROM quota_trend_windows;
DROP TABLE quota_trend_fits;
-- Window tables a refresh detached but did not get to drop.
DO $$
DECLARE t text;
BEGIN
  FOR t IN SELECT c.relname FROM pg_class c
            WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind = 'r' AND c.relname ~ '^quota_trend_fits_w[0-9]+$'
  LOOP
    EXECUTE format('DROP TABLE %I', t);
  END LOOP;
END $$;
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
CREATE INDEX quota_trend_fits_account_idx ON quota_trend_fits (window_id, account_id, check_id, region_id, resource_kind, resource_id);
CREATE INDEX quota_trend_fits_cluster_idx ON quota_trend_fits (window_id, cluster_id, check_id, account_id, region_id, resource_kind, resource_id);
