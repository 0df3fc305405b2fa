-- Up Migration
--
-- Quota Center applications filed by `fleet-audit quota request --apply` (libs/store quota-application.repository.ts):
-- one row per application, written as `submitting` before CreateQuotaApplication is called and completed with Quota
-- Center's ApplicationId and status after it answers, so a run stopped in between is found by the next one (which
-- reconciles it with ListQuotaApplications instead of filing again). Statuses: submitting, Process, Agree, Disagree,
-- Cancel (Quota Center's), failed (the call was refused; `error` says why).
--   quota_applications_open: at most one open application (submitting or in review) per account, region and quota,
--   so two runs at once cannot both file one.
-- Append-only: never edit once released (STYLE.md D.14).

CREATE TABLE quota_applications (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  account_id text NOT NULL,
  region_id text NOT NULL,
  product_code text NOT NULL,
  quota_action_code text NOT NULL,
  application_id text UNIQUE,
  status text NOT NULL CHECK (status IN ('submitting', 'Process', 'Agree', 'Disagree', 'Cancel', 'failed')),
  desire_value double precision NOT NULL CHECK (desire_value > 0),
  approve_value double precision,
  audit_reason text,
  reason text NOT NULL,
  requested_by text NOT NULL,
  plan_row jsonb NOT NULL,
  error text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX quota_applications_open ON quota_applications (account_id, region_id, product_code, quota_action_code)
  WHERE status IN ('submitting', 'Process');
CREATE INDEX quota_applications_created_idx ON quota_applications (created_at DESC);

-- Down Migration

DROP TABLE quota_applications;
