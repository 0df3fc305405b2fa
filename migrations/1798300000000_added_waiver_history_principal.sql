-- Up Migration
--
-- The waiver audit trail records who was authenticated (issue 23 item 6). Before, `actor` was whatever the
-- client sent (`createdBy`, `updatedBy`, `?by=`), so an operator could write any name into the history and the
-- token that made a change was recorded nowhere. From now on `actor` is the authenticated principal
-- (`token:<id>`, `bootstrap`, or the local user of the CLI), with the token's id and name in their own columns,
-- and a name the client gave is kept only in `stated_by`, labelled as such. Rows written before keep NULLs.
-- Append-only: never edit once released (STYLE.md D.14).

ALTER TABLE waiver_history ADD COLUMN actor_token_id text;
ALTER TABLE waiver_history ADD COLUMN actor_token_name text;
ALTER TABLE waiver_history ADD COLUMN stated_by text;

-- Down Migration
ALTER TABLE waiver_history DROP COLUMN stated_by;
ALTER TABLE waiver_history DROP COLUMN actor_token_name;
ALTER TABLE waiver_history DROP COLUMN actor_token_id;
