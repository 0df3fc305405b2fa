-- Up Migration
--
-- Quota usage samples of each succeeded scan (libs/domain QuotaUsageSample): every (check, resource)
-- result whose figures carry used and limit, passed or failed. /metrics exports the latest scan's samples
-- (gauges Prometheus alerts on), and the history is what quota forecasts extrapolate. Written in the same
-- transaction as the scan's findings (ScanRepository.complete), replaced when a scan is completed again.
-- Append-only: never edit once released (STYLE.md D.14).

CREATE TABLE quota_usage (
  scan_id       uuid NOT NULL REFERENCES scans (id) ON DELETE CASCADE,
  check_id      text NOT NULL,
  account_id    text NOT NULL,
  region_id     text NOT NULL,
  cluster_id    text,
  resource_kind text NOT NULL,
  resource_id   text NOT NULL,
  used          numeric NOT NULL,
  "limit"       numeric NOT NULL CHECK ("limit" > 0),
  ratio         numeric NOT NULL,
  PRIMARY KEY (scan_id, check_id, account_id, region_id, resource_kind, resource_id)
);

-- History of one resource's quota across scans (forecasts).
CREATE INDEX quota_usage_resource_idx ON quota_usage (check_id, account_id, region_id, resource_id);

-- Down Migration
DROP TABLE quota_usage;
