/**
 * CS (ACK) 2015-12-15, ROA (real method and path, snake_case bodies).
 *
 * Source: `research/alibaba-cloud-api.md` section 2 and the @alicloud/cs20151215 7.2.0 client
 * (paths) and models (`research/sdk-model-shapes.txt`):
 * - `GET /api/v1/clusters` DescribeClustersV1: `page_number` (default 1), `page_size`
 *   (default 10, at most 100: larger values are clamped), filters `region_id`, `cluster_type`,
 *   `cluster_spec`, `profile`, `cluster_id`, `name` (substring); body `{clusters, page_info}`;
 * - `GET /clusters` DescribeClusters (old): bare array of the same items;
 * - `GET /clusters/{ClusterId}` DescribeClusterDetail: the stored `cluster.json`;
 * - `GET /k8s/{ClusterId}/user_config` DescribeClusterUserKubeconfig: `{config, expiration}`;
 *   `TemporaryDurationMinutes` (15-4320) sets the expiry, default three years; `PrivateIpAddress`
 *   (default false) picks the server: the intranet listener, or the public one (`kubeconfigServer`);
 * - `GET /clusters/{clusterId}/addon_instances` ListClusterAddonInstances: `addons.json`;
 * - `GET /clusters/{clusterId}/addon_instances/{instanceName}` GetClusterAddonInstance;
 * - `GET /clusters/{ClusterId}/resources` DescribeClusterResources: `resources.json` (bare array).
 * Errors are `{code, message, requestId}`: an unknown cluster is 404 `ErrorClusterNotFound`,
 * data the fleet does not hold 403 `StatusForbidden`.
 */
import type { ClusterEntry } from '../fleet/fleet-index.repository';
import type { SimContext } from '../sim-context';
import { buildKubeconfig } from '../kubernetes/kubeconfig.util';
import { AcsError } from './acs-error.exception';
import type { AcsRequest, RoaHandler } from './acs-request';
import { clamp } from './paging.util';

/** DescribeClusterDetail fields that DescribeClustersV1 items do not carry (model diff). */
const DETAIL_ONLY_FIELDS = new Set([
  'auto_mode',
  'control_plane_config',
  'control_plane_endpoints_config',
  'extra_sans',
  'node_cidr_mask',
  'parameters',
  'rrsa_config',
]);

function listItem(c: ClusterEntry): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(c.cluster.detail)) if (!DETAIL_ONLY_FIELDS.has(k)) out[k] = v;
  return out;
}

function filteredClusters(req: AcsRequest): ClusterEntry[] {
  const p = req.params;
  const preds: ((c: ClusterEntry) => boolean)[] = [];
  for (const field of ['region_id', 'cluster_type', 'cluster_spec', 'profile', 'cluster_id'] as const) {
    const v = p.str(field);
    if (v !== undefined) preds.push((c) => (c.cluster.detail as Record<string, unknown>)[field] === v);
  }
  const name = p.str('name');
  if (name !== undefined) preds.push((c) => c.cluster.detail.name.includes(name));
  const clusters = req.account.clusters;
  return preds.length === 0 ? clusters : clusters.filter((c) => preds.every((f) => f(c)));
}

const forbidden = (what: string) =>
  new AcsError(403, 'StatusForbidden', `Forbidden: ${what} is not in the simulated fleet.`);

function cluster(req: AcsRequest): ClusterEntry {
  const id = req.pathParams['ClusterId'] ?? '';
  const c = req.account.clusterById.get(id);
  if (!c) throw new AcsError(404, 'ErrorClusterNotFound', `cluster ${id} not found`);
  return c;
}

const describeClustersV1: RoaHandler = (req) => {
  const pageNumber = Math.max(1, req.params.int('page_number') ?? 1);
  const pageSize = clamp(req.params.int('page_size') ?? 10, 1, 100);
  const all = filteredClusters(req);
  const items = all.slice((pageNumber - 1) * pageSize, pageNumber * pageSize).map(listItem);
  return {
    clusters: items,
    page_info: { page_number: pageNumber, page_size: pageSize, total_count: all.length },
  };
};

const describeClusters: RoaHandler = (req) => filteredClusters(req).map(listItem);

const describeClusterDetail: RoaHandler = (req) => cluster(req).cluster.detail;

/**
 * An address on loopback that refuses connections: 127.0.0.2 at the port of a listener bound to
 * 127.0.0.1 only (Linux routes all of 127.0.0.0/8 to loopback, and nothing listens there).
 */
function refusingAddress(endpoint: string): string {
  return endpoint.replace(/^127\.0\.0\.1:/, '127.0.0.2:');
}

/**
 * `host:port` of the API server a kubeconfig names (research/reach.md 1.1-1.3):
 * - `PrivateIpAddress` true: the intranet listener, refusing when the cluster's VPC is unreachable;
 * - false: the public listener, refusing when public endpoints are unreachable or when the cluster's
 *   `master_url` has an empty `api_server_endpoint` (no public endpoint). What the real API answers for
 *   a public kubeconfig of a cluster without one is not documented (research/reach.md 7); an address
 *   nobody can dial is the conservative model. A fleet without `master_url` is served publicly.
 */
