-- Up Migration
--
-- Two indexes no read needs, each maintained for every row a scan's store writes:
--  - quota_usage_resource_idx (check_id, account_id, region_id, resource_id), 13.4 of the 57.5 MiB a 500-cluster
--    scan's 100,380 quota samples take, and about 0.3 of the 2.1 CPU s PostgreSQL spends on their COPY. Its one
--    reader, the quota history (QuotaUsageRepository.history: trend fits and forecasts, always within a window of
--    scans), names the window's scans as `scan_id = ANY(...)`, which the primary key (scan_id, check_id, account_id,
--    region_id, ...) serves as one range per scan; every other read of quota_usage names its scan.
--  - findings_fingerprint_idx (fingerprint): every read of findings names its scan, so the primary key
--    (scan_id, fingerprint) serves each lookup by fingerprint (scan diffs, sightings, the listing's join).
-- Append-only: never edit once released (STYLE.md D.14).

DROP INDEX quota_usage_resource_idx;
DROP INDEX findings_fingerprint_idx;

-- Down Migration
CREATE INDEX findings_fingerprint_idx ON findings (fingerprint);
CREATE INDEX quota_usage_resource_idx ON quota_usage (check_id, account_id, region_id, resource_id);
