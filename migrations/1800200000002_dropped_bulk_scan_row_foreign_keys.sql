-- Up Migration
--
-- The tables a scan's store writes most rows into keep `scan_id` without a foreign key to `scans`. A foreign key
-- checks every inserted row with a query of its own on `scans` (PostgreSQL's RI trigger, row by row): 30 % of the
-- CPU PostgreSQL spends on COPY of a 500-cluster scan's 100,380 quota samples (1.3-1.5 -> 0.9-1.0 CPU s), 15 % on
-- its 50,000 ECS rows, for a check the store makes once per chunk anyway: each chunk takes KEY SHARE on the scan row
-- and checks its store attempt (libs/store scan-store.ts), the single-transaction store and the shards lock the scan
-- row first. Nothing deletes a scan row with rows left in these tables: retention deletes them before the scan
-- (libs/store retention.repository.ts `delete`, PRUNED_SCAN_TABLES and quota_usage), and a launch the queue refused
-- is deleted only while nothing is stored under it (ScanRepository.discardUnstarted). Rows left by a scan deleted
-- without them before this migration cannot exist (the foreign keys deleted them).
-- The other per-scan tables (scan_targets, scan_snapshots, scan_shards, scan_store_attempts) keep theirs: a few rows
-- per scan.
-- Append-only: never edit once released (STYLE.md D.14).

ALTER TABLE findings DROP CONSTRAINT findings_scan_id_fkey;
ALTER TABLE quota_usage DROP CONSTRAINT quota_usage_scan_id_fkey;
ALTER TABLE graph_regions DROP CONSTRAINT graph_regions_scan_id_fkey;
ALTER TABLE graph_clusters DROP CONSTRAINT graph_clusters_scan_id_fkey;
ALTER TABLE graph_services DROP CONSTRAINT graph_services_scan_id_fkey;
ALTER TABLE graph_load_balancers DROP CONSTRAINT graph_load_balancers_scan_id_fkey;
ALTER TABLE graph_server_groups DROP CONSTRAINT graph_server_groups_scan_id_fkey;
ALTER TABLE graph_ecs_instances DROP CONSTRAINT graph_ecs_instances_scan_id_fkey;
ALTER TABLE graph_ecs_attachments DROP CONSTRAINT graph_ecs_attachments_scan_id_fkey;
ALTER TABLE graph_nlbs DROP CONSTRAINT graph_nlbs_scan_id_fkey;

-- Down Migration
-- Rows whose scan is gone (none, unless written around the store) would refuse the constraints: removed first.
DELETE FROM findings t WHERE NOT EXISTS (SELECT 1 FROM scans s WHERE s.id = t.scan_id);
DELETE FROM quota_usage t WHERE NOT EXISTS (SELECT 1 FROM scans s WHERE s.id = t.scan_id);
DELETE FROM graph_regions t WHERE NOT EXISTS (SELECT 1 FROM scans s WHERE s.id = t.scan_id);
DELETE FROM graph_clusters t WHERE NOT EXISTS (SELECT 1 FROM scans s WHERE s.id = t.scan_id);
DELETE FROM graph_services t WHERE NOT EXISTS (SELECT 1 FROM scans s WHERE s.id = t.scan_id);
DELETE FROM graph_load_balancers t WHERE NOT EXISTS (SELECT 1 FROM scans s WHERE s.id = t.scan_id);
DELETE FROM graph_server_groups t WHERE NOT EXISTS (SELECT 1 FROM scans s WHERE s.id = t.scan_id);
DELETE FROM graph_ecs_instances t WHERE NOT EXISTS (SELECT 1 FROM scans s WHERE s.id = t.scan_id);
DELETE FROM graph_ecs_attachments t WHERE NOT EXISTS (SELECT 1 FROM scans s WHERE s.id = t.scan_id);
DELETE FROM graph_nlbs t WHERE NOT EXISTS (SELECT 1 FROM scans s WHERE s.id = t.scan_id);
ALTER TABLE findings ADD CONSTRAINT findings_scan_id_fkey FOREIGN KEY (scan_id) REFERENCES scans (id) ON DELETE CASCADE;
ALTER TABLE quota_usage ADD CONSTRAINT quota_usage_scan_id_fkey FOREIGN KEY (scan_id) REFERENCES scans (id) ON DELETE CASCADE;
ALTER TABLE graph_regions ADD CONSTRAINT graph_regions_scan_id_fkey FOREIGN KEY (scan_id) REFERENCES scans (id) ON DELETE CASCADE;
ALTER TABLE graph_clusters ADD CONSTRAINT graph_clusters_scan_id_fkey FOREIGN KEY (scan_id) REFERENCES scans (id) ON DELETE CASCADE;
ALTER TABLE graph_services ADD CONSTRAINT graph_services_scan_id_fkey FOREIGN KEY (scan_id) REFERENCES scans (id) ON DELETE CASCADE;
ALTER TABLE graph_load_balancers ADD CONSTRAINT graph_load_balancers_scan_id_fkey FOREIGN KEY (scan_id) REFERENCES scans (id) ON DELETE CASCADE;
ALTER TABLE graph_server_groups ADD CONSTRAINT graph_server_groups_scan_id_fkey FOREIGN KEY (scan_id) REFERENCES scans (id) ON DELETE CASCADE;
ALTER TABLE graph_ecs_instances ADD CONSTRAINT graph_ecs_instances_scan_id_fkey FOREIGN KEY (scan_id) REFERENCES scans (id) ON DELETE CASCADE;
ALTER TABLE graph_ecs_attachments ADD CONSTRAINT graph_ecs_attachments_scan_id_fkey FOREIGN KEY (scan_id) REFERENCES scans (id) ON DELETE CASCADE;
ALTER TABLE graph_nlbs ADD CONSTRAINT graph_nlbs_scan_id_fkey FOREIGN KEY (scan_id) REFERENCES scans (id) ON DELETE CASCADE;