function kubeconfigServer(c: ClusterEntry, intranet: boolean, ctx: SimContext): string {
  const detail = c.cluster.detail as Record<string, unknown>;
  if (intranet) {
    const vpc = typeof detail['vpc_id'] === 'string' ? detail['vpc_id'] : '';
    return ctx.unreachable.vpcs.has(vpc) ? refusingAddress(ctx.intranetEndpoint) : ctx.intranetEndpoint;
  }
  return ctx.unreachable.public || !hasPublicEndpoint(detail['master_url']) ? refusingAddress(ctx.endpoint) : ctx.endpoint;
}

/** Whether a `master_url` value names a public endpoint (absent or unparsable: assumed yes). */
function hasPublicEndpoint(masterUrl: unknown): boolean {
  if (typeof masterUrl !== 'string') return true;
  try {
    const o = JSON.parse(masterUrl) as unknown;
    if (typeof o !== 'object' || o === null) return true;
    const pub = (o as Record<string, unknown>)['api_server_endpoint'];
    return typeof pub !== 'string' || pub !== '';
  } catch {
    return true;
  }
}

/** Default lifetime of a kubeconfig without `TemporaryDurationMinutes`: three years, milliseconds. */
const DEFAULT_KUBECONFIG_LIFETIME_MS = 3 * 365 * 24 * 3600 * 1000;

const describeClusterUserKubeconfig: RoaHandler = (req, ctx) => {
  const c = cluster(req);
  const minutes = req.params.int('TemporaryDurationMinutes');
  if (minutes !== undefined && (minutes < 15 || minutes > 4320))
    throw AcsError.invalidParameter('TemporaryDurationMinutes', 'It must be between 15 and 4320.');
  const expires = new Date(
    ctx.now().getTime() + (minutes !== undefined ? minutes * 60_000 : DEFAULT_KUBECONFIG_LIFETIME_MS),
  );
  const config = buildKubeconfig({
    clusterId: c.clusterId,
    endpoint: kubeconfigServer(c, req.params.bool('PrivateIpAddress') === true, ctx),
    token: ctx.clusterTokens.tokenFor(c.clusterId),
    userName: c.accountId,
  });
  return { config, expiration: expires.toISOString().replace(/\.\d{3}Z$/, 'Z') };
};

const listClusterAddonInstances: RoaHandler = (req) => {
  const addons = cluster(req).cluster.addons;
  if (!addons) throw forbidden('the add-ons of this cluster');
  return addons;
};

const getClusterAddonInstance: RoaHandler = (req) => {
  const addons = cluster(req).cluster.addons;
  if (!addons) throw forbidden('the add-ons of this cluster');
  const name = req.pathParams['instanceName'] ?? '';
  const addon = addons.addons.find((a) => a.name === name);
  if (!addon) throw new AcsError(404, 'AddonNotFound', `addon instance ${name} not found`);
  return addon;
};

const describeClusterResources: RoaHandler = (req) => {
  const resources = cluster(req).cluster.resources;
  if (!resources) throw forbidden('the resources of this cluster');
  return resources;
};

/** One CS route: method, path pattern with `{Name}` parameters, action name, handler. */
export interface CsRoute {
  method: string;
  action: string;
  /** Path segments; `{Name}` marks a parameter. */
  segments: readonly string[];
  handler: RoaHandler;
}

const route = (method: string, path: string, action: string, handler: RoaHandler): CsRoute => ({
  method,
  action,
  segments: path.split('/').filter((s) => s !== ''),
  handler,
});

/** The simulated CS API version. */
export const CS_VERSION = '2015-12-15';

/** The simulated CS routes. */
export const CS_ROUTES: readonly CsRoute[] = [
  route('GET', '/api/v1/clusters', 'DescribeClustersV1', describeClustersV1),
  route('GET', '/clusters', 'DescribeClusters', describeClusters),
  route('GET', '/clusters/{ClusterId}', 'DescribeClusterDetail', describeClusterDetail),
  route(
    'GET',
    '/k8s/{ClusterId}/user_config',
    'DescribeClusterUserKubeconfig',
    describeClusterUserKubeconfig,
  ),
  route(
    'GET',
    '/clusters/{ClusterId}/addon_instances',
    'ListClusterAddonInstances',
    listClusterAddonInstances,
  ),
  route(
    'GET',
    '/clusters/{ClusterId}/addon_instances/{instanceName}',
    'GetClusterAddonInstance',
    getClusterAddonInstance,
  ),
  route('GET', '/clusters/{ClusterId}/resources', 'DescribeClusterResources', describeClusterResources),
];

/**
 * Match a decoded path against the CS routes.
 * @returns the route and its path parameters, `methodMismatch` when only the method differs, or `undefined`
 */
export function matchCsRoute(
  method: string,
  segments: readonly string[],
): { route: CsRoute; pathParams: Record<string, string> } | 'methodMismatch' | undefined {
  let pathMatched = false;
  for (const r of CS_ROUTES) {
    if (r.segments.length !== segments.length) continue;
    const params: Record<string, string> = {};
    let ok = true;
    for (let i = 0; i < segments.length && ok; i++) {
      const pat = r.segments[i] as string;
      const seg = segments[i] as string;
      if (pat.startsWith('{')) params[pat.slice(1, -1)] = seg;
      else ok = pat === seg;
    }
    if (!ok) continue;
    if (r.method !== method) {
      pathMatched = true;
      continue;
    }
    return { route: r, pathParams: params };
  }
  return pathMatched ? 'methodMismatch' : undefined;
}
