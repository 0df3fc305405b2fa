-- Up Migration
--
-- The fleet graph knows each cluster's team (libs/domain owners.ts: the audit settings' `owners`, else the
-- cluster's team tag), so the graph answers carry it and a team-scoped token reads the graph of its clusters:
--   graph_clusters.team: the owning team; NULL for an unowned cluster and for graphs stored before this migration.
-- What a team-scoped token sees of the other graph tables follows from it in SQL (libs/store team-scope.util.ts):
-- rows of its clusters, and account / region rows where it owns a cluster. The index serves that lookup (the
-- clusters of some teams in one scan).
-- Append-only: never edit once released (STYLE.md D.14).

ALTER TABLE graph_clusters ADD COLUMN team text;
CREATE INDEX graph_clusters_scan_team_idx ON graph_clusters (scan_id, team, account_id, region_id) WHERE team IS NOT NULL;

-- Down Migration

DROP INDEX graph_clusters_scan_team_idx;
ALTER TABLE graph_clusters DROP COLUMN team;
