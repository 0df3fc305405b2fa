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

import type { LoadBalancerKindId } from '../lb-kinds/kind-id';

/** One required action. */
export interface CcmRamRequirement {
  /** RAM action, `service:Api`. */
  action: string;
  /** First CCM version that calls it. */
  sinceVersion: string;
  /**
   * `all` clusters, only `flannel` clusters (route management), or only clusters with Services of one load-balancer
   * kind (`nlb`: the NLB controller calls the `nlb:*` API only for Services of class `alibabacloud.com/nlb`).
   */
  appliesTo: 'all' | 'flannel' | LoadBalancerKindId;
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

const NLB_SOURCE =
  'CCM pkg/provider/alibaba/nlb/*.go (auth.NLB.<Action> calls per tag; research/nlb.md 6); ACK "Configure an NLB instance by using annotations" (CCM v2.5.0)';

function nlbActions(sinceVersion: string, purpose: string, actions: string[]): CcmRamRequirement[] {
  return actions.map((a) => ({ action: `nlb:${a}`, sinceVersion, appliesTo: 'nlb' as const, purpose, source: NLB_SOURCE }));
}

/**
 * The `nlb:*` actions the NLB controller calls, by the version that first calls them (research/nlb.md 6: the
 * first open-source tag; v2.5.1 is dated by ACK's v2.5.0, the first version with NLB support). `nlb:ListAsynJobs`
 * is in `CCM_RAM_REQUIREMENTS` from v2.12.1 for every cluster (seed 000/003).
 */
export const CCM_NLB_RAM_REQUIREMENTS: readonly CcmRamRequirement[] = [
  ...nlbActions('v2.5.0', 'NLB lifecycle, listeners and server groups', [
    'AddServersToServerGroup',
    'CreateListener',
    'CreateLoadBalancer',
    'CreateServerGroup',
    'DeleteListener',
    'DeleteLoadBalancer',
    'DeleteServerGroup',
    'DescribeRegions',
    'DescribeZones',
    'GetJobStatus',
    'GetLoadBalancerAttribute',
    'ListListeners',
    'ListLoadBalancers',
    'ListServerGroupServers',
    'ListServerGroups',
    'ListTagResources',
    'RemoveServersFromServerGroup',
    'StartListener',
    'TagResources',
    'UntagResources',
    'UpdateListenerAttribute',
    'UpdateLoadBalancerAddressTypeConfig',
    'UpdateLoadBalancerAttribute',
    'UpdateLoadBalancerZones',
    'UpdateServerGroupAttribute',
    'UpdateServerGroupServersAttribute',
  ]),
  ...nlbActions('v2.6.0', 'NLB security groups (security-group-ids)', ['LoadBalancerJoinSecurityGroup', 'LoadBalancerLeaveSecurityGroup']),
  ...nlbActions('v2.9.1', 'NLB bandwidth packages, IPv6 and protections', [
    'AttachCommonBandwidthPackageToLoadBalancer',
    'DetachCommonBandwidthPackageFromLoadBalancer',
    'EnableLoadBalancerIpv6Internet',
    'DisableLoadBalancerIpv6Internet',
    'UpdateLoadBalancerProtection',
  ]),
  ...nlbActions('v2.13.0', 'NLB TCPSSL additional certificates', [
    'ListListenerCertificates',
    'AssociateAdditionalCertificatesWithListener',
    'DisassociateAdditionalCertificatesWithListener',
  ]),
];

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
  ...CCM_NLB_RAM_REQUIREMENTS,
];

/**
 * The CCM version the RAM audit checks a dedicated cluster against besides the installed one: the first
 * version needing every documented newer-feature action (seed 000: v2.11.2 Flannel routes, v2.12.1 NLB).
 */
export const CCM_RAM_TARGET_VERSION = 'v2.12.1';
