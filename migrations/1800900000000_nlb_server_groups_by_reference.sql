-- Up Migration
--
-- An NLB server group's servers held by reference, as a CLB server group's backends are (migration 1800700000000).
-- CCM adds every node of a Cluster-mode Service's cluster to each server group of its NLB, at the NodePort, with one
-- weight (research/nlb.md; CCM nlbv2/server_groups.go `buildClusterBackends`), so the servers of a cluster's NLB server
-- groups repeat each other: the 5,000-cluster bench scan's 27,500 NLBs held their servers as 185 MB of packed text
-- (`graph_nlbs.server_groups`, migration 1800600000000), written and compressed again for every NLB.
--   graph_nlbs.server_groups: a group whose servers share type, port, weight and status holds, in the place of its
--     servers' array, `{"serverList":n,"type":...,"port":...,"weight":...,"status":...}`: its servers' ids, IPs and
--     zones (each server's own) are row `n` of `graph_server_lists` of the NLB's scan, account and region, as
--     `["serverId","serverIp","zoneId"]` (a CLB list's servers have no zone: `["serverId","serverIp"]`), numbered with
--     the CLB server groups' lists (libs/store fleet-graph.repository.ts `ServerLists`). Other groups keep their
--     servers inline.
--   graph_nlbs.server_lists: the list numbers its groups name, distinct and ascending (NULL: none), which reads join.
-- Rows stored before keep the inline form (server_lists NULL); readers take both. Retention and a discarded store
-- delete `graph_server_lists` rows with their scan already. Append-only: never edit once released (STYLE.md D.14).

ALTER TABLE graph_nlbs ADD COLUMN server_lists integer[];

-- Down Migration
-- Groups held by reference get their servers inline again, in the text the store wrote before this migration (each
-- server `["serverId","serverIp","type",port,weight,"status","zoneId"]`, JSON.stringify's form: the JSON values as
-- stored). Lists no CLB server group names stay in `graph_server_lists` (unread before this migration; dropped with
-- their scan).
UPDATE graph_nlbs n
   SET server_groups = (
         SELECT '[' || string_agg(
                  CASE WHEN json_typeof(grp -> 7) = 'object' THEN
                    '[' || (SELECT string_agg(e::text, ',' ORDER BY o) FROM json_array_elements(grp) WITH ORDINALITY AS f (e, o) WHERE o <= 7) || ',' ||
                    COALESCE((
                      SELECT '[' || string_agg(format('[%s,%s,%s,%s,%s,%s,%s]', s -> 0, s -> 1, grp -> 7 -> 'type', grp -> 7 -> 'port',
                                                      grp -> 7 -> 'weight', grp -> 7 -> 'status', COALESCE(s -> 2, 'null'::json)), ',' ORDER BY so) || ']'
                        FROM graph_server_lists l
                       CROSS JOIN LATERAL json_array_elements(l.servers::json) WITH ORDINALITY AS t (s, so)
                       WHERE l.scan_id = n.scan_id AND l.account_id = n.account_id AND l.region_id = n.region_id
                         AND l.server_list = (grp -> 7 ->> 'serverList')::int), '[]') || ']'
                  ELSE grp::text END, ',' ORDER BY go) || ']'
           FROM json_array_elements(n.server_groups::json) WITH ORDINALITY AS g (grp, go))
 WHERE n.server_lists IS NOT NULL;

ALTER TABLE graph_nlbs DROP COLUMN server_lists;
