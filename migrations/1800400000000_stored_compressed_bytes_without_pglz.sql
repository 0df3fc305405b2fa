-- Up Migration
--
-- Bytes this service compresses itself (gzip members: a scan's fleet snapshot, a shard's snapshot part, a crawled
-- region slice) are stored out of line without PostgreSQL's own compression (STORAGE EXTERNAL; PostgreSQL docs,
-- "TOAST": EXTERNAL allows out-of-line storage but not compression). With the default (EXTENDED) every such value
-- was run through pglz first, which on gzip output finds short matches, compresses the whole value and then drops
-- the result for saving under 25 %: a 1,000-cluster scan's 28.5 MB snapshot took 481-549 ms to insert against
-- 108-134 ms without (201 MiB at 5,000 clusters: seconds of PostgreSQL CPU per scan, for nothing).
-- Only the column's setting changes (no table rewrite); rows stored before read as before.
-- Append-only: never edit once released (STYLE.md D.14).

ALTER TABLE scan_snapshots ALTER COLUMN snapshot SET STORAGE EXTERNAL;
ALTER TABLE scan_shards ALTER COLUMN snapshot SET STORAGE EXTERNAL;
ALTER TABLE scan_targets ALTER COLUMN slice_gz SET STORAGE EXTERNAL;

-- Down Migration
ALTER TABLE scan_targets ALTER COLUMN slice_gz SET STORAGE EXTENDED;
ALTER TABLE scan_shards ALTER COLUMN snapshot SET STORAGE EXTENDED;
ALTER TABLE scan_snapshots ALTER COLUMN snapshot SET STORAGE EXTENDED;
