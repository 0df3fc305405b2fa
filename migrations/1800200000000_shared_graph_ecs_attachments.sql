-- Up Migration
--
-- The ECS rows of the fleet graph hold their attachments by reference. An ECS instance's CLB ids, NLB server-group ids
-- and NLB ids (distinct, sorted lists) are the same for most nodes of a cluster: in Cluster mode (externalTrafficPolicy:
-- Cluster) CCM adds every node as a backend of every CLB of the cluster. Stored as three text[] values per instance,
-- they were most of an ECS row at 500 clusters (50,000 rows of 1.04 KB, 14.5 CLB ids each on average, and 1,064
-- distinct (account, region, lists) among them), and PostgreSQL parses a text[] of COPY's text format element by
-- element.
--   graph_ecs_attachments: one row per distinct (account, region, CLB ids, NLB server-group ids, NLB ids) of a scan's
--     ECS instances, numbered `attachment_set` within the scan (the writer numbers them: libs/store
--     fleet-graph.repository.ts; a shard of a sharded scan writes one account and region, so its numbers never meet
--     another shard's).
--   graph_ecs_instances.attachment_set: its row there; NULL when the instance has none of the three (no CLB, no NLB).
--   graph_ecs_instances.load_balancer_count: how many CLB ids its list holds (the REST min/maxLoadBalancers filter).
-- Readers join the two (the API answers as before). Rows already stored move here: one set per distinct lists.
-- Deleted with the scan (ON DELETE CASCADE) and by retention's pruning (libs/store retention.repository.ts).
-- Key columns COLLATE "C" like migration 1797300000000. Append-only: never edit once released (STYLE.md D.14).

CREATE TABLE graph_ecs_attachments (
  scan_id              uuid NOT NULL REFERENCES scans (id) ON DELETE CASCADE,
  account_id           text COLLATE "C" NOT NULL,
  region_id            text COLLATE "C" NOT NULL,
  attachment_set       integer NOT NULL,
  load_balancer_ids    text[] NOT NULL,
  nlb_server_group_ids text[] NOT NULL,
  nlb_ids              text[] NOT NULL,
  PRIMARY KEY (scan_id, account_id, region_id, attachment_set)
);

ALTER TABLE graph_ecs_instances
  ADD COLUMN attachment_set      integer,
  ADD COLUMN load_balancer_count integer NOT NULL DEFAULT 0;

INSERT INTO graph_ecs_attachments (scan_id, account_id, region_id, attachment_set, load_balancer_ids, nlb_server_group_ids, nlb_ids)
SELECT scan_id, account_id, region_id,
       row_number() OVER (PARTITION BY scan_id ORDER BY account_id, region_id, load_balancer_ids, nlb_server_group_ids, nlb_ids)::integer,
       load_balancer_ids, nlb_server_group_ids, nlb_ids
  FROM (SELECT DISTINCT scan_id, account_id, region_id, load_balancer_ids, nlb_server_group_ids, nlb_ids
          FROM graph_ecs_instances
         WHERE cardinality(load_balancer_ids) > 0 OR cardinality(nlb_server_group_ids) > 0 OR cardinality(nlb_ids) > 0) d;

UPDATE graph_ecs_instances e
   SET load_balancer_count = cardinality(e.load_balancer_ids),
       attachment_set = a.attachment_set
  FROM graph_ecs_attachments a
 WHERE a.scan_id = e.scan_id AND a.account_id = e.account_id AND a.region_id = e.region_id
   AND a.load_balancer_ids = e.load_balancer_ids AND a.nlb_server_group_ids = e.nlb_server_group_ids AND a.nlb_ids = e.nlb_ids;

ALTER TABLE graph_ecs_instances
  DROP COLUMN load_balancer_ids,
  DROP COLUMN nlb_server_group_ids,
  DROP COLUMN nlb_ids;

-- Down Migration
ALTER TABLE graph_ecs_instances
  ADD COLUMN load_balancer_ids    text[] NOT NULL DEFAULT '{}',
  ADD COLUMN nlb_server_group_ids text[] NOT NULL DEFAULT '{}',
  ADD COLUMN nlb_ids              text[] NOT NULL DEFAULT '{}';
UPDATE graph_ecs_instances e
   SET load_balancer_ids = a.load_balancer_ids, nlb_server_group_ids = a.nlb_server_group_ids, nlb_ids = a.nlb_ids
  FROM graph_ecs_attachments a
 WHERE a.scan_id = e.scan_id AND a.account_id = e.account_id AND a.region_id = e.region_id AND a.attachment_set = e.attachment_set;
ALTER TABLE graph_ecs_instances ALTER COLUMN load_balancer_ids DROP DEFAULT;
ALTER TABLE graph_ecs_instances DROP COLUMN load_balancer_count, DROP COLUMN attachment_set;
DROP TABLE graph_ecs_attachments;
