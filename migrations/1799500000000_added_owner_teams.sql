-- Up Migration
--
-- Owners: the team owning a cluster (libs/domain owners.ts `teamOf`: the audit settings' `owners`, else the
-- cluster's team tag), carried on what is read per cluster, and tokens scoped to teams.
--   findings.team, quota_usage.team: the team of the finding's / sample's cluster when it has one; NULL for
--     resources outside a cluster (an account's region quota, a CLB no cluster claims) and for rows stored before
--     this migration. A team-scoped token sees only rows of its teams (NULL rows are outside every team).
--   api_tokens.team_names: the teams a token may read (NULL: every team). A team-scoped token also lists its
--     accounts (api_tokens.account_ids), so everything read per account stays bounded by them.
-- The indexes serve the `team=` filters and team-scoped reads of one scan.
-- Append-only: never edit once released (STYLE.md D.14).

ALTER TABLE findings ADD COLUMN team text;
ALTER TABLE quota_usage ADD COLUMN team text;
ALTER TABLE api_tokens ADD COLUMN team_names text[];
CREATE INDEX findings_scan_team_idx ON findings (scan_id, team) WHERE team IS NOT NULL;
CREATE INDEX quota_usage_scan_team_idx ON quota_usage (scan_id, team) WHERE team IS NOT NULL;

-- Down Migration

DROP INDEX quota_usage_scan_team_idx;
DROP INDEX findings_scan_team_idx;
ALTER TABLE api_tokens DROP COLUMN team_names;
ALTER TABLE quota_usage DROP COLUMN team;
ALTER TABLE findings DROP COLUMN team;
