/**
 * Target-level crawl: the unit of work of a live scan, local or distributed.
 *
 * A fleet is crawled as independent targets: one `account` target per account (RAM), one
 * `region` target per account and region (CLBs with vServer groups, each other load-balancer kind's data, ECS, vSwitches, quotas and the
 * ids of the ACK clusters listed there), and one `cluster` target per listed cluster (detail,
 * add-ons, resources, Kubernetes objects, node sysctls). `crawlTarget` reads one target into a
 * JSON-serialisable TargetSlice (data + coverage); `assembleWireFleet` joins slices, in any order,
 * into the same WireFleet the offline loader reads. `collectLiveFleet` does exactly this in one
 * process; the distributed worker runs targets as jobs and assembles their slices.
 *
 * Pacing is per account through an `ApiRateLimiter` (api-rate-limiter.util.ts): pass one limiter
 * to every target of a scan (the worker passes a Redis-backed one) so budgets hold across targets.
 * Credentials: base credentials, or STS AssumeRole of the account's `auditRoleArn`, cached until 5
 * minutes before expiry (account-credentials.service.ts).
 */
import {
  ACCOUNT_DATASETS,
  KIND_DATA,
  REGION_DATASETS,
  coverageKey,
  setKindWire,
  targetKey,
  targetLabel,
  type CrawlTarget,
  type CoverageDataset,
  type CoverageEntry,
  type WireAccount,
  type WireCluster,
  type WireClusterDetail,
  type WireFleet,
  type WireRam,
  type WireRegion,
} from '@app/domain';
import type Bottleneck from 'bottleneck';
import { bottleneckPackage } from './sdk-modules';
import { AccountCredentialsResolver, type CredentialsFor } from './account-credentials.service';
import {
  createAccountClients,
  type AccountClients,
  type AccountCredentials,
} from './alibaba-clients.factory';
import {
  createInMemoryRateLimiter,
  rateLimiterOptionsOf,
  type ApiRateLimiter,
} from './api-rate-limiter.util';
import { CallRunner } from './call-runner.util';
import { CLUSTER_DATASETS, placeholderDetail, readCluster } from './cluster.collector';
import { chooseEndpoint, endpointModeOf, type EndpointChoice } from './cluster-endpoint';
import { selectCluster } from './cluster-selection';
import { CollectError, ScanAbortedError } from './collect-error.util';
import {
  CoverageRecorder,
  ProgressCounter,
  readDataset,
  type AccountScope,
  type CollectProgress,
} from './collect-scope.util';
import { readRam } from './ram.collector';
import { readClusterList, readEcsInstances, readKind, readQuotaApplications, readQuotas, readSlb, readVSwitches } from './region.collector';
import type { ScanAccount, ScanConfig } from './scan-config';
import { processEnvironment, type Environment } from '@app/config';
import { fleetAuditErrorKind } from '@app/errors';

export {
  createBottleneckRateLimiter,
  createInMemoryRateLimiter,
  type ApiRateLimiter,
  type ClosableApiRateLimiter,
  type RateLimiterOptions,
} from './api-rate-limiter.util';

/** One unit of crawl work (libs/domain `CrawlTarget`; keyed by `targetKey`). */
export type { CrawlTarget } from '@app/domain';

/**
 * What one target read (JSON-serialisable). Which fields are set depends on the target kind:
 * `account` -> `ram` (when read); `region` -> `region` (the datasets read) and `clusterIds`
 * (undefined when the cluster list failed); `cluster` -> `cluster` (undefined only when CS says
 * the cluster no longer exists: it is then left out of the fleet). `coverage` has one entry per
 * dataset of the target (none for a vanished cluster).
 */
export interface TargetSlice {
  target: CrawlTarget;
  ram?: WireRam;
  region?: Omit<WireRegion, 'clusters'>;
  /** The listed clusters the scan config selects (cluster-selection.ts): each gets a cluster target. */
  clusterIds?: string[];
  /**
   * The listed clusters the scan config leaves out, with their list item and why: they stay in the fleet
   * (a CLB tagged with one is not an orphan) with `absent` datasets naming the reason.
   */
  excludedClusters?: ExcludedCluster[];
  /**
   * Where each selected cluster's API server endpoint is (cluster-endpoint.ts, from the list item's
   * `master_url` and `vpc_id` and the config): the distributed worker routes the cluster's crawl to a worker
   * pool that reaches that network.
   */
  clusterEndpoints?: Record<string, ClusterEndpointRoute>;
  cluster?: WireCluster;
  coverage: CoverageEntry[];
}

