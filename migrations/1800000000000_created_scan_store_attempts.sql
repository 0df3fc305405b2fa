-- Up Migration
--
-- Chunked store of a scan (libs/store scan-store.ts): a large scan's rows (findings, quota samples, fleet graph, the
-- snapshot) are written with COPY in bounded chunks, each committed in a transaction of its own, under a scan that
-- is still `running`; the scan becomes visible to readers once, when one last transaction marks it `succeeded`
-- (which also bumps the findings read generation). Readers resolve scans to succeeded ones, so a chunk committed
-- before that moment is never read as part of a result.
--   scan_store_attempts: the store attempt writing a running scan's rows (one per scan). A new attempt (another
--     process: a worker killed mid-store, a retried job) deletes the rows of the attempt before it and starts over;
--     the same attempt retrying after a lost connection keeps the chunks it committed. Deleted when the scan is
--     marked succeeded or failed (a failed scan's rows are deleted with it).
--   scan_store_chunks: the chunks an attempt committed, each in the transaction that wrote its rows: a chunk
--     listed here is written exactly once, whatever the connection did after its COMMIT.
-- Append-only: never edit once released (STYLE.md D.14).

CREATE TABLE scan_store_attempts (
  scan_id    uuid PRIMARY KEY REFERENCES scans (id) ON DELETE CASCADE,
  attempt    uuid NOT NULL,
  started_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE scan_store_chunks (
  scan_id   uuid NOT NULL REFERENCES scan_store_attempts (scan_id) ON DELETE CASCADE,
  part      text NOT NULL,
  chunk     integer NOT NULL CHECK (chunk >= 0),
  row_count integer NOT NULL CHECK (row_count >= 0),
  PRIMARY KEY (scan_id, part, chunk)
);

-- Down Migration
DROP TABLE scan_store_chunks;
DROP TABLE scan_store_attempts;
