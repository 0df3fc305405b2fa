-- Up Migration
--
-- The name of the cluster a finding's resource is in (cluster.json / DescribeClusterDetail `name`), beside its
-- opaque id (issue 21 item 2: "storefront", not "c81faa03..."). Not part of the fingerprint: a cluster can be
-- renamed. Findings stored before this migration have NULL (their name is unknown; clients show the id).
-- The store still writes and reads databases without the column (libs/store ColumnProbe).
-- Append-only: never edit once released (STYLE.md D.14).

ALTER TABLE findings ADD COLUMN cluster_name text;

-- Down Migration

ALTER TABLE findings DROP COLUMN cluster_name;
