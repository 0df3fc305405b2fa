-- Up Migration
--
-- A CLB server group's backend servers held by reference. In Cluster mode (externalTrafficPolicy: Cluster) CCM adds
-- every node of the cluster to every vServer group of its CLBs, in the same order, at another port, each with the
-- same `default-weight` (research/ccm-behaviour.md 2.3-2.4, CCM clbv1/vgroups.go): the 2,000-cluster bench scan's
-- 30,866 server groups held 4M backend entries as 165 MB of JSON text, of which PostgreSQL's COPY took 1.2-1.4 s
-- (0.19 s for the same rows without them), beside the process's cost of writing that text.
--   graph_server_lists: one row per distinct backend servers (id and IP, in order) of a scan's (account, region),
--     numbered `server_list` within the account and region (the writer numbers them: libs/store
--     fleet-graph.repository.ts `serverGroupRows`; a shard of a sharded scan writes one account and region, so its
--     numbers never meet another shard's). `servers` is packed JSON text: `[["serverId","serverIp"],...]`.
--   graph_server_groups.server_list: its row there, when every backend of the group shares one port, weight and type
--     (`backend_port`, `backend_weight`, `backend_type`: the common case, Cluster mode); `backends` is then NULL.
--     Otherwise `backends` holds the group's backends inline as before, and `server_list` and the three are NULL.
--     Rows stored before keep the inline form; readers take both.
-- No foreign key to scans, like the other bulk per-scan tables (migration 1800200000002): deleted with the scan by
-- retention (libs/store retention.repository.ts PRUNED_SCAN_TABLES) and by a discarded store (scan-store.ts
-- STAGED_TABLES). Key columns COLLATE "C" like migration 1797300000000; lz4 where the server has it, as migration
-- 1800200000001 set it. Append-only: never edit once released (STYLE.md D.14).

CREATE TABLE graph_server_lists (
  scan_id     uuid NOT NULL,
  account_id  text COLLATE "C" NOT NULL,
  region_id   text COLLATE "C" NOT NULL,
  server_list integer NOT NULL,
  servers     text NOT NULL,
  PRIMARY KEY (scan_id, account_id, region_id, server_list)
);

ALTER TABLE graph_server_groups
  ALTER COLUMN backends DROP NOT NULL,
  ADD COLUMN server_list    integer,
  ADD COLUMN backend_port   integer,
  ADD COLUMN backend_weight integer,
  ADD COLUMN backend_type   text,
  ADD CONSTRAINT graph_server_groups_backends_form CHECK ((backends IS NULL) <> (server_list IS NULL));

DO $$
BEGIN
  ALTER TABLE graph_server_lists ALTER COLUMN servers SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported THEN
  NULL;
END $$;

-- Down Migration
-- Groups held by reference get their backends inline again, in the text the store wrote before this migration
-- (`[["serverId","serverIp",port,weight,"type"],...]`, JSON.stringify's form: the servers' JSON values as stored).
ALTER TABLE graph_server_groups DROP CONSTRAINT graph_server_groups_backends_form;

UPDATE graph_server_groups g
   SET backends = COALESCE((
         SELECT '[' || string_agg(format('[%s,%s,%s,%s,%s]', s -> 0, s -> 1,
                                         COALESCE(g.backend_port::text, 'null'), COALESCE(g.backend_weight::text, 'null'),
                                         COALESCE(to_json(g.backend_type)::text, 'null')), ',' ORDER BY o) || ']'
           FROM graph_server_lists l
          CROSS JOIN LATERAL json_array_elements(l.servers::json) WITH ORDINALITY AS t (s, o)
          WHERE l.scan_id = g.scan_id AND l.account_id = g.account_id AND l.region_id = g.region_id
            AND l.server_list = g.server_list), '[]')
 WHERE g.server_list IS NOT NULL;

ALTER TABLE graph_server_groups
  DROP COLUMN server_list,
  DROP COLUMN backend_port,
  DROP COLUMN backend_weight,
  DROP COLUMN backend_type,
  ALTER COLUMN backends SET NOT NULL;

DROP TABLE graph_server_lists;
