/**
 * Reads one ACK cluster (CS 2015-12-15, ROA; research/alibaba-cloud-api.md section 2) and its
 * Kubernetes objects: the `cluster` crawl target. Datasets and their coverage, mirroring the
 * offline loader's per-cluster entries:
 *  - `cluster`: DescribeClusterDetail. If it fails the cluster's DescribeClustersV1 item (filtered
 *    by `cluster_id`) stands in for the detail (same flat fields, no `control_plane_config`) and
 *    the coverage says `failed`;
 *  - `addons`: ListClusterAddonInstances (`cloud-controller-manager` gives the CCM version);
 *  - `resources`: DescribeClusterResources (`ALIYUN::RAM::Role` entries name the cluster's roles);
 *  - `kubernetes`: DescribeClusterUserKubeconfig for the endpoint the scan config picks
 *    (cluster-endpoint.ts: `PrivateIpAddress` true for the intranet endpoint), one TCP dial of the
 *    kubeconfig's server (a failed dial is `failed` `EndpointUnreachable` naming the endpoint, its VPC
 *    and the fix), then the Kubernetes API (kubernetes.collector);
 *  - `sysctls`: node `net.ipv4.ip_local_port_range` via ECS Cloud Assistant (node-sysctls.collector)
 *    unless `collector.nodeSysctls` is false, then `absent`.
 * A 404 / `*NotFound` from an API is `absent` (nothing to read), as a missing file is offline.
 */
import {
  wireAddonsSchema,
  wireClusterDetailSchema,
  wireClusterResourcesSchema,
  type WireCluster,
  type WireClusterDetail,
  type WireKubernetes,
} from '@app/domain';
import { z } from 'zod';
import type { RegionClients } from './alibaba-clients.factory';
import { csSdk, dara } from './sdk-modules';
import { Absent, absentIfNotFound, aliCall, readDataset, type AccountScope } from './collect-scope.util';
import { CollectError, ScanAbortedError } from './collect-error.util';
import {
  chooseEndpoint,
  describeEndpoint,
  endpointFix,
  ENDPOINT_UNREACHABLE,
  type EndpointChoice,
  type EndpointModeChoice,
} from './cluster-endpoint';
import { dialServer, DialError } from './endpoint-probe.util';
import { loadKubeconfig, readKubernetes } from './kubernetes.collector';
import { readNodeSysctls } from './node-sysctls.collector';
import { listAt, stringAt, validateWire } from './wire-validate.util';

const runtime = () => new (dara().RuntimeOptions)({});

/** Datasets recorded per cluster (for progress planning). */
export const CLUSTER_DATASETS = 5;

/** Message of the `sysctls` coverage entry when Cloud Assistant reads are off (`collector.nodeSysctls: false`). */
export const SYSCTLS_NOT_COLLECTED =
  'not collected: node sysctl collection is opt-in (collector.nodeSysctls: true runs `sysctl -n net.ipv4.ip_local_port_range` on each node through Cloud Assistant)';

function absentOnNotFound<T>(
  read: (s: AccountScope) => Promise<T>,
): (s: AccountScope) => Promise<T | Absent> {
  return (s) => absentIfNotFound(() => read(s));
}