/** The network a cluster's crawl must reach: the endpoint kind, its VPC (intranet), and the address `master_url` gives. */
export interface ClusterEndpointRoute {
  kind: EndpointChoice['kind'];
  vpcId?: string;
  address?: string;
}

/** A listed cluster the scan config leaves out. */
export interface ExcludedCluster {
  /** Its DescribeClustersV1 item. */
  detail: WireClusterDetail;
  /** Which config entry excludes it. */
  reason: string;
}

/** Coverage entries `absent` for every dataset of an excluded cluster, with the reason. */
export function excludedEntries(
  target: Extract<CrawlTarget, { kind: 'cluster' }>,
  reason: string,
): CoverageEntry[] {
  return CLUSTER_TARGET_DATASETS.map((api) => ({
    accountId: target.accountId,
    regionId: target.regionId,
    clusterId: target.clusterId,
    api,
    status: 'absent' as const,
    message: `not read: ${reason}`,
  }));
}

/** Options of {@link crawlTarget}. */
export interface CrawlTargetOptions {
  /**
   * Credentials per account; default: a resolver shared by every crawl of the same config object
   * (base credentials, or AssumeRole of `auditRoleArn`, cached until 5 minutes before expiry).
   */
  credentialsFor?: CredentialsFor;
  /** Pacing per account; default: an in-memory limiter shared by every crawl of the same config object. */
  rateLimiter?: ApiRateLimiter;
  /** Cancels the crawl: the promise rejects with ScanAbortedError. */
  signal?: AbortSignal;
  /** Called after every dataset of this target; `total` counts this target's datasets. */
  onProgress?: (event: CollectProgress) => void;
}

/** A target the config does not name (not an API error: a caller's mistake). */
export class CrawlTargetError extends fleetAuditErrorKind('CrawlTargetError', 'CRAWL_TARGET_UNKNOWN', true) {
  // permanent: a retry crawls the same unknown target.
}

/** Datasets of an account target and of a region target, in crawl order (libs/domain coverage-datasets.ts). */
export { ACCOUNT_DATASETS, REGION_DATASETS };
/** Datasets of a cluster target. */
export const CLUSTER_TARGET_DATASETS: readonly CoverageDataset[] = [
  'cluster',
  'addons',
  'resources',
  'kubernetes',
  'sysctls',
];

/** Error code of the coverage entries of a cluster the region listed but no slice was given for. */
export const NOT_CRAWLED = 'NotCrawled';

/** Internal hooks of {@link crawlTargetWith} (collectLiveFleet starts cluster crawls early). */
interface CrawlContext {
  credentialsFor: CredentialsFor;
  rateLimiter: ApiRateLimiter;
  signal?: AbortSignal;
  progress: ProgressCounter;
  /** Region targets: called with the listed cluster ids as soon as the cluster list is read. */
  onClusterIds?: (ids: string[]) => void;
}

const defaultResolvers = new WeakMap<ScanConfig, AccountCredentialsResolver>();
/** Kubernetes calls in flight per process and config (`collector.maxConcurrentKubernetes`). */
const kubernetesSlots = new WeakMap<ScanConfig, Bottleneck>();

function kubernetesSlotsOf(config: ScanConfig): Bottleneck {
  let l = kubernetesSlots.get(config);
  if (!l) {
    l = new (bottleneckPackage())({ maxConcurrent: config.collector.maxConcurrentKubernetes });
    kubernetesSlots.set(config, l);
  }
  return l;
}
const defaultLimiters = new WeakMap<ScanConfig, ApiRateLimiter>();
const clientsByCredentials = new WeakMap<AccountCredentials, Map<string, AccountClients>>();

/** Retry settings of a config as CallRunner options (without the scheduler). */
function retryOptions(config: ScanConfig, signal?: AbortSignal) {
  return {
    maxAttempts: config.collector.maxAttempts,
    retryBaseDelayMs: config.collector.retryBaseDelayMs,
    retryMaxDelayMs: config.collector.retryMaxDelayMs,
    ...(signal ? { signal } : {}),
  };
}

