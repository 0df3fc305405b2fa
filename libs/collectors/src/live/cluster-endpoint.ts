/**
 * Which API server endpoint of an ACK cluster the crawl dials, and what to say when it cannot.
 *
 * Sources (research/reach.md):
 * - 1.1: DescribeClusterDetail / DescribeClustersV1 `master_url` is a string holding JSON with
 *   `api_server_endpoint` (public) and `intranet_api_server_endpoint` (internal), each an
 *   `https://host:6443` URL; `api_server_endpoint` is the empty string when the cluster has no public
 *   endpoint (the Terraform provider reads it the same way);
 * - 1.2: the intranet endpoint is a CLB in the cluster's own VPC, the public endpoint an EIP bound to
 *   that CLB (`ModifyCluster` `api_server_eip`), and the CLB's ACL on 6443 applies to both;
 * - 1.3: DescribeClusterUserKubeconfig `PrivateIpAddress` picks the address in the kubeconfig's server;
 * - 4.1: a service outside the VPC reaches the intranet endpoint only through a routed network (CEN
 *   transit router, VPC peering, VPN / Express Connect) or PrivateLink.
 */
import type { WireClusterDetail } from '@app/domain';
import type { KubernetesEndpointMode, ScanConfig } from './scan-config';

/** The endpoint kind a kubeconfig is asked for: `PrivateIpAddress` false (`public`) or true (`intranet`). */
export type EndpointKind = 'public' | 'intranet';

/** The two addresses of `master_url`; a missing or empty one is `undefined`. */
export interface MasterUrl {
  /** `api_server_endpoint`: the Internet endpoint, e.g. `https://47.1.2.3:6443`. */
  public?: string;
  /** `intranet_api_server_endpoint`: the endpoint in the cluster's VPC, e.g. `https://10.0.0.253:6443`. */
  intranet?: string;
}

/**
 * Parse `master_url` (a JSON string). A non-string, unparsable or non-object value gives `undefined`:
 * nothing is known about the endpoints.
 */
export function parseMasterUrl(detail: Readonly<Record<string, unknown>> | undefined): MasterUrl | undefined {
  const raw = detail?.['master_url'];
  if (typeof raw !== 'string' || raw.trim() === '') return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null) return undefined;
  const o = parsed as Record<string, unknown>;
  const pick = (k: string) => (typeof o[k] === 'string' && o[k] !== '' ? o[k] : undefined);
  const pub = pick('api_server_endpoint');
  const intranet = pick('intranet_api_server_endpoint');
  return { ...(pub ? { public: pub } : {}), ...(intranet ? { intranet } : {}) };
}

/** Where a cluster's endpoint mode comes from, for messages (`clusters.kubernetesEndpoint`, ...). */
export interface EndpointModeChoice {
  mode: KubernetesEndpointMode;
  /** The scan config key that set it. */
  from: string;
}

/** The cluster fields the endpoint settings match on. */
export interface ClusterRef {
  accountId: string;
  regionId: string;
  clusterId: string;
  /** Cluster name (DescribeClustersV1 / DescribeClusterDetail `name`); empty when unknown. */
  name: string;
}

/**
 * The endpoint mode of one cluster. Precedence: `clusters.kubernetesEndpointByCluster` by id, then by
 * name, the account's `kubernetesEndpointByRegion`, the account's `kubernetesEndpoint`, then
 * `clusters.kubernetesEndpoint` (default `auto`).
 */
export function endpointModeOf(config: Pick<ScanConfig, 'accounts' | 'clusters'>, c: ClusterRef): EndpointModeChoice {
  const byCluster = config.clusters?.kubernetesEndpointByCluster ?? {};
  const byId = byCluster[c.clusterId];
  if (byId) return { mode: byId, from: `clusters.kubernetesEndpointByCluster.${c.clusterId}` };
  const byName = c.name !== '' ? byCluster[c.name] : undefined;
  if (byName) return { mode: byName, from: `clusters.kubernetesEndpointByCluster.${c.name}` };
  const account = config.accounts.find((a) => a.accountId === c.accountId);
  const byRegion = account?.kubernetesEndpointByRegion?.[c.regionId];
  if (byRegion) return { mode: byRegion, from: `accounts[${c.accountId}].kubernetesEndpointByRegion.${c.regionId}` };
  if (account?.kubernetesEndpoint) return { mode: account.kubernetesEndpoint, from: `accounts[${c.accountId}].kubernetesEndpoint` };
  return { mode: config.clusters?.kubernetesEndpoint ?? 'auto', from: 'clusters.kubernetesEndpoint' };
}

