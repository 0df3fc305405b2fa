-- Up Migration
--
-- `quota_usage` and `graph_ecs_instances` partitioned by scan (LIST on `scan_id`): each scan's rows are a table of
-- their own, `<table>_s<scan id without dashes>` (libs/store scan-partition.util.ts). The chunked store COPYs a
-- scan's rows into that table while it has no index (it is not yet a partition, so no reader sees it), and attaches
-- it before the scan is made visible: ATTACH PARTITION builds its indexes in one sorted pass each instead of one
-- B-tree descent per row and index. A 2,000-cluster bench scan, PostgreSQL 15, this VM, measured alone: its 401,300
-- quota samples COPY into the indexed table in 4.1-6.0 s, into a bare table in 0.9 s plus 2.3 s of index builds;
-- its 200,000 ECS instances 2.7-3.0 s against 0.5 + 0.7 s. Retention drops a deleted scan's partitions instead of
-- leaving their rows to VACUUM.
--
-- Every other write path (the embedded store's single transaction, a sharded scan's shards, a succeeded scan's
-- result replaced) attaches the scan's empty partition first and writes through the parent (`ScanPartitions.ensure`).
-- ATTACH takes SHARE UPDATE EXCLUSIVE on the parent, which readers and writers do not wait for; each partition has a
-- CHECK matching its bound, so ATTACH reads none of its rows to prove they belong.
--
-- Rows stored before this migration stay where they are: the old table becomes one partition,
-- `<table>_unpartitioned`, bound to the scans it holds rows of (no copy of the rows; ATTACH reads the table once to
-- check them). Indexes keep their names on the parents (partitioned indexes).
-- Append-only: never edit once released (STYLE.md D.14).

ALTER TABLE quota_usage RENAME TO quota_usage_unpartitioned;
ALTER INDEX quota_usage_pkey RENAME TO quota_usage_unpartitioned_pkey;
ALTER INDEX quota_usage_scan_ratio_idx RENAME TO quota_usage_unpartitioned_scan_ratio_idx;
ALTER INDEX quota_usage_scan_resource_idx RENAME TO quota_usage_unpartitioned_scan_resource_idx;
ALTER INDEX quota_usage_scan_team_idx RENAME TO quota_usage_unpartitioned_scan_team_idx;

CREATE TABLE quota_usage (
  LIKE quota_usage_unpartitioned INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING STORAGE INCLUDING COMPRESSION
) PARTITION BY LIST (scan_id);
ALTER TABLE quota_usage ADD CONSTRAINT quota_usage_pkey PRIMARY KEY (scan_id, check_id, account_id, region_id, resource_kind, resource_id);
CREATE INDEX quota_usage_scan_ratio_idx ON quota_usage (scan_id, ratio);
CREATE INDEX quota_usage_scan_resource_idx ON quota_usage (scan_id, resource_id);
CREATE INDEX quota_usage_scan_team_idx ON quota_usage (scan_id, team) WHERE team IS NOT NULL;

ALTER TABLE graph_ecs_instances RENAME TO graph_ecs_instances_unpartitioned;
ALTER INDEX graph_ecs_instances_pkey RENAME TO graph_ecs_instances_unpartitioned_pkey;
ALTER INDEX graph_ecs_instances_account_idx RENAME TO graph_ecs_instances_unpartitioned_account_idx;
ALTER INDEX graph_ecs_instances_cluster_idx RENAME TO graph_ecs_instances_unpartitioned_cluster_idx;

CREATE TABLE graph_ecs_instances (
  LIKE graph_ecs_instances_unpartitioned INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING STORAGE INCLUDING COMPRESSION
) PARTITION BY LIST (scan_id);
ALTER TABLE graph_ecs_instances ADD CONSTRAINT graph_ecs_instances_pkey PRIMARY KEY (scan_id, instance_id);
CREATE INDEX graph_ecs_instances_account_idx ON graph_ecs_instances (scan_id, account_id, instance_id);
CREATE INDEX graph_ecs_instances_cluster_idx ON graph_ecs_instances (scan_id, cluster_id, instance_id) WHERE cluster_id IS NOT NULL;

-- The old tables become the partitions of the scans they hold rows of (their indexes attach as they are); an empty one
-- is dropped.
DO $$
DECLARE
  t text;
  ids text;
BEGIN
  FOREACH t IN ARRAY ARRAY['quota_usage', 'graph_ecs_instances'] LOOP
    EXECUTE format('SELECT string_agg(quote_literal(scan_id::text), '','') FROM (SELECT DISTINCT scan_id FROM %I) s', t || '_unpartitioned') INTO ids;
    IF ids IS NULL THEN
      EXECUTE format('DROP TABLE %I', t || '_unpartitioned');
    ELSE
      EXECUTE format('ALTER TABLE %I ATTACH PARTITION %I FOR VALUES IN (%s)', t, t || '_unpartitioned', ids);
    END IF;
  END LOOP;
END $$;

-- Down Migration
-- Plain tables again, holding every partition's rows. A scan's table that a store in flight had not attached yet is
-- dropped with its rows, and that store's chunks of it forgotten, so the store writes them again when it resumes.
DO $$
DECLARE
  t text;
  r record;
BEGIN
  FOREACH t IN ARRAY ARRAY['quota_usage', 'graph_ecs_instances'] LOOP
    FOR r IN SELECT c.relname, substring(c.relname FROM '_s([0-9a-f]{32})$') AS hex FROM pg_class c
              WHERE c.relkind = 'r' AND NOT c.relispartition AND c.relnamespace = current_schema()::regnamespace
                AND c.relname ~ ('^' || t || '_s[0-9a-f]{32}$') LOOP
      DELETE FROM scan_store_chunks WHERE part = t AND replace(scan_id::text, '-', '') = r.hex;
      EXECUTE format('DROP TABLE %I', r.relname);
    END LOOP;
    EXECUTE format('CREATE TABLE %I (LIKE %I INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING STORAGE INCLUDING COMPRESSION)', t || '_plain', t);
    EXECUTE format('INSERT INTO %I SELECT * FROM %I', t || '_plain', t);
    EXECUTE format('DROP TABLE %I', t);
    EXECUTE format('ALTER TABLE %I RENAME TO %I', t || '_plain', t);
  END LOOP;
END $$;
ALTER TABLE quota_usage ADD CONSTRAINT quota_usage_pkey PRIMARY KEY (scan_id, check_id, account_id, region_id, resource_kind, resource_id);
CREATE INDEX quota_usage_scan_ratio_idx ON quota_usage (scan_id, ratio);
CREATE INDEX quota_usage_scan_resource_idx ON quota_usage (scan_id, resource_id);
CREATE INDEX quota_usage_scan_team_idx ON quota_usage (scan_id, team) WHERE team IS NOT NULL;
ALTER TABLE graph_ecs_instances ADD CONSTRAINT graph_ecs_instances_pkey PRIMARY KEY (scan_id, instance_id);
CREATE INDEX graph_ecs_instances_account_idx ON graph_ecs_instances (scan_id, account_id, instance_id);
CREATE INDEX graph_ecs_instances_cluster_idx ON graph_ecs_instances (scan_id, cluster_id, instance_id) WHERE cluster_id IS NOT NULL;
