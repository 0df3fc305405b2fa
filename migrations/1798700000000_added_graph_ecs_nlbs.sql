-- Up Migration
--
-- ECS instance -> NLB links in the fleet graph (issue 20): the NLB server groups listing an ECS instance (as an
-- Ecs server or by one of its private IPs; groups no NLB uses included) and the NLBs using those groups. Columns
-- follow the declaration GRAPH_ECS_INSTANCE (libs/domain fleet-graph.resources.ts). Empty on graphs stored before
-- this migration. Append-only (STYLE.md D.14).

ALTER TABLE graph_ecs_instances
  ADD COLUMN nlb_server_group_ids text[] NOT NULL DEFAULT '{}',
  ADD COLUMN nlb_ids              text[] NOT NULL DEFAULT '{}';

-- Down Migration
ALTER TABLE graph_ecs_instances DROP COLUMN nlb_ids, DROP COLUMN nlb_server_group_ids;
