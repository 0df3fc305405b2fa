-- Up Migration
--
-- Scoped API tokens (issue 11): `fa_<id>_<secret>` tokens whose secret is stored ONLY as a keyed hash
-- (HMAC-SHA-256 with a server key from the API's configuration, never stored here), with a role,
-- an account scope, a required expiry, last use and revocation; and an append-only audit table of
-- every token event. Anchors: Grafana service-account tokens (prefixed, checksummed, hash only;
-- grafana/grafana pkg/components/satokengen/tokengen.go), Prowler App API keys (expiry, roles
-- limited to groups of accounts). Append-only: never edit once released (STYLE.md D.14).

CREATE TABLE api_tokens (
  -- The public part of the token (12 lowercase base36 characters), also printed by `token list`.
  id           text PRIMARY KEY CHECK (id ~ '^[0-9a-z]{12}$'),
  name         text NOT NULL DEFAULT '',
  role         text NOT NULL CHECK (role IN ('viewer', 'operator', 'admin')),
  -- Alibaba Cloud account ids (UIDs) the token may read; NULL = every account.
  account_ids  text[],
  -- HMAC-SHA-256(server key, "<id>:<secret>"): 32 bytes. The secret itself is never stored.
  secret_hash  bytea NOT NULL CHECK (octet_length(secret_hash) = 32),
  created_at   timestamptz NOT NULL DEFAULT now(),
  -- Required (default 90 days, at most 365 days after creation; enforced by the application).
  expires_at   timestamptz NOT NULL,
  last_used_at timestamptz,
  revoked_at   timestamptz,
  -- Who created it: a token id, `bootstrap` (API_TOKEN) or `cli`.
  created_by   text NOT NULL
);

CREATE INDEX api_tokens_created_at_idx ON api_tokens (created_at DESC, id DESC);

-- One row per token event. No foreign key: a denied use may name an id that does not exist.
CREATE TABLE api_token_events (
  id             bigserial PRIMARY KEY,
  at             timestamptz NOT NULL DEFAULT now(),
  event          text NOT NULL CHECK (event IN ('created', 'revoked', 'denied')),
  token_id       text,
  -- Who acted: a token id, `bootstrap` or `cli` (NULL for denied uses).
  actor          text,
  client_address text,
  -- Why a use was denied (unknown, bad-secret, expired, revoked, forbidden); never the secret.
  reason         text
);

CREATE INDEX api_token_events_token_idx ON api_token_events (token_id, at DESC);

-- Down Migration
DROP TABLE api_token_events;
DROP TABLE api_tokens;