/**
 * The default credentials resolver of a config: AssumeRole retried with the config's retry
 * settings (not paced: STS is called with the base credentials, outside the accounts' budgets).
 */
export function defaultCredentialsFor(
  config: ScanConfig,
  env: Environment = processEnvironment(),
): CredentialsFor {
  let resolver = defaultResolvers.get(config);
  if (!resolver) {
    const runner = new CallRunner({ ...retryOptions(config), schedule: (_api, fn) => fn() });
    resolver = new AccountCredentialsResolver(config, { env, run: (api, fn) => runner.run(api, fn) });
    defaultResolvers.set(config, resolver);
  }
  const r = resolver;
  return (account) => r.credentialsFor(account);
}

function defaultRateLimiter(config: ScanConfig): ApiRateLimiter {
  let l = defaultLimiters.get(config);
  if (!l) {
    l = createInMemoryRateLimiter(rateLimiterOptionsOf(config.collector));
    defaultLimiters.set(config, l);
  }
  return l;
}

/** The clients of one set of credentials (cached while the credentials object lives). */
function clientsFor(config: ScanConfig, credentials: AccountCredentials): AccountClients {
  let byEndpoint = clientsByCredentials.get(credentials);
  if (!byEndpoint) {
    byEndpoint = new Map();
    clientsByCredentials.set(credentials, byEndpoint);
  }
  const key = JSON.stringify(config.alibabaCloud);
  let clients = byEndpoint.get(key);
  if (!clients) {
    clients = createAccountClients(config.alibabaCloud, credentials);
    byEndpoint.set(key, clients);
  }
  return clients;
}

function accountOf(config: ScanConfig, target: CrawlTarget): ScanAccount {
  const account = config.accounts.find((a) => a.accountId === target.accountId);
  if (!account) throw new CrawlTargetError(`account ${target.accountId} is not in the scan config`);
  if (target.kind !== 'account' && !account.regions.includes(target.regionId))
    throw new CrawlTargetError(`region ${target.regionId} is not configured for account ${target.accountId}`);
  return account;
}


function datasetsOf(target: CrawlTarget): readonly CoverageDataset[] {
  return target.kind === 'account'
    ? ACCOUNT_DATASETS
    : target.kind === 'region'
      ? REGION_DATASETS
      : CLUSTER_TARGET_DATASETS;
}

/** Coverage entries `failed` with one code for every dataset of a target. */
export function failedEntries(target: CrawlTarget, errorCode: string, message: string): CoverageEntry[] {
  return datasetsOf(target).map((api) => ({
    accountId: target.accountId,
    ...(target.kind !== 'account' ? { regionId: target.regionId } : {}),
    ...(target.kind === 'cluster' ? { clusterId: target.clusterId } : {}),
    api,
    status: 'failed' as const,
    errorCode,
    message,
  }));
}

