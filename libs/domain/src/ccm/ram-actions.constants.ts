/**
 * RAM actions the CCM needs, by the CCM version that first needs them.
 *
 * Only two kinds of rows, to keep false positives out of a permission-gap audit:
 * - a baseline the CCM has called since v1.9.3 for CLB Services and (Flannel) VPC routes: every action is
 *   both in the CCM repository's own `docs/examples/master.policy` (explicitly or via `slb:Describe*` /
 *   `vpc:Describe*`) and in the API calls of `pkg/provider/alibaba/*` (CCM notes 5.1 (docs/sources.md#ccm-5), 5.2);
 * - the newer-feature actions the ACK docs tell dedicated-cluster owners to add before upgrading
 *   (seed 000/003 "How to add required permissions when you upgrade the CCM component to a later version
 *   in an ACK dedicated cluster"; CCM notes 5.3 (docs/sources.md#ccm-5)).
 */

/** One required action. */
export interface CcmRamRequirement {
  /** RAM action, `service:Api`. */
  action: string;
  /** First CCM version that calls it. */
  sinceVersion: string;
  /** `all` clusters, or only `flannel` clusters (route management). */
  appliesTo: 'all' | 'flannel';
  /** Why (what CCM does with it). */
  purpose: string;
  source: string;
}

const BASELINE_SOURCE =
  'CCM docs/examples/master.policy and pkg/provider/alibaba/slb, pkg/provider/alibaba/vpc (CCM notes 5.1 (docs/sources.md#ccm-5)-5.2)';
const SEED_SOURCE =
  'ACK "Service FAQ" (docs/sources.md#ack-service-faq) "How to add required permissions when you upgrade the CCM component ... in an ACK dedicated cluster"';

function baseline(purpose: string, appliesTo: 'all' | 'flannel', actions: string[]): CcmRamRequirement[] {
  return actions.map((action) => ({
    action,
    sinceVersion: 'v1.9.3',
    appliesTo,
    purpose,
    source: BASELINE_SOURCE,
  }));
}

/** The table, oldest first. */
export const CCM_RAM_REQUIREMENTS: readonly CcmRamRequirement[] = [
  ...baseline('CLB lifecycle', 'all', [
    'slb:DescribeLoadBalancers',
    'slb:DescribeLoadBalancerAttribute',
    'slb:CreateLoadBalancer',
    'slb:DeleteLoadBalancer',
  ]),
  ...baseline('CLB listeners', 'all', [
    'slb:CreateLoadBalancerTCPListener',
    'slb:CreateLoadBalancerUDPListener',
    'slb:DeleteLoadBalancerListener',
    'slb:StartLoadBalancerListener',
    'slb:StopLoadBalancerListener',
    'slb:SetLoadBalancerTCPListenerAttribute',
    'slb:SetLoadBalancerUDPListenerAttribute',
  ]),
  ...baseline('CLB vServer groups and backends', 'all', [
    'slb:CreateVServerGroup',
    'slb:DeleteVServerGroup',
    'slb:DescribeVServerGroups',
    'slb:DescribeVServerGroupAttribute',
    'slb:SetVServerGroupAttribute',
    'slb:AddVServerGroupBackendServers',
    'slb:RemoveVServerGroupBackendServers',
    'slb:ModifyVServerGroupBackendServers',
  ]),
  ...baseline('node to ECS instance lookup', 'all', ['ecs:DescribeInstances']),
  ...baseline('Flannel pod routes (route controller)', 'flannel', [
    'vpc:DescribeRouteTableList',
    'vpc:DescribeRouteEntryList',
    'vpc:CreateRouteEntry',
    'vpc:DeleteRouteEntry',
  ]),
  {
    action: 'vpc:CreateRouteEntries',
    sinceVersion: 'v2.11.2',
    appliesTo: 'flannel',
    purpose: 'batch route management in Flannel networks',
    source: SEED_SOURCE,
  },
  {
    action: 'vpc:DeleteRouteEntries',
    sinceVersion: 'v2.11.2',
    appliesTo: 'flannel',
    purpose: 'batch route management in Flannel networks',
    source: SEED_SOURCE,
  },
  {
    action: 'nlb:ListAsynJobs',
    sinceVersion: 'v2.12.1',
    appliesTo: 'all',
    purpose: 'batch management of NLB',
    source: SEED_SOURCE,
  },
];

/**
 * The CCM version the RAM audit checks a dedicated cluster against besides the installed one: the first
 * version needing every documented newer-feature action (seed 000: v2.11.2 Flannel routes, v2.12.1 NLB).
 */
export const CCM_RAM_TARGET_VERSION = 'v2.12.1';
