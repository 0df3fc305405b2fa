-- Up Migration
--
-- The fleet graph of each succeeded scan (issue 11 item 3): what the API serves as a graph (GraphQL
-- accounts -> regions -> clusters -> Services -> CLB -> vServer groups -> backends -> ECS, REST
-- /v1/clusters, /v1/load-balancers/{id}, /v1/ecs-instances/{id}). Derived from the scan's FleetSnapshot
-- (libs/checks fleet-graph.ts) and written in the same transaction as the scan's findings
-- (ScanRepository.complete), replaced when a scan is completed again; deleted with the scan.
-- Quota use per resource is not repeated here: it is `quota_usage`.
--
-- Every table carries account_id (and region_id) so the one policy layer (libs/store principal.ts)
-- filters in SQL. Primary keys start with scan_id and end with the row's sort key, so they serve the
-- keyset pages (scan_id, key) of the API; key columns use COLLATE "C" (byte order: the same order in
-- every database whatever its default collation, and the order the application sorts in). Bounded size: backend servers are stored per server group as
-- one compact JSON text per group (one row per group, not one per backend entry), so a 1M-backend fleet writes tens of
-- thousands of rows, not a million. Append-only: never edit once released (STYLE.md D.14).

CREATE TABLE graph_regions (
  scan_id             uuid NOT NULL REFERENCES scans (id) ON DELETE CASCADE,
  account_id          text COLLATE "C" NOT NULL,
  region_id           text COLLATE "C" NOT NULL,
  account_name        text NOT NULL,
  cluster_count       integer NOT NULL,
  -- NULL: the region's CLB instances / ECS instances were not read.
  load_balancer_count integer,
  ecs_instance_count  integer,
  PRIMARY KEY (scan_id, account_id, region_id)
);

CREATE TABLE graph_clusters (
  scan_id                     uuid NOT NULL REFERENCES scans (id) ON DELETE CASCADE,
  cluster_id                  text COLLATE "C" NOT NULL,
  account_id                  text COLLATE "C" NOT NULL,
  region_id                   text COLLATE "C" NOT NULL,
  name                        text NOT NULL,
  cluster_type                text NOT NULL,
  cluster_spec                text,
  state                       text,
  current_version             text,
  ccm_version                 text,
  network_plugin              text NOT NULL,
  vpc_id                      text,
  api_server_load_balancer_id text,
  -- NULL: the cluster's Kubernetes objects were not read.
  node_count                  integer,
  service_count               integer,
  PRIMARY KEY (scan_id, cluster_id)
);

-- accounts -> regions -> clusters: the clusters of one region in key order.
CREATE INDEX graph_clusters_region_idx ON graph_clusters (scan_id, account_id, region_id, cluster_id);

-- Services of type LoadBalancer.
CREATE TABLE graph_services (
  scan_id                 uuid NOT NULL REFERENCES scans (id) ON DELETE CASCADE,
  cluster_id              text COLLATE "C" NOT NULL,
  namespace               text COLLATE "C" NOT NULL,
  name                    text COLLATE "C" NOT NULL,
  account_id              text COLLATE "C" NOT NULL,
  region_id               text COLLATE "C" NOT NULL,
  uid                     text NOT NULL,
  load_balancer_class     text,
  -- Backend mode CCM applies: cluster | local | eni; NULL for non-CLB Services (NLB, other classes).
  mode                    text,
  external_traffic_policy text,
  -- [{name, protocol, port, nodePort, targetPort}]
  ports                   jsonb NOT NULL,
  ingress                 text[] NOT NULL,
  -- The CLB the Service uses (in the snapshot), and how it was found: annotation | label | tag.
  load_balancer_id        text COLLATE "C",
  load_balancer_match     text,
  PRIMARY KEY (scan_id, cluster_id, namespace, name)
);

-- The Services sharing a CLB.
CREATE INDEX graph_services_lb_idx ON graph_services (scan_id, load_balancer_id, cluster_id, namespace, name) WHERE load_balancer_id IS NOT NULL;

CREATE TABLE graph_load_balancers (
  scan_id               uuid NOT NULL REFERENCES scans (id) ON DELETE CASCADE,
  load_balancer_id      text COLLATE "C" NOT NULL,
  account_id            text COLLATE "C" NOT NULL,
  region_id             text COLLATE "C" NOT NULL,
  name                  text NOT NULL,
  address_type          text NOT NULL,
  address               text,
  vpc_id                text,
  spec                  text,
  status                text,
  create_time           text,
  -- ccm (tagged kubernetes.do.not.delete) | reused (named by a Service annotation or tagged
  -- kubernetes.reused.by.user) | console (neither).
  owner                 text NOT NULL CHECK (owner IN ('ccm', 'reused', 'console')),
  -- The cluster whose API server this CLB is (external_loadbalancer_id), if any.
  api_server_cluster_id text,
  -- [{port, protocol, vServerGroupId, forwardPort, description}]
  listeners             jsonb NOT NULL,
  listener_count        integer NOT NULL,
  vserver_group_count   integer NOT NULL,
  backend_entries       integer NOT NULL,
  distinct_backends     integer NOT NULL,
  service_count         integer NOT NULL,
  cluster_ids           text[] NOT NULL,
  PRIMARY KEY (scan_id, load_balancer_id)
);

-- One row per server group of a CLB: the default server group (is_default, vserver_group_id '') and
-- every vServer group, with its backends in one compact JSON text value.
CREATE TABLE graph_server_groups (
  scan_id          uuid NOT NULL REFERENCES scans (id) ON DELETE CASCADE,
  load_balancer_id text COLLATE "C" NOT NULL,
  vserver_group_id text COLLATE "C" NOT NULL,
  is_default       boolean NOT NULL,
  name             text NOT NULL,
  account_id       text COLLATE "C" NOT NULL,
  region_id        text COLLATE "C" NOT NULL,
  backend_count    integer NOT NULL,
  -- JSON text (not jsonb: stored as written, no parse on insert): an array of
  -- [serverId, serverIp|null, port|null, weight, type] in the CLB's order.
  backends         text NOT NULL,
  PRIMARY KEY (scan_id, load_balancer_id, vserver_group_id)
);

CREATE TABLE graph_ecs_instances (
  scan_id             uuid NOT NULL REFERENCES scans (id) ON DELETE CASCADE,
  instance_id         text COLLATE "C" NOT NULL,
  account_id          text COLLATE "C" NOT NULL,
  region_id           text COLLATE "C" NOT NULL,
  name                text,
  zone_id             text,
  status              text,
  instance_type       text,
  vpc_id              text,
  private_ips         text[] NOT NULL,
  -- The Kubernetes node backed by this instance (providerID), if any.
  cluster_id          text COLLATE "C",
  node_name           text,
  -- The CLBs of its region listing it as an `ecs` backend (distinct, sorted) and the group count.
  load_balancer_ids   text[] NOT NULL,
  server_group_count  integer NOT NULL,
  PRIMARY KEY (scan_id, instance_id)
);

-- ecsInstances(attachedOnly) and REST filters by cluster.
CREATE INDEX graph_ecs_instances_cluster_idx ON graph_ecs_instances (scan_id, cluster_id, instance_id) WHERE cluster_id IS NOT NULL;

-- Down Migration
DROP TABLE graph_ecs_instances;
DROP TABLE graph_server_groups;
DROP TABLE graph_load_balancers;
DROP TABLE graph_services;
DROP TABLE graph_clusters;
DROP TABLE graph_regions;