async function crawlRegion(
  scope: AccountScope,
  target: Extract<CrawlTarget, { kind: 'region' }>,
  config: ScanConfig,
  ctx: CrawlContext,
): Promise<TargetSlice> {
  const rc = scope.clients.region(target.regionId);
  const key = { accountId: target.accountId, regionId: target.regionId };
  const [slb, kindWires, ecs, vpc, quotas, quotaApplications, clusters] = await Promise.all([
    readDataset(scope, { ...key, api: 'slb' }, (s) => readSlb(s, rc)),
    Promise.all(KIND_DATA.map((data) => readDataset(scope, { ...key, api: data.dataset }, (s) => readKind(s, rc, data)))),
    readDataset(scope, { ...key, api: 'ecs' }, (s) => readEcsInstances(s, rc)),
    readDataset(scope, { ...key, api: 'vpc' }, (s) => readVSwitches(s, rc)),
    readDataset(scope, { ...key, api: 'quotas' }, (s) => readQuotas(s, rc)),
    readDataset(scope, { ...key, api: 'quota-applications' }, (s) => readQuotaApplications(s, rc)),
    readDataset(scope, { ...key, api: 'cs' }, async (s) => {
      const ids: string[] = [];
      const excluded: ExcludedCluster[] = [];
      const routes: Record<string, ClusterEndpointRoute> = {};
      for (const item of await readClusterList(s, rc)) {
        const sel = selectCluster(config, { accountId: target.accountId, item });
        if (!sel.selected) {
          excluded.push({ detail: item, reason: sel.reason });
          continue;
        }
        ids.push(item.cluster_id);
        const ref = { accountId: target.accountId, regionId: target.regionId, clusterId: item.cluster_id, name: item.name };
        const e = chooseEndpoint(item, endpointModeOf(config, ref));
        routes[item.cluster_id] = { kind: e.kind, ...(e.vpcId ? { vpcId: e.vpcId } : {}), ...(e.address ? { address: e.address } : {}) };
      }
      ctx.onClusterIds?.(ids);
      return { ids, excluded, routes };
    }),
  ]);
  const region: Omit<WireRegion, 'clusters'> = { regionId: target.regionId };
  if (slb) {
    region.loadBalancers = slb.loadBalancers;
    region.vServerGroups = slb.vServerGroups;
  }
  KIND_DATA.forEach((data, i) => {
    const wire = kindWires[i];
    if (wire) setKindWire(region, data, wire);
  });
  if (ecs) region.ecsInstances = ecs;
  if (vpc) region.vSwitches = vpc;
  if (quotas) region.quotas = quotas;
  if (quotaApplications) region.quotaApplications = quotaApplications;
  return {
    target,
    region,
    ...(clusters ? { clusterIds: clusters.ids } : {}),
    ...(clusters && clusters.excluded.length > 0 ? { excludedClusters: clusters.excluded } : {}),
    ...(clusters && clusters.ids.length > 0 ? { clusterEndpoints: clusters.routes } : {}),
    coverage: scope.coverage.entries,
  };
}

async function crawlCluster(
  scope: AccountScope,
  target: Extract<CrawlTarget, { kind: 'cluster' }>,
  config: ScanConfig,
  signal: AbortSignal | undefined,
): Promise<TargetSlice> {
  const kube = new (bottleneckPackage())({ maxConcurrent: config.collector.maxConcurrentPerCluster });
  const slots = kubernetesSlotsOf(config);
  const clusterScope: AccountScope = {
    ...scope,
    kubeRunner: new CallRunner({
      ...retryOptions(config, signal),
      schedule: (_api, fn) => kube.schedule(() => slots.schedule(fn)),
    }),
  };
  try {
    const cluster = await readCluster(clusterScope, scope.clients.region(target.regionId), target.clusterId, (detail) =>
      endpointModeOf(config, { ...target, name: detail.name }),
    );
    return { target, ...(cluster ? { cluster } : {}), coverage: scope.coverage.entries };
  } finally {
    await kube.disconnect();
  }
}

/** The scope of one account's reads: its clients, its paced and retried runner, the collector settings. */
function accountScopeOf(
  config: ScanConfig,
  account: ScanAccount,
  credentials: AccountCredentials,
  ctx: Pick<CrawlContext, 'rateLimiter' | 'signal'>,
  coverage: CoverageRecorder,
): AccountScope {
  return {
    accountId: account.accountId,
    clients: clientsFor(config, credentials),
    runner: new CallRunner({
      ...retryOptions(config, ctx.signal),
      schedule: (api, fn) => ctx.rateLimiter.schedule(account.accountId, api, fn),
    }),
    // Replaced per cluster target (crawlCluster); account and region targets make no Kubernetes calls.
    kubeRunner: new CallRunner({ ...retryOptions(config, ctx.signal), schedule: (_api, fn) => fn() }),
    settings: config.collector,
    coverage,
    ...(ctx.signal ? { signal: ctx.signal } : {}),
  };
}

/** One listed cluster of a scan plan (`fleet-audit scan --dry-run`). */
export interface ClusterPlanEntry {
  accountId: string;
  regionId: string;
  clusterId: string;
  name: string;
  /** Whether the scan reads it (`clusters.include` / `clusters.exclude`). */
  selected: boolean;
  /** Why not, naming the config entry (excluded clusters only). */
  reason?: string;
  /** The API server endpoint a crawl would dial (from the list item's `master_url` and the config). */
  endpoint: EndpointChoice;
}

/** What a scan would read: every listed cluster, and the regions whose cluster list could not be read. */
export interface ClusterPlan {
  /** By account (config order), region (sorted), cluster id. */
  clusters: ClusterPlanEntry[];
  /** Accounts or regions whose cluster list failed: one line each, naming the API and the error. */
  failures: { accountId: string; regionId?: string; message: string }[];
}

