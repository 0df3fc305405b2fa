/**
 * Typed GraphQL for capacity planning (libs/forecast) and token management: object types mirroring the REST
 * response shapes of `/v1/forecasts/{trends,headroom,whatif}` (libs/forecast TrendEntry, HeadroomEntry,
 * WhatIfResult) and `/v1/tokens` (TokenDto), and input types mirroring the REST what-if scenario body and the
 * token creation body. Units are in each field's description: counts, counts per day, seconds, ISO 8601 times,
 * ratios (used / limit, 0..1 and above when over). Lists of resources (trend series, clusters' headroom, a
 * what-if step's quota changes and findings, tokens) are Relay connections (graphql.types.ts `Connection`);
 * value lists bound by their node (a step's headroom of its one cluster, resources already over a limit) are
 * plain lists.
 */
import { Field, Float, ID, InputType, Int, ObjectType, registerEnumType } from '@nestjs/graphql';
import { Connection, FindingKeyType, FindingRef, QuotaRef, ResourceKeyType, SeverityValue } from './graphql.types';

export { FindingRef, QuotaRef };

export enum TrendStatusValue {
  ok = 'ok',
  insufficient_data = 'insufficient_data',
  flat = 'flat',
  decreasing = 'decreasing',
  exhausted = 'exhausted',
}
registerEnumType(TrendStatusValue, {
  name: 'TrendStatus',
  description: 'ok: grows toward its limit; exhausted: at or over it; flat / decreasing: no exhaustion ahead; insufficient_data: too few samples or too short a span',
});

export enum RoleValue {
  viewer = 'viewer',
  operator = 'operator',
  admin = 'admin',
}
registerEnumType(RoleValue, { name: 'Role', description: 'viewer (read), operator (+ start scans, what-ifs), admin (+ manage tokens and waivers of others)' });

export enum TrafficPolicyValue {
  Cluster = 'Cluster',
  Local = 'Local',
}
registerEnumType(TrafficPolicyValue, { name: 'TrafficPolicy', description: 'A Service’s externalTrafficPolicy' });

/** The resource of a quota series (libs/forecast SeriesResource). */
@ObjectType({ description: 'The resource a quota series measures (check + account + region + kind + id)' })
export class SeriesResource extends ResourceKeyType {
  @Field(() => String, { nullable: true, description: 'Null when the resource is not in a cluster (a CLB, a region)' })
  clusterId!: string | null;
}

@ObjectType({ description: 'Seconds from the forecast clock until usage reaches the limit: p10 (early), p50, p90 (late)' })
export class SecondsQuantiles {
  @Field(() => Float, { nullable: true, description: 'Seconds (0 when exhausted; null where the status has no answer)' })
  p10!: number | null;
  @Field(() => Float, { nullable: true, description: 'Seconds (median)' })
  p50!: number | null;
  @Field(() => Float, { nullable: true, description: 'Seconds (null also when the data does not rule out no growth)' })
  p90!: number | null;
}

@ObjectType({ description: 'The forecast clock plus secondsToExhaustion, as ISO 8601 times (null where the seconds are null)' })
export class TimeQuantiles {
  @Field(() => String, { nullable: true, description: 'ISO 8601' })
  p10!: string | null;
  @Field(() => String, { nullable: true, description: 'ISO 8601' })
  p50!: string | null;
  @Field(() => String, { nullable: true, description: 'ISO 8601' })
  p90!: string | null;
}

/** One trend entry (libs/forecast TrendEntry; REST GET /v1/forecasts/trends `trends[]`). */
@ObjectType({ description: 'Time to exhaustion of one stored quota series (Theil-Sen trend over the window)' })
export class QuotaTrend {
  @Field()
  checkId!: string;
  @Field(() => SeriesResource)
  resource!: SeriesResource;
  @Field(() => TrendStatusValue)
  status!: TrendStatusValue;
  @Field(() => Float, { description: 'Latest observed usage (count)' })
  used!: number;
  @Field(() => Float, { description: 'Latest limit (count)' })
  limit!: number;
  @Field(() => Float, { nullable: true, description: 'Theil-Sen slope (counts per day); null with too few samples' })
  slopePerDay!: number | null;
  @Field(() => Int, { description: 'Samples in the window (count)' })
  samples!: number;
  @Field(() => SecondsQuantiles)
  secondsToExhaustion!: SecondsQuantiles;
  @Field(() => TimeQuantiles)
  exhaustsAt!: TimeQuantiles;
}

