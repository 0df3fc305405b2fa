-- Up Migration
--
-- Weekly compliance reports (issue 12): one row per (period, scope), claimed by INSERT ... ON CONFLICT DO
-- NOTHING, so with several workers firing the same cron tick exactly one builds the report. The document
-- is the report model (libs/reports, schema docs/schemas/report.schema.json); renders are made from it on
-- request. Webhook delivery state is kept on the row: a failed delivery is visible, never dropped.
-- Append-only: never edit once released (STYLE.md D.14).

CREATE TABLE reports (
  id                uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  -- The period this report is for: the cron tick (ISO 8601, minute precision) or `manual:<uuid>`.
  period_key        text NOT NULL,
  -- `all`, or the sorted account UIDs joined by commas.
  scope_key         text NOT NULL,
  status            text NOT NULL DEFAULT 'building' CHECK (status IN ('building', 'ready', 'failed')),
  created_at        timestamptz NOT NULL DEFAULT now(),
  finished_at       timestamptz,
  period_start      timestamptz,
  period_end        timestamptz,
  scan_id           uuid,
  -- report.summary (counts) for listings; the whole document below.
  summary           jsonb,
  document          jsonb,
  error             text,
  delivery_status   text NOT NULL DEFAULT 'none' CHECK (delivery_status IN ('none', 'pending', 'delivered', 'failed')),
  delivery_attempts integer NOT NULL DEFAULT 0,
  delivery_error    text,
  delivered_at      timestamptz,
  UNIQUE (period_key, scope_key)
);

CREATE INDEX reports_created_at_idx ON reports (created_at DESC, id DESC);

-- Down Migration
DROP TABLE reports;