/**
 * List the clusters a scan of `config` would read, without reading them: one DescribeClustersV1 per
 * account and region (paced and retried as in a scan), then the selection and the endpoint choice of each.
 * @throws ScanAbortedError when `options.signal` fires; CredentialsConfigError for a missing named env variable
 */
export async function planClusters(config: ScanConfig, options: CrawlFleetOptions = {}): Promise<ClusterPlan> {
  const ctx = {
    credentialsFor: options.credentialsFor ?? defaultCredentialsFor(config),
    rateLimiter: options.rateLimiter ?? defaultRateLimiter(config),
    ...(options.signal ? { signal: options.signal } : {}),
  };
  const accounts = [...new Map(config.accounts.map((a) => [a.accountId, a])).values()];
  const perAccount = await Promise.all(
    accounts.map(async (account): Promise<ClusterPlan> => {
      let credentials: AccountCredentials;
      try {
        credentials = await ctx.credentialsFor(account);
      } catch (e) {
        if (e instanceof ScanAbortedError || ctx.signal?.aborted) throw new ScanAbortedError();
        if (!(e instanceof CollectError)) throw e;
        return { clusters: [], failures: [{ accountId: account.accountId, message: e.message }] };
      }
      const regions = await Promise.all(
        [...new Set(account.regions)].sort().map(async (regionId): Promise<ClusterPlan> => {
          const scope = accountScopeOf(config, account, credentials, ctx, new CoverageRecorder());
          try {
            const items = await readClusterList(scope, scope.clients.region(regionId));
            const clusters = items
              .map((item): ClusterPlanEntry => {
                const ref = { accountId: account.accountId, regionId, clusterId: item.cluster_id, name: item.name };
                const sel = selectCluster(config, { accountId: account.accountId, item });
                return {
                  ...ref,
                  selected: sel.selected,
                  ...(sel.selected ? {} : { reason: sel.reason }),
                  endpoint: chooseEndpoint(item, endpointModeOf(config, ref)),
                };
              })
              .sort((x, y) => (x.clusterId < y.clusterId ? -1 : x.clusterId > y.clusterId ? 1 : 0));
            return { clusters, failures: [] };
          } catch (e) {
            if (e instanceof ScanAbortedError || ctx.signal?.aborted) throw new ScanAbortedError();
            const message = e instanceof CollectError ? e.message : `DescribeClustersV1 ${account.accountId}/${regionId}: ${String(e)}`;
            return { clusters: [], failures: [{ accountId: account.accountId, regionId, message }] };
          }
        }),
      );
      return { clusters: regions.flatMap((r) => r.clusters), failures: regions.flatMap((r) => r.failures) };
    }),
  );
  return { clusters: perAccount.flatMap((p) => p.clusters), failures: perAccount.flatMap((p) => p.failures) };
}

/** crawlTarget with internal hooks (shared progress, early cluster ids). */
async function crawlTargetWith(
  config: ScanConfig,
  target: CrawlTarget,
  ctx: CrawlContext,
): Promise<TargetSlice> {
  if (ctx.signal?.aborted) throw new ScanAbortedError();
  const account = accountOf(config, target);
  const coverage = new CoverageRecorder(ctx.progress);
  let credentials: AccountCredentials;
  try {
    credentials = await ctx.credentialsFor(account);
  } catch (e) {
    if (e instanceof ScanAbortedError || ctx.signal?.aborted) throw new ScanAbortedError();
    if (!(e instanceof CollectError)) throw e;
    // No credentials for this account: every dataset of the target is failed with the STS code.
    const entries = failedEntries(target, e.errorCode, e.message);
    for (const entry of entries) ctx.progress.tick(targetLabel(target) + '/' + entry.api);
    return {
      target,
      ...(target.kind === 'region' ? { region: { regionId: target.regionId } } : {}),
      ...(target.kind === 'cluster'
        ? { cluster: { detail: placeholderDetail(target.clusterId, target.regionId) } }
        : {}),
      coverage: entries,
    };
  }
  const scope = accountScopeOf(config, account, credentials, ctx, coverage);
  let slice: TargetSlice;
  if (target.kind === 'account') {
    const ram = await readDataset(scope, { accountId: account.accountId, api: 'ram' }, (s) => readRam(s));
    slice = { target, ...(ram ? { ram } : {}), coverage: coverage.entries };
  } else if (target.kind === 'region') slice = await crawlRegion(scope, target, config, ctx);
  else slice = await crawlCluster(scope, target, config, ctx.signal);
  if (ctx.signal?.aborted) throw new ScanAbortedError();
  return slice;
}

