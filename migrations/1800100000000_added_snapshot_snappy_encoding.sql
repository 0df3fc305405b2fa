-- Up Migration
--
-- A scan's fleet snapshot may be stored as snappy blocks (`snappy+json`: libs/store snappy-blocks.util.ts, JSON lines
-- compressed with snappy, about a quarter of gzip's CPU to write) as well as gzip (`gzip+json`: older rows, and a
-- platform where npm `snappy` has no binary). Every reader decodes both by this column. A shard's snapshot part
-- (scan_shards.snapshot, no encoding column) is either too, told apart by its first bytes (snappy blocks begin
-- with FASNAPB1, gzip with 1f 8b).
-- Append-only: never edit once released (STYLE.md D.14).

ALTER TABLE scan_snapshots DROP CONSTRAINT scan_snapshots_encoding_check;
ALTER TABLE scan_snapshots ADD CONSTRAINT scan_snapshots_encoding_check CHECK (encoding IN ('gzip+json', 'snappy+json'));

-- Down Migration
-- The snappy rows go: the version this returns to cannot decode them (its readers would fail on the latest scan's
-- snapshot instead of using an older gzip one).
DELETE FROM scan_snapshots WHERE encoding <> 'gzip+json';
UPDATE scan_shards SET snapshot = NULL, bytes_raw = NULL WHERE substring(snapshot FROM 1 FOR 8) = 'FASNAPB1'::bytea;
ALTER TABLE scan_snapshots DROP CONSTRAINT scan_snapshots_encoding_check;
ALTER TABLE scan_snapshots ADD CONSTRAINT scan_snapshots_encoding_check CHECK (encoding = 'gzip+json');
