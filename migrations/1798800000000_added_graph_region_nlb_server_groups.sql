-- Up Migration
--
-- NLB server groups per region in the fleet graph (issue 20): how many the region has (what the fixed 3,000
-- nlb_quota_servergroups_num counts; NULL when its NLBs were not read, and on graphs stored before this migration)
-- and those no NLB uses (leaked by CCM before v2.12.4, or kept by preserve-lb-on-delete), one jsonb list per
-- region: [{serverGroupId, name, type, protocol, status, ownerTag, serverCount, servers: [...]}]. Served by
-- GET /v1/nlb-server-groups/unused and GraphQL Region.unusedNlbServerGroups. Columns follow the declaration
-- GRAPH_REGION (libs/domain fleet-graph.resources.ts). Append-only (STYLE.md D.14).

ALTER TABLE graph_regions
  ADD COLUMN nlb_server_group_count   integer,
  ADD COLUMN unused_nlb_server_groups jsonb NOT NULL DEFAULT '[]';

-- Down Migration
ALTER TABLE graph_regions DROP COLUMN unused_nlb_server_groups, DROP COLUMN nlb_server_group_count;
