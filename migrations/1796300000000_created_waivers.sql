-- Up Migration
--
-- Waivers (issue 12): an owned, expiring exception to one check for some resources of one account
-- (optionally one region / cluster; resource = exact id or a glob). Findings are never deleted or
-- changed: waivers are applied when findings are read (REST, /metrics, CLI, reports), so creating,
-- revoking or expiring one changes what users see at once. Rules (reason >= 10 characters, expiry at
-- most 180 days ahead, default 90) are checked by the service (libs/domain waiver.schemas.ts); the
-- table keeps the invariants that never depend on the clock.
-- Append-only: never edit once released (STYLE.md D.14).

CREATE TABLE waivers (
  id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  check_id    text NOT NULL,
  account_id  text NOT NULL,
  region_id   text,
  cluster_id  text,
  -- Exact resource id or a glob (`*`, `?`) over it.
  resource    text NOT NULL,
  owner       text NOT NULL CHECK (owner <> ''),
  reason      text NOT NULL CHECK (char_length(reason) >= 10),
  category    text NOT NULL CHECK (category IN ('accepted-risk', 'mitigated', 'false-positive')),
  ticket      text,
  created_by  text NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  expires_at  timestamptz NOT NULL CHECK (expires_at > created_at),
  revoked_at  timestamptz,
  revoked_by  text,
  -- Bumped by every change; the history row of each change carries it.
  version     integer NOT NULL DEFAULT 1
);

-- Read-time application: the waivers of the checks a read touches.
CREATE INDEX waivers_check_idx ON waivers (check_id) WHERE revoked_at IS NULL;

-- Append-only history of every change (created, updated, revoked) with the waiver as it was after it.
CREATE TABLE waiver_history (
  id         bigserial PRIMARY KEY,
  waiver_id  uuid NOT NULL REFERENCES waivers (id),
  version    integer NOT NULL,
  action     text NOT NULL CHECK (action IN ('created', 'updated', 'revoked')),
  actor      text NOT NULL,
  at         timestamptz NOT NULL,
  waiver     jsonb NOT NULL,
  UNIQUE (waiver_id, version)
);

-- The history cannot be rewritten: UPDATE and DELETE are refused.
CREATE FUNCTION waiver_history_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'waiver_history is append-only';
END;
$$;
CREATE TRIGGER waiver_history_no_update BEFORE UPDATE OR DELETE ON waiver_history
  FOR EACH ROW EXECUTE FUNCTION waiver_history_append_only();

-- Down Migration
DROP TABLE waiver_history;
DROP FUNCTION waiver_history_append_only();
DROP TABLE waivers;