@ObjectType({ description: 'A resource already over its limit' })
export class OverQuota extends QuotaRef {
  @Field(() => Float, { description: 'Count' })
  used!: number;
  @Field(() => Float, { description: 'Count' })
  limit!: number;
}

/** libs/forecast HeadroomAnswer, flattened: `{headroom, limitedBy}` or `{alreadyOver}`. */
@ObjectType({ description: 'How many more fit before the first quota breach, or what is already over its limit' })
export class HeadroomAnswer {
  @Field(() => Int, { nullable: true, description: 'More that fit (count); null when no modelled quota limits it, or when alreadyOver is not empty' })
  headroom!: number | null;
  @Field(() => QuotaRef, { nullable: true, description: 'The quota reached first (null: unlimited, or already over)' })
  limitedBy!: QuotaRef | null;
  @Field(() => [OverQuota], { description: 'Resources already over their limit (empty unless over; then headroom is null)' })
  alreadyOver!: OverQuota[];
}

/** Headroom of one cluster (libs/forecast HeadroomEntry). */
@ObjectType({ description: 'Headroom of one cluster on the latest stored snapshot' })
export class ClusterHeadroom {
  @Field()
  clusterId!: string;
  @Field({ description: "The cluster's name (cluster.json `name`)" })
  clusterName!: string;
  @Field(() => HeadroomAnswer, { description: 'Nodes (count) like the `like` node' })
  nodes!: HeadroomAnswer;
  @Field(() => HeadroomAnswer, { description: 'Cluster-mode Services (count) with `ports` ports each' })
  clusterModeServices!: HeadroomAnswer;
  @Field(() => HeadroomAnswer, { description: 'Local-mode Services (count) with `podsPerService` pods each' })
  localServices!: HeadroomAnswer;
  @Field(() => HeadroomAnswer, { nullable: true, description: 'Cluster-mode NLB Services (count) with `ports` ports each; null: NLB data not read or CCM without the NLB controller' })
  nlbClusterModeServices!: HeadroomAnswer | null;
  @Field(() => HeadroomAnswer, { nullable: true, description: 'Local NLB Services (count) with `podsPerService` pods each; null as nlbClusterModeServices' })
  nlbLocalServices!: HeadroomAnswer | null;
}

/** REST GET /v1/forecasts/headroom: the snapshot's scan id; `clusters` resolves the entries as a connection. */
@ObjectType({ description: 'Headroom of every cluster of the latest stored snapshot' })
export class HeadroomReport {
  @Field(() => ID, { description: 'The scan whose snapshot was read' })
  scanId!: string;
  /** Every entry (paged by the `clusters` field). */
  entries!: ClusterHeadroom[];
}

@ObjectType({ description: 'Use of one quota' })
export class QuotaUse {
  @Field(() => Float, { description: 'Count' })
  used!: number;
  @Field(() => Float, { description: 'Count' })
  limit!: number;
  @Field(() => Float, { description: 'used / limit (ratio; above 1 when over)' })
  ratio!: number;
}

@ObjectType({ description: 'A quota whose use a what-if step changed' })
export class QuotaChange extends QuotaRef {
  @Field(() => QuotaUse)
  before!: QuotaUse;
  @Field(() => QuotaUse)
  after!: QuotaUse;
}

@ObjectType({ description: 'A finding whose severity a what-if step changed' })
export class SeverityChange extends FindingKeyType {
  @Field(() => SeverityValue)
  before!: SeverityValue;
  @Field(() => SeverityValue)
  after!: SeverityValue;
}