/**
 * Crawl one target.
 * @param config a validated scan config; the target's account (and region) must be in it
 * @param target what to read
 * @returns the target's data and coverage; API failures (AssumeRole included) are `failed`
 *   coverage entries, never exceptions
 * @throws ScanAbortedError when `options.signal` fires; CrawlTargetError for a target the config
 *   does not name; CredentialsConfigError when a named credentials env variable is unset
 */
export async function crawlTarget(
  config: ScanConfig,
  target: CrawlTarget,
  options: CrawlTargetOptions = {},
): Promise<TargetSlice> {
  const progress = new ProgressCounter(options.onProgress);
  progress.plan(target.kind === 'cluster' ? CLUSTER_DATASETS : datasetsOf(target).length);
  return crawlTargetWith(config, target, {
    credentialsFor: options.credentialsFor ?? defaultCredentialsFor(config),
    rateLimiter: options.rateLimiter ?? defaultRateLimiter(config),
    ...(options.signal ? { signal: options.signal } : {}),
    progress,
  });
}

/** Count of failed coverage entries (fewer = a better duplicate). */
const failures = (s: TargetSlice) => s.coverage.filter((c) => c.status === 'failed').length;

/** Pick one slice per target: fewest failures, then the smallest JSON (deterministic). */
function bestSlices(slices: readonly TargetSlice[]): Map<string, TargetSlice> {
  const out = new Map<string, TargetSlice>();
  const json = new Map<TargetSlice, string>();
  const jsonOf = (s: TargetSlice) => {
    let j = json.get(s);
    if (j === undefined) {
      j = JSON.stringify(s);
      json.set(s, j);
    }
    return j;
  };
  for (const s of slices) {
    const key = targetKey(s.target);
    const had = out.get(key);
    if (!had || failures(s) < failures(had) || (failures(s) === failures(had) && jsonOf(s) < jsonOf(had)))
      out.set(key, s);
  }
  return out;
}

/**
 * Join target slices into a WireFleet, deterministically whatever the slice order.
 *
 * Accounts in config order (each once), regions sorted, clusters sorted by id; coverage sorted
 * (`coverageKey`). A cluster the config excludes keeps its list item as detail, with `absent` entries
 * naming the reason for its datasets. Missing slices are reported, never guessed: an account or region without its
 * slice gets `failed` `NotCrawled` entries for its datasets; a cluster the region listed without a
 * cluster slice keeps its place with a placeholder detail and `failed` `NotCrawled` entries for
 * its datasets (`cluster`, `addons`, `resources`, `kubernetes`, `sysctls`); a cluster slice
 * without `cluster` (CS said it no longer exists) drops the cluster. Cluster slices the region did
 * not list, and slices of targets outside the config, are ignored. Duplicate slices of one target:
 * the one with the fewest failed entries wins (ties: the smallest JSON).
 */