/** The endpoint a cluster's crawl uses. */
export interface EndpointChoice {
  kind: EndpointKind;
  /** The address `master_url` gives for that kind, when it gives one. */
  address?: string;
  /** The cluster's VPC (`vpc_id`), where the intranet endpoint lives; undefined when unknown. */
  vpcId?: string;
  /** Whether `master_url` says the cluster has a public endpoint (undefined: `master_url` not known). */
  hasPublic?: boolean;
  /** The mode and the config key that set it. */
  mode: EndpointModeChoice;
}

/**
 * Choose the endpoint of a cluster: `public` and `private` as configured; `auto` is the intranet
 * endpoint when `master_url` names no public one, else the public one. When `master_url` is unknown
 * (not in the answer, or DescribeClusterDetail failed) `auto` asks for the public endpoint, the API's
 * default (`PrivateIpAddress` false, research/reach.md 1.3).
 */
export function chooseEndpoint(
  detail: Readonly<Record<string, unknown>> | WireClusterDetail | undefined,
  mode: EndpointModeChoice,
): EndpointChoice {
  const urls = parseMasterUrl(detail);
  const hasPublic = urls === undefined ? undefined : urls.public !== undefined;
  const kind: EndpointKind =
    mode.mode === 'private' ? 'intranet' : mode.mode === 'public' ? 'public' : hasPublic === false ? 'intranet' : 'public';
  const address = kind === 'public' ? urls?.public : urls?.intranet;
  const vpc = detail?.['vpc_id'];
  const vpcId = typeof vpc === 'string' && vpc !== '' ? vpc : undefined;
  return {
    kind,
    ...(address ? { address } : {}),
    ...(vpcId ? { vpcId } : {}),
    ...(hasPublic !== undefined ? { hasPublic } : {}),
    mode,
  };
}

/** One line naming an endpoint: `intranet endpoint https://10.0.0.253:6443 in VPC vpc-x`. */
export function describeEndpoint(choice: EndpointChoice, dialled?: string): string {
  const where = choice.vpcId ? ` in VPC ${choice.vpcId}` : '';
  const addr = dialled ?? choice.address ?? '(address unknown)';
  const also = dialled && choice.address && choice.address !== dialled ? ` (master_url: ${choice.address})` : '';
  return choice.kind === 'intranet' ? `intranet endpoint ${addr}${also}${where}` : `public endpoint ${addr}${also} (cluster VPC ${choice.vpcId ?? 'unknown'})`;
}

/**
 * What to do about an endpoint that cannot be dialled (research/reach.md 1.2, 4.1).
 * @returns one sentence, starting with `fix:`
 */
export function endpointFix(choice: EndpointChoice): string {
  const vpc = choice.vpcId ?? 'the cluster VPC';
  if (choice.kind === 'intranet')
    return (
      `fix: crawl this cluster from a worker that reaches ${vpc} (WORKER_REACH=${vpc}: a worker pool in that VPC, or a network ` +
      `routed to it through a CEN transit router, VPC peering or VPN), or bind an EIP to the API server (ModifyCluster ` +
      `api_server_eip) and read this cluster on its public endpoint (clusters.kubernetesEndpointByCluster: public)`
    );
  if (choice.hasPublic === false)
    return (
      `fix: the cluster has no public endpoint (master_url api_server_endpoint is empty): set ${choice.mode.from === 'clusters.kubernetesEndpoint' ? 'kubernetesEndpoint' : choice.mode.from}: auto or private and ` +
      `crawl from a worker that reaches ${vpc} (WORKER_REACH=${vpc}), or bind an EIP to the API server (ModifyCluster api_server_eip)`
    );
  return (
    `fix: allow this worker's egress address in the API server CLB's access control list on port 6443 (it applies to both endpoints), ` +
    `or set kubernetesEndpoint: private and crawl from a worker that reaches ${vpc} (WORKER_REACH=${vpc})`
  );
}

/** Error code of the `kubernetes` coverage entry of a cluster whose API server endpoint cannot be dialled. */
export const ENDPOINT_UNREACHABLE = 'EndpointUnreachable';