/** The findings diff of one step; `appeared`, `resolved` and `severityChanged` resolve as connections. */
@ObjectType({ description: 'How the findings changed in one what-if step' })
export class WhatIfFindings {
  appearedItems!: FindingRef[];
  resolvedItems!: FindingRef[];
  severityChangedItems!: SeverityChange[];
}

/** One what-if step (libs/forecast WhatIfStep); `quotas` resolves as a connection. */
@ObjectType({ description: 'The result of one scenario step' })
export class WhatIfStep {
  @Field({ description: 'The step, as `<n>. <kind>`' })
  name!: string;
  @Field(() => QuotaChange, { nullable: true, description: 'The first quota of the step with after.used > after.limit, or null' })
  firstBreach!: QuotaChange | null;
  @Field(() => WhatIfFindings)
  findings!: WhatIfFindings;
  @Field(() => [ClusterHeadroom], { description: 'Headroom of the step’s cluster after the step (one entry)' })
  headroom!: ClusterHeadroom[];
  quotaItems!: QuotaChange[];
}

@ObjectType({ description: 'OpenAPI calls CCM makes to one action' })
export class ApiCallCount {
  @Field({ description: 'Alibaba Cloud OpenAPI action, e.g. CreateVServerGroup' })
  action!: string;
  @Field(() => Int, { description: 'Count' })
  calls!: number;
}

@ObjectType({ description: 'Wall time until the last Service converges' })
export class WallSeconds {
  @Field(() => Float, { description: 'Seconds (median)' })
  p50!: number;
  @Field(() => Float, { description: 'Seconds (95th percentile)' })
  p95!: number;
}

/** libs/forecast ConvergenceEstimate (`callsPerApi` as a list sorted by action). */
@ObjectType({ description: 'CCM’s work to apply the whole scenario and how long it takes' })
export class ConvergenceEstimate {
  @Field(() => Int, { description: 'Services CCM reconciles (count)' })
  services!: number;
  @Field(() => [ApiCallCount], { description: 'Calls per OpenAPI action, sorted by action' })
  callsPerApi!: ApiCallCount[];
  @Field(() => Int, { description: 'Total calls (count)' })
  calls!: number;
  @Field(() => WallSeconds)
  wallSeconds!: WallSeconds;
  @Field({ description: 'Which bound dominates: concurrency | rate-limits' })
  boundBy!: string;
}

/** REST POST /v1/forecasts/whatif response. */
@ObjectType({ description: 'A what-if scenario run on the latest stored snapshot' })
export class WhatIfResult {
  @Field(() => ID, { description: 'The scan whose snapshot was copied' })
  scanId!: string;
  @Field({ description: 'The scenario name' })
  scenario!: string;
  @Field(() => [WhatIfStep], { description: 'One result per scenario step, in order (the steps you sent; not paged)' })
  steps!: WhatIfStep[];
  @Field(() => ConvergenceEstimate)
  convergence!: ConvergenceEstimate;
}

/** One Service a plan changes (libs/forecast PlannedService). */
@ObjectType({ description: 'A Service the planned change creates, updates or deletes' })
export class PlannedService {
  @Field({ description: 'namespace/name' })
  service!: string;
  @Field({ description: 'create | update | delete' })
  action!: string;
  @Field({ nullable: true, description: 'The manifest document it came from (absent for a deletion)' })
  source?: string;
  @Field(() => Int, { nullable: true, description: 'Ready pods behind it after the change (count); null: the pods it has in the cluster' })
  pods?: number;
  @Field(() => [String], { description: 'The workloads of the manifests selecting it (Kind/name)' })
  workloads!: string[];
}

/** REST POST /v1/plans response. */
@ObjectType({ description: 'What applying Kubernetes manifests does to a cluster of the latest stored scan' })
export class PlanResult {
  @Field(() => ID, { description: 'The scan whose snapshot was planned against' })
  scanId!: string;
  @Field(() => ID, { description: 'The target cluster id' })
  clusterId!: string;
  @Field({ description: 'The target cluster name' })
  clusterName!: string;
  @Field(() => [PlannedService])
  services!: PlannedService[];
  @Field(() => WhatIfStep, { description: 'Quotas before and after, the first breach, findings added and resolved, headroom after' })
  step!: WhatIfStep;
  @Field(() => ConvergenceEstimate)
  convergence!: ConvergenceEstimate;
}

