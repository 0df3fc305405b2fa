/**
 * WireFleet: a fleet in the APIs' native wire shapes, validated by `wire.schemas.ts`.
 *
 * It is the meeting point of the three sources: the offline loader reads it from a fleet directory,
 * the simulator serves it, and the live collectors assemble it from API responses. One mapper
 * (`mapWireFleet`) turns it into the FleetSnapshot the checks analyse.
 */
import type { CoverageEntry } from '../snapshot.types';
import type {
  AccountYaml,
  K8sEndpointSliceWire,
  K8sEventWire,
  K8sNodeWire,
  K8sPodWire,
  K8sServiceWire,
  WireAddons,
  WireClusterDetail,
  WireClusterResources,
  WireEcsInstance,
  WireLoadBalancerAttribute,
  WireNodeSysctls,
  WireQuota,
  WireQuotaApplication,
  WireRamPolicy,
  WireRamPolicyRef,
  WireRamRole,
  WireVServerGroupAttribute,
  WireVSwitch,
} from './wire.schemas';
import type { WireNlbRegion } from './wire-nlb.schemas';

/** A fleet in wire shapes. Optional sections are `undefined` when not read (see snapshot.types.ts). */
export interface WireFleet {
  name: string;
  description?: string;
  /** Accounts in directory / config order. */
  accounts: WireAccount[];
  /** Coverage gathered while reading. */
  coverage: CoverageEntry[];
}

/** RAM data of an account in wire shapes. */
export interface WireRam {
  roles: WireRamRole[];
  policies: WireRamPolicy[];
  rolePolicies: Record<string, WireRamPolicyRef[]>;
}

/** One account in wire shapes. */
export interface WireAccount {
  account: AccountYaml;
  ram?: WireRam;
  regions: WireRegion[];
}

/** One region in wire shapes. */
export interface WireRegion {
  regionId: string;
  loadBalancers?: WireLoadBalancerAttribute[];
  vServerGroups?: WireVServerGroupAttribute[];
  ecsInstances?: WireEcsInstance[];
  vSwitches?: WireVSwitch[];
  quotas?: WireQuota[];
  /** ListQuotaApplications items of products slb and nlb in this region; `undefined` when not read. */
  quotaApplications?: WireQuotaApplication[];
  /** The four `nlb/` files (NLB 2022-04-30 List* items); `undefined` when not read (an `nlb` coverage gap). */
  nlb?: WireNlbRegion;
  clusters: WireCluster[];
}

/** Kubernetes objects of one cluster, as `kubectl get -o json` items. */
export interface WireKubernetes {
  nodes: K8sNodeWire[];
  services: K8sServiceWire[];
  pods: K8sPodWire[];
  endpointSlices: K8sEndpointSliceWire[];
  events: K8sEventWire[];
}

/** One ACK cluster in wire shapes. */
export interface WireCluster {
  detail: WireClusterDetail;
  addons?: WireAddons;
  resources?: WireClusterResources;
  nodeSysctls?: WireNodeSysctls;
  kubernetes?: WireKubernetes;
}
