/** Public entry of libs/collectors: readers of fleets (offline directories and live APIs). */
export * from './offline/fleet-directory.reader';
export * from './offline/fleet-directory.loader';
export * from './offline/fleet-layout';
export * from './live/scan-config';
export * from './offline/fleet-directory.writer';
export * from './offline/fleet-dump-manifest';
export * from './offline/fleet-dump';
export * from './generate/fleet.generator';
export * from './live/scan-config.loader';
export * from './live/alibaba-clients.factory';
export * from './live/sdk-modules';
export * from './live/collect-error.util';
export { type CollectProgress } from './live/collect-scope.util';
export * from './live/live-fleet.collector';
export * from './live/account-credentials.service';
export * from './live/api-rate-limiter.util';
export {
  type CrawlTarget,
  type TargetSlice,
  type CrawlTargetOptions,
  type CrawlFleetOptions,
  crawlTarget,
  assembleWireFleet,
  crawlFleetTargets,
  defaultCredentialsFor,
  CrawlTargetError,
  NOT_CRAWLED,
  ACCOUNT_DATASETS,
  REGION_DATASETS,
  CLUSTER_TARGET_DATASETS,
  failedEntries,
  excludedEntries,
  planClusters,
  type ClusterPlan,
  type ClusterPlanEntry,
  type ExcludedCluster,
  type ClusterEndpointRoute,
} from './live/crawl-targets';
export * from './live/ram-actions';
export * from './live/cluster-endpoint';
export * from './live/cluster-selection';
export * from './live/kubernetes-rbac';
export { placeholderDetail } from './live/cluster.collector';
export * from './live/slice-parts';
export * from './live/quota-applications';
