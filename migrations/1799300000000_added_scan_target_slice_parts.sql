-- Up Migration
--
-- A crawl target's slice stored in parts, each gzip-compressed JSON (issue 22 item 2, found by
-- `npm run bench:distributed -- --clusters 5000 --accounts 10`): the region slice of an account-region with 500
-- clusters is over 200 MiB of JSON, and an analyze-shard job that decompressed and parsed it whole held it three
-- times at once (bytes, text, objects) and peaked at 2.2 GiB. Stored in parts (libs/collectors slice-parts.ts: the
-- head, then runs of at most 1,000 CLBs, vServer groups, ECS instances or NLB items), it is read one part at a time.
-- All parts of a slice are written by one statement, so a half-written slice is never visible. New slices go to
-- `slice_parts` (`slice` and `slice_gz` stay NULL); rows written before keep their `slice` or `slice_gz` and read as
-- one part.
-- Append-only: never edit once released (STYLE.md D.14).

ALTER TABLE scan_targets ADD COLUMN slice_parts bytea[];

-- Down Migration
-- Slices stored in parts are lost with the column (they matter only while their scan runs).
ALTER TABLE scan_targets DROP COLUMN slice_parts;
