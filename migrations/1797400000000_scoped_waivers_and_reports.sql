-- Up Migration
--
-- Waivers and reports read through the account-scope filter in SQL (issue 11, one policy layer):
--  * waivers.created_by_token: the id of the fa_ token that created the waiver (NULL when made by the
--    bootstrap API_TOKEN, the CLI or before this migration). Viewers and operators may change or revoke
--    only the waivers their own token created; admins any waiver in their scope.
--  * waivers (account_id) index: a scoped token's listing filters on it.
--  * reports.account_ids: the accounts a stored report covers, derived from scope_key (`all` -> NULL,
--    else the comma-separated sorted UIDs). A token scoped to some accounts sees a report only when
--    every account of the report is in its scope (account_ids <@ scope); `all` reports need an
--    all-accounts token.
-- Append-only: never edit once released (STYLE.md D.14).

ALTER TABLE waivers ADD COLUMN created_by_token text;

CREATE INDEX waivers_account_idx ON waivers (account_id, created_at, id);

ALTER TABLE reports ADD COLUMN account_ids text[]
  GENERATED ALWAYS AS (CASE WHEN scope_key = 'all' THEN NULL ELSE string_to_array(scope_key, ',') END) STORED;

CREATE INDEX reports_account_ids_idx ON reports USING gin (account_ids);

-- Down Migration
DROP INDEX reports_account_ids_idx;
ALTER TABLE reports DROP COLUMN account_ids;
DROP INDEX waivers_account_idx;
ALTER TABLE waivers DROP COLUMN created_by_token;