export function assembleWireFleet(config: ScanConfig, slices: readonly TargetSlice[]): WireFleet {
  const best = bestSlices(slices);
  const coverage: CoverageEntry[] = [];
  const notCrawled = (target: CrawlTarget) =>
    coverage.push(
      ...failedEntries(target, NOT_CRAWLED, `${targetLabel(target)}: no crawl result for this target`),
    );
  const accounts: WireAccount[] = [];
  const seen = new Set<string>();
  for (const a of config.accounts) {
    if (seen.has(a.accountId)) continue;
    seen.add(a.accountId);
    const regions = [...new Set(a.regions)].sort();
    const out: WireAccount = {
      account: {
        accountId: a.accountId,
        name: a.name ?? '',
        regions,
        ...(a.auditRoleArn !== undefined ? { auditRoleArn: a.auditRoleArn } : {}),
      },
      regions: [],
    };
    const accountTarget: CrawlTarget = { kind: 'account', accountId: a.accountId };
    const acc = best.get(targetKey(accountTarget));
    if (acc) {
      if (acc.ram) out.ram = acc.ram;
      coverage.push(...acc.coverage);
    } else notCrawled(accountTarget);
    for (const regionId of regions) {
      const regionTarget: CrawlTarget = { kind: 'region', accountId: a.accountId, regionId };
      const rs = best.get(targetKey(regionTarget));
      const region: WireRegion = { ...(rs?.region ?? {}), regionId, clusters: [] };
      if (rs) coverage.push(...rs.coverage);
      else notCrawled(regionTarget);
      const selected = new Set(rs?.clusterIds ?? []);
      const excluded = new Map((rs?.excludedClusters ?? []).map((e) => [e.detail.cluster_id, e]));
      for (const clusterId of [...new Set([...selected, ...excluded.keys()])].sort()) {
        const clusterTarget: CrawlTarget = { kind: 'cluster', accountId: a.accountId, regionId, clusterId };
        const ex = excluded.get(clusterId);
        if (ex && !selected.has(clusterId)) {
          region.clusters.push({ detail: ex.detail });
          coverage.push(...excludedEntries(clusterTarget, ex.reason));
          continue;
        }
        const cs = best.get(targetKey(clusterTarget));
        if (!cs) {
          region.clusters.push({ detail: placeholderDetail(clusterId, regionId) });
          notCrawled(clusterTarget);
          continue;
        }
        coverage.push(...cs.coverage);
        if (cs.cluster) region.clusters.push(cs.cluster);
      }
      out.regions.push(region);
    }
    accounts.push(out);
  }
  return {
    name: config.name,
    accounts,
    coverage: coverage.sort((x, y) =>
      coverageKey(x) < coverageKey(y) ? -1 : coverageKey(x) > coverageKey(y) ? 1 : 0,
    ),
  };
}

/** Options of {@link crawlFleetTargets}. */
export interface CrawlFleetOptions {
  credentialsFor?: CredentialsFor;
  rateLimiter?: ApiRateLimiter;
  signal?: AbortSignal;
  onProgress?: (event: CollectProgress) => void;
}

/**
 * Crawl every target of a config in this process: account and region targets at once, each
 * cluster target as soon as its region's cluster list is read. Progress counts every dataset of
 * the scan (`total` grows as clusters are found).
 * @returns every slice (pass them to assembleWireFleet)
 * @throws as crawlTarget
 */
export async function crawlFleetTargets(
  config: ScanConfig,
  options: CrawlFleetOptions,
): Promise<TargetSlice[]> {
  if (options.signal?.aborted) throw new ScanAbortedError();
  const progress = new ProgressCounter(options.onProgress);
  const base = {
    credentialsFor: options.credentialsFor ?? defaultCredentialsFor(config),
    rateLimiter: options.rateLimiter ?? defaultRateLimiter(config),
    ...(options.signal ? { signal: options.signal } : {}),
    progress,
  };
  const accounts = [...new Map(config.accounts.map((a) => [a.accountId, a])).values()];
  for (const a of accounts)
    progress.plan(ACCOUNT_DATASETS.length + new Set(a.regions).size * REGION_DATASETS.length);
  const slices: TargetSlice[] = [];
  const work: Promise<void>[] = [];
  for (const a of accounts) {
    work.push(
      crawlTargetWith(config, { kind: 'account', accountId: a.accountId }, base).then((s) => {
        slices.push(s);
      }),
    );
    for (const regionId of [...new Set(a.regions)].sort()) {
      work.push(
        (async () => {
          const clusterWork: Promise<void>[] = [];
          const slice = await crawlTargetWith(
            config,
            { kind: 'region', accountId: a.accountId, regionId },
            {
              ...base,
              onClusterIds: (ids) => {
                progress.plan(ids.length * CLUSTER_DATASETS);
                for (const clusterId of ids) {
                  const p = crawlTargetWith(
                    config,
                    { kind: 'cluster', accountId: a.accountId, regionId, clusterId },
                    base,
                  ).then((s) => {
                    slices.push(s);
                  });
                  p.catch(() => undefined); // observed below, once the region slice is done
                  clusterWork.push(p);
                }
              },
            },
          );
          slices.push(slice);
          await Promise.all(clusterWork);
        })(),
      );
    }
  }
  const results = await Promise.allSettled(work);
  const rejected = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (rejected) throw rejected.reason;
  if (options.signal?.aborted) throw new ScanAbortedError();
  return slices;
}