async function readKubernetesOf(
  scope: AccountScope,
  rc: RegionClients,
  clusterId: string,
  endpoint: EndpointChoice,
): Promise<WireKubernetes | Absent> {
  const target = `${scope.accountId}/${rc.regionId}/${clusterId}`;
  const resp = await absentIfNotFound(() =>
    aliCall(scope, 'DescribeClusterUserKubeconfig', target, () =>
      rc.cs.describeClusterUserKubeconfigWithOptions(
        clusterId,
        new (csSdk().DescribeClusterUserKubeconfigRequest)({
          privateIpAddress: endpoint.kind === 'intranet',
          temporaryDurationMinutes: 60,
        }),
        {},
        runtime(),
      ),
    ),
  );
  if (resp instanceof Absent) return resp;
  const config = stringAt(resp.body?.toMap(), 'config');
  if (!config)
    throw new CollectError(
      'InvalidResponse',
      `DescribeClusterUserKubeconfig ${target}: malformed response at $.config: expected a kubeconfig string`,
    );
  const kc = loadKubeconfig(config, target);
  const server = kc.getCurrentCluster();
  // A proxy in the kubeconfig dials for us: its own reachability is not the endpoint's.
  if (server && !server.proxyUrl) {
    try {
      await dialServer(server.server, Math.min(scope.settings.kubernetesTimeoutMs, DIAL_TIMEOUT_MS), scope.signal);
    } catch (e) {
      if (!(e instanceof DialError)) throw e;
      throw new CollectError(
        ENDPOINT_UNREACHABLE,
        `${target}: cannot reach the Kubernetes API server at its ${describeEndpoint(endpoint, server.server)}, ` +
          `chosen by ${endpoint.mode.from}: ${endpoint.mode.mode}: ${e.code}; ${endpointFix(endpoint)}`,
      );
    }
  }
  return absentIfNotFound(() =>
    readKubernetes(
      kc,
      target,
      scope.kubeRunner,
      {
        pageSize: scope.settings.pageSizes.kubernetes,
        timeoutMs: scope.settings.kubernetesTimeoutMs,
        maxRestarts: scope.settings.maxListRestarts,
        ...(scope.signal ? { signal: scope.signal } : {}),
      },
      scope.clients.secrets,
    ),
  );
}

/**
 * Longest wait for the TCP connection to an API server, milliseconds (capped by
 * `collector.kubernetesTimeoutMs`): a connection within the same region takes milliseconds, and an
 * address outside the network never connects, so waiting longer only delays the coverage gap.
 */
const DIAL_TIMEOUT_MS = 10_000;

/**
 * The stand-in detail of a cluster whose DescribeClusterDetail and list item could not be read
 * (its `cluster` coverage entry is `failed`): only the id and region are known, so the cluster
 * stays in the fleet (a CLB tagged with it is not taken for an orphan) with unknown type and name.
 */
export function placeholderDetail(clusterId: string, regionId: string): WireClusterDetail {
  return { cluster_id: clusterId, name: '', region_id: regionId, cluster_type: '' };
}

/** CS DescribeClustersV1 filtered to one cluster id: its list item, or undefined when not listed. */
async function listedCluster(
  scope: AccountScope,
  rc: RegionClients,
  clusterId: string,
): Promise<WireClusterDetail | undefined> {
  const target = `${scope.accountId}/${rc.regionId}/${clusterId}`;
  const resp = await aliCall(scope, 'DescribeClustersV1', target, () =>
    rc.cs.describeClustersV1WithOptions(
      new (csSdk().DescribeClustersV1Request)({ regionId: rc.regionId, clusterId, pageNumber: 1, pageSize: 10 }),
      {},
      runtime(),
    ),
  );
  const items = validateWire(
    z.array(wireClusterDetailSchema),
    listAt(resp.body?.toMap(), 'DescribeClustersV1', target, 'clusters'),
    'DescribeClustersV1',
    target,
    ['clusters'],
  );
  return items.find((c) => c.cluster_id === clusterId);
}

/**
 * Read one cluster's datasets and record their coverage.
 *
 * DescribeClusterDetail first. When it fails (after retries) the DescribeClustersV1 item of the
 * cluster (same flat fields, no `control_plane_config`) stands in for the detail, else
 * {@link placeholderDetail}; the `cluster` coverage entry is `failed` with the detail's error either
 * way, and the other datasets are still read.
 * @param endpointMode the scan config's endpoint mode of the cluster (cluster-endpoint.ts
 *   `endpointModeOf`), given the detail read; default `auto`
 * @returns the cluster, or undefined when CS says it no longer exists (404: deleted since it was
 *   listed; no coverage entries then)
 * @throws ScanAbortedError when cancelled
 */
