-- Up Migration
--
-- A crawl target's slice as gzip-compressed JSON (issue 22, found by `npm run bench:distributed -- --clusters 5000`):
-- a `jsonb` value is limited to 256 MiB (PostgreSQL error 54000, "total size of jsonb object elements exceeds the
-- maximum"), and the region slice of an account-region with 500 clusters (its CLBs with every backend server, its NLB
-- server groups and ECS instances) is larger, so the crawl of such a region could not save what it read. New slices
-- go to `slice_gz` (`slice` stays NULL); rows written before keep their `slice` and read as before. The compressed
-- form is also about a tenth of the size.
-- Append-only: never edit once released (STYLE.md D.14).

ALTER TABLE scan_targets ADD COLUMN slice_gz bytea;

-- Down Migration
-- Slices stored compressed are lost with the column (they matter only while their scan runs).
ALTER TABLE scan_targets DROP COLUMN slice_gz;
