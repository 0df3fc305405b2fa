-- Up Migration
--
-- `findings` partitioned by scan (LIST on `scan_id`), as `quota_usage` and `graph_ecs_instances` are since migration
-- 1800600000001: each scan's findings are a table of their own, `findings_s<scan id without dashes>` (libs/store
-- scan-partition.util.ts). The chunked store COPYs a scan's findings into that table while it has no index, and
-- attaches it before the scan is made visible, so its seven indexes are built in one sorted pass each instead of one
-- B-tree descent per row and index. Measured on this VM (PostgreSQL 15, alone): the 5,000-cluster bench scan's
-- 201,761 findings took 12.7 s of COPY into the indexed table (PostgreSQL's statement log); 200,000 rows of the same
-- shape 3.91 s into a table with the seven indexes against 0.14 s into a bare one plus 1.23 s of index builds.
--
-- Readers name the scan by a bind parameter (libs/store finding.repository.ts): PostgreSQL prunes partitions at plan
-- time only for constants and parameters, so one page plans and locks one partition, not every scan's.
--
-- Rows stored before this migration stay where they are: the old table becomes one partition,
-- `findings_unpartitioned`, bound to the scans it holds rows of (ATTACH reads it once to check them; its indexes
-- attach as they are, and its CHECK constraints keep their names, which ATTACH matches). `severity_rank` stays a
-- generated column (INCLUDING GENERATED): a partition's value is computed by the partition, from the same expression.
-- Append-only: never edit once released (STYLE.md D.14).

ALTER TABLE findings RENAME TO findings_unpartitioned;
ALTER INDEX findings_pkey RENAME TO findings_unpartitioned_pkey;
ALTER INDEX findings_scan_account_idx RENAME TO findings_unpartitioned_scan_account_idx;
ALTER INDEX findings_scan_check_keyset_idx RENAME TO findings_unpartitioned_scan_check_keyset_idx;
ALTER INDEX findings_scan_cluster_idx RENAME TO findings_unpartitioned_scan_cluster_idx;
ALTER INDEX findings_scan_keyset_idx RENAME TO findings_unpartitioned_scan_keyset_idx;
ALTER INDEX findings_scan_severity_idx RENAME TO findings_unpartitioned_scan_severity_idx;
ALTER INDEX findings_scan_team_idx RENAME TO findings_unpartitioned_scan_team_idx;

CREATE TABLE findings (
  LIKE findings_unpartitioned INCLUDING DEFAULTS INCLUDING GENERATED INCLUDING STORAGE INCLUDING COMPRESSION
) PARTITION BY LIST (scan_id);
ALTER TABLE findings ADD CONSTRAINT findings_severity_check CHECK (severity = ANY (ARRAY['info'::text, 'warning'::text, 'critical'::text]));
ALTER TABLE findings ADD CONSTRAINT findings_texts_check CHECK (texts_id IS NOT NULL OR remediation IS NOT NULL AND source IS NOT NULL);
ALTER TABLE findings ADD CONSTRAINT findings_pkey PRIMARY KEY (scan_id, fingerprint);
CREATE INDEX findings_scan_account_idx ON findings (scan_id, account_id);
CREATE INDEX findings_scan_check_keyset_idx ON findings (scan_id, check_id, (-severity_rank), fingerprint);
CREATE INDEX findings_scan_cluster_idx ON findings (scan_id, cluster_id);
CREATE INDEX findings_scan_keyset_idx ON findings (scan_id, (-severity_rank), check_id, fingerprint);
CREATE INDEX findings_scan_severity_idx ON findings (scan_id, severity);
CREATE INDEX findings_scan_team_idx ON findings (scan_id, team) WHERE team IS NOT NULL;

-- The old table becomes the partition of the scans it holds rows of (its indexes attach as they are); an empty one is
-- dropped.
DO $$
DECLARE
  ids text;
BEGIN
  SELECT string_agg(quote_literal(scan_id::text), ',') INTO ids FROM (SELECT DISTINCT scan_id FROM findings_unpartitioned) s;
  IF ids IS NULL THEN
    DROP TABLE findings_unpartitioned;
  ELSE
    EXECUTE format('ALTER TABLE findings ATTACH PARTITION findings_unpartitioned FOR VALUES IN (%s)', ids);
  END IF;
END $$;

-- Down Migration
-- A plain table again, holding every partition's rows. A scan's table that a store in flight had not attached yet is
-- dropped with its rows, and that store's chunks of it forgotten, so the store writes them again when it resumes.
DO $$
DECLARE
  r record;
  cols text;
BEGIN
  FOR r IN SELECT c.relname, substring(c.relname FROM '_s([0-9a-f]{32})$') AS hex FROM pg_class c
            WHERE c.relkind = 'r' AND NOT c.relispartition AND c.relnamespace = current_schema()::regnamespace
              AND c.relname ~ '^findings_s[0-9a-f]{32}$' LOOP
    DELETE FROM scan_store_chunks WHERE part = 'findings' AND replace(scan_id::text, '-', '') = r.hex;
    EXECUTE format('DROP TABLE %I', r.relname);
  END LOOP;
  CREATE TABLE findings_plain (LIKE findings INCLUDING DEFAULTS INCLUDING GENERATED INCLUDING STORAGE INCLUDING COMPRESSION);
  SELECT string_agg(quote_ident(attname), ', ' ORDER BY attnum) INTO cols FROM pg_attribute
   WHERE attrelid = 'findings'::regclass AND attnum > 0 AND NOT attisdropped AND attgenerated = '';
  EXECUTE format('INSERT INTO findings_plain (%s) SELECT %s FROM findings', cols, cols);
  DROP TABLE findings;
  ALTER TABLE findings_plain RENAME TO findings;
END $$;
ALTER TABLE findings ADD CONSTRAINT findings_severity_check CHECK (severity = ANY (ARRAY['info'::text, 'warning'::text, 'critical'::text]));
ALTER TABLE findings ADD CONSTRAINT findings_texts_check CHECK (texts_id IS NOT NULL OR remediation IS NOT NULL AND source IS NOT NULL);
ALTER TABLE findings ADD CONSTRAINT findings_pkey PRIMARY KEY (scan_id, fingerprint);
CREATE INDEX findings_scan_account_idx ON findings (scan_id, account_id);
CREATE INDEX findings_scan_check_keyset_idx ON findings (scan_id, check_id, (-severity_rank), fingerprint);
CREATE INDEX findings_scan_cluster_idx ON findings (scan_id, cluster_id);
CREATE INDEX findings_scan_keyset_idx ON findings (scan_id, (-severity_rank), check_id, fingerprint);
CREATE INDEX findings_scan_severity_idx ON findings (scan_id, severity);
CREATE INDEX findings_scan_team_idx ON findings (scan_id, team) WHERE team IS NOT NULL;