@InputType({ description: 'A Kubernetes label' })
export class LabelInput {
  @Field()
  key!: string;
  @Field()
  value!: string;
}

@InputType({ description: 'Add `count` nodes copied from `like` (default: the first ready worker)' })
export class AddNodesInput {
  @Field({ description: 'Cluster id or name' })
  cluster!: string;
  @Field(() => Int, { description: 'Nodes to add (1..100000)' })
  count!: number;
  @Field(() => String, { nullable: true, description: 'Node to copy (labels, ECS type, vSwitch)' })
  like?: string | null;
  @Field(() => [LabelInput], { nullable: true, description: 'Labels set on the new nodes, over the copied ones' })
  labels?: LabelInput[] | null;
}

@InputType({ description: 'Remove the named nodes' })
export class RemoveNodesInput {
  @Field()
  cluster!: string;
  @Field(() => [String])
  names!: string[];
}

@InputType({ description: 'Add `count` Services of type LoadBalancer' })
export class AddServicesInput {
  @Field()
  cluster!: string;
  @Field()
  namespace!: string;
  @Field(() => Int, { description: 'Services to add (1..100000)' })
  count!: number;
  @Field(() => TrafficPolicyValue, { nullable: true, description: 'Default Cluster' })
  externalTrafficPolicy?: TrafficPolicyValue | null;
  @Field(() => [Int], { nullable: true, description: 'Ports of each Service (1..65535, 1..50 of them; default [80])' })
  ports?: number[] | null;
  @Field(() => Int, { nullable: true, description: 'Pods per Service (0..10000, default 2)' })
  podsPerService?: number | null;
  @Field(() => String, { nullable: true, description: 'Reuse this existing CLB instead of one new CLB each' })
  reuseLoadBalancer?: string | null;
  @Field(() => String, { nullable: true, description: 'Name prefix of the new Services (default whatif)' })
  namePrefix?: string | null;
  @Field(() => String, { nullable: true, description: '`alibabacloud.com/nlb`: NLB Services (one NLB each, one listener and server group per port); default CLB' })
  loadBalancerClass?: string | null;
}

@InputType({ description: 'Move CLB Services to NLB (delete and re-create each with loadBalancerClass alibabacloud.com/nlb)' })
export class MigrateToNlbInput {
  @Field()
  cluster!: string;
  @Field(() => [String], { description: '`namespace/name` of each CLB Service (1..1000)' })
  services!: string[];
}

@InputType({ description: 'Set the externalTrafficPolicy of matching Services' })
export class SetTrafficPolicyInput {
  @Field()
  cluster!: string;
  @Field(() => [String], { description: '`namespace/name` patterns; `*` matches any run of characters' })
  services!: string[];
  @Field(() => TrafficPolicyValue)
  policy!: TrafficPolicyValue;
}

@InputType({ description: 'Upgrade the cluster’s CCM' })
export class UpgradeCcmInput {
  @Field()
  cluster!: string;
  @Field({ description: 'A CCM version like v2.12.1' })
  version!: string;
}

@InputType({ description: 'Scale a Service’s pods' })
export class ScalePodsInput {
  @Field()
  cluster!: string;
  @Field({ description: '`namespace/name`' })
  service!: string;
  @Field(() => Int, { description: 'Replicas (0..100000)' })
  replicas!: number;
}

