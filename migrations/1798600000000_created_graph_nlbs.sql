-- Up Migration
--
-- NLBs in the fleet graph of each succeeded scan (issue 20 item 5): REST /v1/nlbs, /v1/nlbs/{id} and GraphQL
-- `nlbs` / `nlb(id)` / `Service.nlb`. Written with the rest of the graph (FleetGraphRepository.replaceForScan,
-- in ScanRepository.complete's transaction), deleted with the scan. Columns follow the declaration GRAPH_NLB
-- (libs/domain fleet-graph.resources.ts). An NLB's listeners and its server groups with their servers are one
-- jsonb value each: bounded (an NLB holds at most 400 server entries, research/nlb.md 5: nlb_quota_backends_num),
-- so one row per NLB. Keys COLLATE "C" like migration 1797300000000. Append-only (STYLE.md D.14).

CREATE TABLE graph_nlbs (
  scan_id            uuid NOT NULL REFERENCES scans (id) ON DELETE CASCADE,
  nlb_id             text COLLATE "C" NOT NULL,
  account_id         text COLLATE "C" NOT NULL,
  region_id          text COLLATE "C" NOT NULL,
  name               text,
  -- Internet | Intranet; ipv4 | DualStack (as the NLB API spells them).
  address_type       text,
  address_ip_version text,
  vpc_id             text,
  dns_name           text,
  zone_ids           text[] NOT NULL,
  status             text,
  create_time        text,
  -- ccm (tagged kubernetes.do.not.delete) | reused (named by a Service's id annotation or tagged
  -- kubernetes.reused.by.user) | console (neither).
  owner              text NOT NULL CHECK (owner IN ('ccm', 'reused', 'console')),
  -- [{listenerId, protocol, port, startPort, endPort, serverGroupId, description, status}]
  listeners          jsonb NOT NULL,
  listener_count     integer NOT NULL,
  -- [{serverGroupId, name, type, protocol, status, serverCount, servers: [{serverId, serverIp, type, port, weight, status, zoneId}]}]
  server_groups      jsonb NOT NULL,
  server_group_count integer NOT NULL,
  server_entries     integer NOT NULL,
  distinct_servers   integer NOT NULL,
  service_count      integer NOT NULL,
  cluster_ids        text[] NOT NULL,
  PRIMARY KEY (scan_id, nlb_id)
);

-- Services of NLB class: which controller takes them (clb | nlb | NULL), the NLB CCM's FindNLB finds and how
-- (id | tag | name). NULL on graphs stored before this migration.
ALTER TABLE graph_services
  ADD COLUMN load_balancer_kind text,
  ADD COLUMN nlb_id             text COLLATE "C",
  ADD COLUMN nlb_match          text;

-- The Services using an NLB.
CREATE INDEX graph_services_nlb_idx ON graph_services (scan_id, nlb_id, cluster_id, namespace, name) WHERE nlb_id IS NOT NULL;

-- Down Migration
DROP INDEX graph_services_nlb_idx;
ALTER TABLE graph_services DROP COLUMN nlb_match, DROP COLUMN nlb_id, DROP COLUMN load_balancer_kind;
DROP TABLE graph_nlbs;
