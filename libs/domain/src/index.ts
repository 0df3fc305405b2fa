/**
 * Public entry of libs/domain: pure types and models (no I/O, no framework). Exports by name, grouped by
 * file, so that what the library offers is read here; a new export is added to its file's list. Files that
 * are public whole are re-exported whole: the snapshot and fleet-graph types (`export type *`), the resource
 * declarations and the wire schemas.
 */
export type * from './snapshot.types';
export type * from './fleet-graph.types';
export * from './fleet-graph.resources';
export { coverageKey, targetKey, targetLabel } from './scan-target';
export { ACCOUNT_DATASETS, COVERAGE_DATASETS, REGION_DATASETS } from './coverage-datasets';
export { LB_KIND_RESOURCE_KINDS, RESOURCE_KINDS } from './resource-kinds';
export { CLUSTER_ID_PREFIX_LENGTH, clusterLabel, resolveClusterRef } from './cluster-label';
export type { NamedCluster } from './cluster-label';
export { DEFAULT_OWNER_TAG_KEY, TEAM_NAME, assignTeams, clustersOf, teamOf, withSampleTeams, type OwnerSettings } from './owners';
export { standingRefusals, type StandingRefusal } from './quota-applications.model';
export type { CrawlTarget, TargetPlace } from './scan-target';
export {
  SEVERITIES,
  quotaSampleOf,
  quotaUsageOf,
  severityRank,
  skippedResultsOf,
} from './finding.types';
export type {
  CheckResult,
  Figures,
  Finding,
  QuotaUsageSample,
  ResourceKind,
  ResourceRef,
  ResultStatus,
  Severity,
  SkippedResult,
} from './finding.types';
export * from './wire/wire.schemas';
export * from './wire/wire-nlb.schemas';
export type * from './wire/wire-fleet.types';
export {
  DEFAULT_NODE_PORT_RANGE,
  ecsIdFromProviderId,
  mapKubernetes,
  mapLoadBalancers,
  mapWireFleet,
  RegionListsMapper,
  type MappedRegionLists,
  type WireRegionLists,
  networkPluginOf,
  nodePortRangeOf,
  clusterTagsOf,
  podCidrOf,
  parsePolicyDocument,
  parsePolicyDocumentChecked,
  parsePortRange,
} from './wire/wire-mappers';
export {
  ANNOTATION_BACKEND_TYPE,
  CCM_BACKEND_BATCH_SIZE,
  CCM_WORKQUEUE_QPS,
  ANNOTATION_LEGACY_PREFIX,
  ANNOTATION_PREFIX,
  ANNOTATION_SERVICE_CLASS,
  ANNOTATION_TUNNEL_TYPE,
  CLUSTER_TYPE_DEDICATED,
  DEFAULT_SERVER_WEIGHT,
  FINALIZER_CLB,
  FINALIZER_NLB,
  HYBRID_PROVIDER_ID_PREFIX,
  LABEL_NODE_ROLE_MASTER,
  LABEL_NODE_TYPE,
  LABEL_SERVICE_LOADBALANCER_ID,
  LB_ANNOTATION,
  MANAGED_CLUSTER_CCM_ROLE,
  MASTER_POLICY_PREFIX,
  MASTER_ROLE_PREFIX,
  NLB_LOAD_BALANCER_CLASS,
  NODE_EXCLUDE_LABEL_KEYS,
  NODE_TYPE_VIRTUAL_KUBELET,
  TAG_CCM_OWNER,
  TAG_CLUSTER_ID,
  TAG_REUSED_BY_USER,
  TAINT_TO_BE_DELETED,
  TERWAY_ENI_DEFAULT_SINCE,
} from './ccm/ccm.constants';
export {
  ccmVersionAtLeast,
  compareCcmVersions,
  newerCcmVersion,
  parseCcmVersion,
} from './ccm/version.model';
export type {
  CcmVersion,
  CcmVersionAtLeast,
} from './ccm/version.model';
export {
  getLbAnnotation,
  lbAnnotationKey,
  lbAnnotationSuffixOf,
  legacyLbAnnotationKey,
} from './ccm/annotations.model';
export {
  CcmLbLookup,
  clusterDefaultsToEni,
  defaultLoadBalancerName,
  findServiceClb,
  needClb,
  needNlb,
  reusedLoadBalancerId,
  serviceTrafficPolicy,
} from './ccm/service.model';
export type {
  CcmClbView,
  ServiceClbMatch,
  TrafficPolicy,
  TrafficPolicyDecision,
} from './ccm/service.model';
export {
  CCM_NAME_PREFIX,
  ccmNamedKey,
  listenerDescription,
  parseCcmNamedKey,
  vServerGroupName,
} from './ccm/naming.model';
export type {
  CcmNamedKey,
} from './ccm/naming.model';
export {
  applyCcmWeights,
  backendNodeExclusion,
  backendSyncError,
  candidateNodeExclusion,
  ccmHasFeature,
  ignoresWeightUpdate,
  ccmWeightSettings,
  nodeReadyForCcm,
  parseCcmWeight,
  ecsBackendNodeExclusion,
  schedulableBackendNode,
  eligibleBackendNodes,
  expectedVServerGroups,
  uniformClusterVServerGroups,
  nodeSelectionKey,
  nodeSelectionOptionsOf,
  parseBackendLabel,
  readyEndpoints,
  readyEndpointsByNode,
  dedupeByServer,
  isVirtualKubelet,
  localEniHandling,
} from './ccm/backends.model';
export type {
  LocalEniHandling,
  BackendLabelSelector,
  CcmWeightSettings,
  EligibleNodes,
  ExpectedBackend,
  ExpectedBackendsInput,
  ExpectedVServerGroup,
  UniformVServerGroup,
  NodeExclusionReason,
  NodeSelectionOptions,
  ReadyEndpoint,
} from './ccm/backends.model';
export {
  BACKEND_TYPE_MIN_VERSION,
  CLB_ANNOTATION_MIN_VERSIONS,
  NLB_ANNOTATION_MIN_VERSIONS,
  NLB_MIN_VERSION,
} from './ccm/annotation-versions.constants';
export type {
  AnnotationMinimumVersion,
} from './ccm/annotation-versions.constants';
export {
  annotationMinimumVersion,
  unsupportedAnnotations,
} from './ccm/annotation-versions.model';
export type {
  UnsupportedAnnotation,
} from './ccm/annotation-versions.model';
export {
  CCM_RAM_REQUIREMENTS,
  CCM_RAM_TARGET_VERSION,
} from './ccm/ram-actions.constants';
export type {
  CcmRamRequirement,
} from './ccm/ram-actions.constants';
export {
  ccmRamRequirements,
} from './ccm/ram-actions.model';
export {
  masterRoleCandidates,
} from './ccm/master-role.model';
export type {
  MasterRoleCandidates,
} from './ccm/master-role.model';
export {
  evaluateRamAction,
  missingRamActions,
  ramActionMatches,
} from './ccm/ram-policy.model';
export type {
  RamDecision,
} from './ccm/ram-policy.model';
export {
  CLB_QUOTAS,
  SLB_QUOTA_BACKEND_ATTACHED,
  SLB_QUOTA_BACKEND_SERVERS,
  SLB_QUOTA_INSTANCES,
  SLB_QUOTA_LISTENERS,
} from './ccm/slb-quota.constants';
export type { QuotaDefinition } from './ccm/quota-definition.types';
export * from './lb-kinds';
export {
  effectiveQuota,
} from './ccm/slb-quota.model';
export {
  CCM_FEATURES,
} from './ccm/features.constants';
export type {
  CcmFeature,
  CcmFeatureKey,
} from './ccm/features.constants';
export * from './ccm/listeners.model';
export * from './ccm/nlb-quota.constants';
export * from './ccm/nlb-naming.model';
export * from './ccm/nlb-service.model';
export * from './ccm/nlb-backends.model';
export * from './ccm/nlb-server-diff.model';
export {
  diffVServerGroupBackends,
  ecsOrderOf,
  isBackendOfOwner,
  isCcmNameOfOwner,
} from './ccm/vgroup-diff.model';
export type {
  BackendUpdate,
  EcsOrder,
  VServerGroupBackendDiff,
  VServerGroupOwner,
} from './ccm/vgroup-diff.model';
export {
  CCM_ERROR_ROWS,
  CCM_EVENT_ENSURED,
  CCM_SERVICE_EVENT_REASONS,
} from './ccm/error-events.constants';
export type {
  CcmErrorRow,
} from './ccm/error-events.constants';
export {
  diagnoseServiceEvents,
  isCcmErrorEvent,
  loadBalancerIdOfEventMessage,
  matchCcmErrorRow,
} from './ccm/error-events.model';
export type {
  CcmErrorEvent,
  ServiceEventDiagnosis,
} from './ccm/error-events.model';
export {
  BAD_SURROGATE_MARKER,
  NUL_MARKER,
  csvField,
  escapeMarkdownText,
  flatString,
  hasUnstorableText,
  sanitizeDeep,
  sanitizeText,
  terminalText,
} from './text.util';
export { controlCharacterProblem, firstControlCharacter, hasControlCharacters } from './control-characters.util';
export { compileGlob, globMatches, globWildcardCount, hasGlobWildcard, MAX_GLOB_WILDCARDS, type GlobOptions } from './glob.util';
export { MAX_YAML_EXPANDED_NODES, MAX_YAML_EXPANSION, YamlLoadError, dumpYaml, loadYaml, loadYamlDocuments } from './yaml-load.util';
export {
  DAY_MS,
  DEFAULT_WAIVER_DAYS,
  EXPORTED_WAIVER_STATES,
  MAX_WAIVER_DAYS,
  MIN_WAIVER_REASON_LENGTH,
  WAIVER_CATEGORIES,
  WAIVER_EXPIRING_DAYS,
  WAIVER_STALE_SCANS,
  WaiverMatcher,
  appliedWaiverOf,
  compileResourcePattern,
  waiverCovers,
  waiverFields,
  waiverState,
  waiverTimeState,
} from './waiver.model';
export type {
  AppliedWaiver,
  FindingWaiverStatus,
  WaivedFinding,
  Waiver,
  WaiverCategory,
  WaiverFields,
  WaiverFieldsSource,
  WaiverScope,
  WaiverState,
} from './waiver.model';
export {
  WaiverValidationError,
  resolveWaiverExpiry,
  resolveWaiverInput,
  resolveWaiverUpdate,
  waiverInputSchema,
  waiverUpdateSchema,
} from './waiver.schemas';
export type { ResolvedWaiverInput, WaiverInput, WaiverUpdateInput } from './waiver.schemas';