/** One scenario step: exactly one field set (the REST body's `{<kind>: {...}}`). */
@InputType({ description: 'One scenario step: set exactly one field' })
export class ScenarioStepInput {
  @Field(() => AddNodesInput, { nullable: true })
  addNodes?: AddNodesInput | null;
  @Field(() => RemoveNodesInput, { nullable: true })
  removeNodes?: RemoveNodesInput | null;
  @Field(() => AddServicesInput, { nullable: true })
  addServices?: AddServicesInput | null;
  @Field(() => SetTrafficPolicyInput, { nullable: true })
  setTrafficPolicy?: SetTrafficPolicyInput | null;
  @Field(() => UpgradeCcmInput, { nullable: true })
  upgradeCcm?: UpgradeCcmInput | null;
  @Field(() => ScalePodsInput, { nullable: true })
  scalePods?: ScalePodsInput | null;
  @Field(() => MigrateToNlbInput, { nullable: true })
  migrateToNlb?: MigrateToNlbInput | null;
}

/** The REST what-if body (libs/forecast scenario.schema.ts), validated by the same zod schema. */
@InputType({ description: 'A what-if scenario (the POST /v1/forecasts/whatif body)' })
export class ScenarioInput {
  @Field({ description: 'fleet-audit/v1' })
  apiVersion!: string;
  @Field({ description: 'Scenario' })
  kind!: string;
  @Field()
  name!: string;
  @Field(() => [ScenarioStepInput], { description: 'Applied in order (1..1000)' })
  steps!: ScenarioStepInput[];
}

/** A token as listed (REST TokenDto): never the secret nor its hash. */
@ObjectType({ description: 'A scoped API token (never its secret)' })
export class ApiToken {
  @Field(() => ID, { description: 'The public part of fa_<id>_<secret>' })
  id!: string;
  @Field()
  name!: string;
  @Field(() => RoleValue)
  role!: RoleValue;
  @Field(() => [String], { nullable: true, description: 'Account ids it may read; null = every account' })
  accounts!: string[] | null;
  @Field(() => [String], { nullable: true, description: 'Teams (owners) it may read within its accounts; null = every team' })
  teams!: string[] | null;
  @Field({ description: 'ISO 8601' })
  createdAt!: string;
  @Field({ description: 'ISO 8601' })
  expiresAt!: string;
  @Field(() => String, { nullable: true, description: 'ISO 8601; last authenticated use (updated at most once a minute)' })
  lastUsedAt!: string | null;
  @Field(() => String, { nullable: true, description: 'ISO 8601' })
  revokedAt!: string | null;
  @Field({ description: 'Creator: a token id, bootstrap (API_TOKEN) or cli' })
  createdBy!: string;
}

@ObjectType({ description: 'A created token: `token` is shown only here' })
export class CreateTokenPayload {
  @Field({ description: 'The token (fa_<id>_<secret>); shown once, store it now' })
  token!: string;
  @Field(() => ApiToken)
  apiToken!: ApiToken;
}

/** The REST POST /v1/tokens body, with the lifetime as the CLI's `--expires-in`. */
@InputType({ description: 'A token to create (admin; a scoped admin only within its accounts)' })
export class CreateTokenInput {
  @Field(() => RoleValue)
  role!: RoleValue;
  @Field(() => [String], { nullable: true, description: 'Alibaba Cloud account ids it may read; omitted: every account (all-accounts admins only)' })
  accounts?: string[] | null;
  @Field(() => [String], { nullable: true, description: 'Teams (owners) it may read within its accounts; omitted: every team (needs accounts)' })
  teams?: string[] | null;
  @Field(() => String, { nullable: true, description: 'Lifetime: 90d, 12h or 30m (default 90d, at most 365d)' })
  expiresIn?: string | null;
  @Field(() => String, { nullable: true, description: 'What the token is for (at most 200 characters)' })
  name?: string | null;
}

export const QuotaTrendConnection = Connection(QuotaTrend, 'QuotaTrend');
export const ClusterHeadroomConnection = Connection(ClusterHeadroom, 'ClusterHeadroom');
export const QuotaChangeConnection = Connection(QuotaChange, 'QuotaChange');
export const FindingRefConnection = Connection(FindingRef, 'FindingRef');
export const SeverityChangeConnection = Connection(SeverityChange, 'SeverityChange');
export const ApiTokenConnection = Connection(ApiToken, 'ApiToken');
