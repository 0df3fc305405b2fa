-- Up Migration
--
-- The (check, resource) pairs a scan could not evaluate, with the reason (which data was not read, or
-- which other check reports the resource): SkippedResult[] of libs/domain, stored like `coverage` so
-- that GET /v1/scans/{id} and distributed scans show what the scan makes no claim about (STYLE.md
-- F.28: never a silent pass). Null for scans completed before this column existed.
-- Append-only: never edit once released (STYLE.md D.14).

ALTER TABLE scans ADD COLUMN skipped jsonb;

-- Down Migration
ALTER TABLE scans DROP COLUMN skipped;