export async function readCluster(
  scope: AccountScope,
  rc: RegionClients,
  clusterId: string,
  endpointMode: (detail: WireClusterDetail) => EndpointModeChoice = () => ({ mode: 'auto', from: 'clusters.kubernetesEndpoint' }),
): Promise<WireCluster | undefined> {
  const key = { accountId: scope.accountId, regionId: rc.regionId, clusterId };
  const target = `${scope.accountId}/${rc.regionId}/${clusterId}`;
  let detail: WireClusterDetail | undefined;
  try {
    const resp = await aliCall(scope, 'DescribeClusterDetail', target, () =>
      rc.cs.describeClusterDetailWithOptions(clusterId, {}, runtime()),
    );
    detail = validateWire(wireClusterDetailSchema, resp.body?.toMap() ?? {}, 'DescribeClusterDetail', target);
    scope.coverage.record({ ...key, api: 'cluster' }, 'ok');
  } catch (e) {
    if (e instanceof ScanAbortedError || scope.signal?.aborted) throw new ScanAbortedError();
    if (e instanceof CollectError && e.notFound) {
      // Deleted between the list and the detail call: no longer part of the fleet, no coverage lines.
      scope.coverage.unplan(CLUSTER_DATASETS);
      return undefined;
    }
    const ce =
      e instanceof CollectError
        ? e
        : new CollectError('InternalError', `DescribeClusterDetail ${target}: ${String(e)}`);
    try {
      detail = await listedCluster(scope, rc, clusterId);
    } catch (e2) {
      if (e2 instanceof ScanAbortedError || scope.signal?.aborted) throw new ScanAbortedError();
      detail = undefined; // the detail's own error is what the coverage reports
    }
    scope.coverage.record({ ...key, api: 'cluster' }, 'failed', {
      errorCode: ce.errorCode,
      message: ce.message,
    });
  }
  const out: WireCluster = { detail: detail ?? placeholderDetail(clusterId, rc.regionId) };
  const endpoint = chooseEndpoint(detail, endpointMode(out.detail));
  const [addons, resources, kubernetes] = await Promise.all([
    readDataset(
      scope,
      { ...key, api: 'addons' },
      absentOnNotFound(async (s) => {
        const resp = await aliCall(s, 'ListClusterAddonInstances', target, () =>
          rc.cs.listClusterAddonInstancesWithOptions(clusterId, {}, runtime()),
        );
        return validateWire(wireAddonsSchema, resp.body?.toMap() ?? {}, 'ListClusterAddonInstances', target);
      }),
    ),
    readDataset(
      scope,
      { ...key, api: 'resources' },
      absentOnNotFound(async (s) => {
        const resp = await aliCall(s, 'DescribeClusterResources', target, () =>
          rc.cs.describeClusterResourcesWithOptions(
            clusterId,
            new (csSdk().DescribeClusterResourcesRequest)({}),
            {},
            runtime(),
          ),
        );
        const body: unknown = dara().toMap(resp.body) as unknown;
        return validateWire(wireClusterResourcesSchema, body ?? [], 'DescribeClusterResources', target);
      }),
    ),
    readDataset(scope, { ...key, api: 'kubernetes' }, (s) => readKubernetesOf(s, rc, clusterId, endpoint)),
  ]);
  if (addons) out.addons = addons;
  if (resources) out.resources = resources;
  if (kubernetes) out.kubernetes = kubernetes;
  const sysctls = await readDataset(scope, { ...key, api: 'sysctls' }, async (s) =>
    s.settings.nodeSysctls
      ? readNodeSysctls(s, rc, clusterId, kubernetes)
      : new Absent(SYSCTLS_NOT_COLLECTED),
  );
  if (sysctls) out.nodeSysctls = sysctls;
  return out;
}
