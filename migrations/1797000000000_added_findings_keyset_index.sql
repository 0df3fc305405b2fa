-- Up Migration
--
-- Keyset paging of GET /v1/findings (issue 14 item 6). The listing order is most severe first,
-- then check id, then fingerprint (unique within a scan). With the rank negated every column
-- ascends, so "after the cursor" is one row comparison
--   (-severity_rank, check_id, fingerprint) > ($rank, $check, $fingerprint)
-- which this index serves as one range scan from the cursor on: a page costs its own rows, not
-- the rows before it. It replaces findings_scan_order_idx (same order with the rank descending),
-- which could serve the mixed-direction form of that condition only by reading from the start.
-- Append-only: never edit once released (STYLE.md D.14).

CREATE INDEX findings_scan_keyset_idx ON findings (scan_id, (-severity_rank), check_id, fingerprint);
DROP INDEX findings_scan_order_idx;

-- Down Migration
CREATE INDEX findings_scan_order_idx ON findings (scan_id, severity_rank DESC, check_id, fingerprint);
DROP INDEX findings_scan_keyset_idx;
