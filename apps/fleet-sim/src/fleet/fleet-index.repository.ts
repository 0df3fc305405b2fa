/**
 * The simulated fleet, indexed once at start so every handler answers with map look-ups and
 * slices (fleets of 20,000 nodes are served; no request scans the whole fleet).
 *
 * Layout mirrors the fleet directory (`shared/fleet-format.md`): accounts -> regions -> CLBs,
 * vServer groups, each load-balancer kind's lists (NLBs, listeners, server groups, servers), ECS instances, quotas, clusters. Bodies are kept exactly as the WireFleet holds
 * them (the APIs' native shapes) and served back unchanged.
 */
import { KIND_DATA, kindWireOf } from '@app/domain';
import { indexKindRegion, type KindRegionEntry } from './kind-region.index';
import type {
  WireAccount,
  WireCluster,
  WireEcsInstance,
  WireFleet,
  WireLoadBalancerAttribute,
  WireQuota,
  WireQuotaApplication,
  WireRamPolicy,
  WireRamPolicyRef,
  WireRamRole,
  WireVServerGroupAttribute,
  WireVSwitch,
} from '@app/domain';

/**
 * Fields of one `LoadBalancers.LoadBalancer[]` item of SLB DescribeLoadBalancers (slb-20140515
 * SDK model `DescribeLoadBalancersResponseBodyLoadBalancersLoadBalancer`, see
 * `research/sdk-model-shapes.txt`); the list is a projection of the attribute body.
 */
export const LOAD_BALANCER_LIST_FIELDS = [
  'Address',
  'AddressIPVersion',
  'AddressType',
  'Bandwidth',
  'CreateTime',
  'CreateTimeStamp',
  'DeleteProtection',
  'InstanceChargeType',
  'InternetChargeType',
  'InternetChargeTypeAlias',
  'LoadBalancerId',
  'LoadBalancerName',
  'LoadBalancerSpec',
  'LoadBalancerStatus',
  'MasterZoneId',
  'ModificationProtectionReason',
  'ModificationProtectionStatus',
  'NetworkType',
  'PayType',
  'RegionId',
  'RegionIdAlias',
  'ResourceGroupId',
  'SlaveZoneId',
  'Tags',
  'VSwitchId',
  'VpcId',
] as const;

/**
 * DescribeLoadBalancers reports `InternetChargeType` as a number code with the name in
 * `InternetChargeTypeAlias` (fixture `slb-DescribeLoadBalancers.json`: "3" = paybybandwidth,
 * "4" = paybytraffic per the SLB API metadata), while DescribeLoadBalancerAttribute has the name.
 */
const INTERNET_CHARGE_CODES: Readonly<Record<string, string>> = { paybybandwidth: '3', paybytraffic: '4' };

/** Project a DescribeLoadBalancerAttribute body to a DescribeLoadBalancers list item. */
export function loadBalancerListItem(
  attribute: WireLoadBalancerAttribute,
  regionId: string,
): Record<string, unknown> {
  const src: Record<string, unknown> = attribute;
  const out: Record<string, unknown> = {};
  for (const f of LOAD_BALANCER_LIST_FIELDS) if (src[f] !== undefined) out[f] = src[f];
  out['RegionId'] ??= regionId;
  const charge = src['InternetChargeType'];
  if (typeof charge === 'string' && INTERNET_CHARGE_CODES[charge] !== undefined) {
    out['InternetChargeType'] = INTERNET_CHARGE_CODES[charge];
    out['InternetChargeTypeAlias'] ??= charge;
  }
  return out;
}

/** One CLB with what the SLB handlers need. */
export interface LoadBalancerEntry {
  regionId: string;
  /** DescribeLoadBalancerAttribute body as stored (without RequestId). */
  attribute: WireLoadBalancerAttribute;
  /** DescribeLoadBalancers list item. */
  listItem: Record<string, unknown>;
  /** vServer groups of this CLB, in file order. */
  vServerGroups: WireVServerGroupAttribute[];
  /** Backend server ids in the default server group and every vServer group (`ServerId` filter). */
  serverIds: ReadonlySet<string>;
}

/** ECS instances of one region. */
export interface EcsRegionEntry {
  instances: WireEcsInstance[];
  byId: Map<string, WireEcsInstance>;
  byVpc: Map<string, WireEcsInstance[]>;
}

/** One region of one account. Optional sections are `undefined` when the fleet does not hold them. */
export interface RegionEntry {
  regionId: string;
  loadBalancers?: LoadBalancerEntry[];
  /**
   * The region's data of each load-balancer kind with a data path, by dataset (`nlb`: `WireRegion.nlb`); a kind
   * has no entry when the fleet does not hold its files.
   */
  kinds: Map<string, KindRegionEntry>;
  ecs?: EcsRegionEntry;
  vSwitches?: WireVSwitch[];
  quotas?: WireQuota[];
  /** Applications the fleet records as already filed (`quota-applications.json`), listed with those filed through the simulator. */
  quotaApplications?: WireQuotaApplication[];
  clusters: ClusterEntry[];
  /**
   * ECS instance id -> sysctl name -> value, merged from the `node-sysctls.json` of the
   * region's clusters (what Cloud Assistant `sysctl -n` prints on that node).
   */
  sysctlsByInstance: Map<string, Record<string, string>>;
}

/** One ACK cluster. */
export interface ClusterEntry {
  clusterId: string;
  accountId: string;
  regionId: string;
  cluster: WireCluster;
}

/** RAM data of one account. */
export interface RamEntry {
  roles: WireRamRole[];
  roleByName: Map<string, WireRamRole>;
  /** Key `${PolicyType}:${PolicyName}`. */
  policies: Map<string, WireRamPolicy>;
  rolePolicies: Map<string, WireRamPolicyRef[]>;
}

/** One account. */
export interface AccountEntry {
  accountId: string;
  wire: WireAccount;
  /** Regions in fleet order. */
  regions: RegionEntry[];
  regionById: Map<string, RegionEntry>;
  loadBalancers: Map<string, LoadBalancerEntry>;
  vServerGroups: Map<string, { regionId: string; group: WireVServerGroupAttribute }>;
  /** Clusters of every region, in fleet order. */
  clusters: ClusterEntry[];
  clusterById: Map<string, ClusterEntry>;
  ram?: RamEntry;
}

/** Map key of a RAM policy. */
export const policyKey = (policyType: string, policyName: string): string => `${policyType}:${policyName}`;

function indexRegion(
  accountId: string,
  wire: WireAccount['regions'][number],
  account: AccountEntry,
): RegionEntry {
  const region: RegionEntry = { regionId: wire.regionId, kinds: new Map(), clusters: [], sysctlsByInstance: new Map() };
  if (wire.loadBalancers) {
    const groupsByLb = new Map<string, WireVServerGroupAttribute[]>();
    for (const g of wire.vServerGroups ?? []) {
      const list = groupsByLb.get(g.LoadBalancerId) ?? [];
      list.push(g);
      groupsByLb.set(g.LoadBalancerId, list);
      account.vServerGroups.set(g.VServerGroupId, { regionId: wire.regionId, group: g });
    }
    region.loadBalancers = wire.loadBalancers.map((attribute) => {
      const vServerGroups = groupsByLb.get(attribute.LoadBalancerId) ?? [];
      const serverIds = new Set<string>();
      for (const s of attribute.BackendServers?.BackendServer ?? []) serverIds.add(s.ServerId);
      for (const g of vServerGroups)
        for (const s of g.BackendServers?.BackendServer ?? []) serverIds.add(s.ServerId);
      const entry: LoadBalancerEntry = {
        regionId: wire.regionId,
        attribute,
        listItem: loadBalancerListItem(attribute, wire.regionId),
        vServerGroups,
        serverIds,
      };
      account.loadBalancers.set(attribute.LoadBalancerId, entry);
      return entry;
    });
  }
  if (wire.ecsInstances) {
    const byVpc = new Map<string, WireEcsInstance[]>();
    const byId = new Map<string, WireEcsInstance>();
    for (const i of wire.ecsInstances) {
      byId.set(i.InstanceId, i);
      const vpc = i.VpcAttributes?.VpcId;
      if (vpc === undefined) continue;
      const list = byVpc.get(vpc) ?? [];
      list.push(i);
      byVpc.set(vpc, list);
    }
    region.ecs = { instances: wire.ecsInstances, byId, byVpc };
  }
  for (const data of KIND_DATA) {
    const kindWire = kindWireOf(wire, data);
    if (kindWire) region.kinds.set(data.dataset, indexKindRegion(data, kindWire));
  }
  if (wire.vSwitches) region.vSwitches = wire.vSwitches;
  if (wire.quotas) region.quotas = wire.quotas;
  if (wire.quotaApplications) region.quotaApplications = wire.quotaApplications;
  for (const cluster of wire.clusters) {
    for (const [instanceId, values] of Object.entries(cluster.nodeSysctls ?? {}))
      region.sysctlsByInstance.set(instanceId, { ...region.sysctlsByInstance.get(instanceId), ...values });
    const entry: ClusterEntry = {
      clusterId: cluster.detail.cluster_id,
      accountId,
      regionId: wire.regionId,
      cluster,
    };
    region.clusters.push(entry);
    account.clusters.push(entry);
    account.clusterById.set(entry.clusterId, entry);
  }
  return region;
}

function indexAccount(wire: WireAccount): AccountEntry {
  const accountId = wire.account.accountId;
  const account: AccountEntry = {
    accountId,
    wire,
    regions: [],
    regionById: new Map(),
    loadBalancers: new Map(),
    vServerGroups: new Map(),
    clusters: [],
    clusterById: new Map(),
  };
  for (const r of wire.regions) {
    const region = indexRegion(accountId, r, account);
    account.regions.push(region);
    account.regionById.set(region.regionId, region);
  }
  if (wire.ram) {
    account.ram = {
      roles: wire.ram.roles,
      roleByName: new Map(wire.ram.roles.map((r) => [r.RoleName, r])),
      policies: new Map(wire.ram.policies.map((p) => [policyKey(p.PolicyType, p.PolicyName), p])),
      rolePolicies: new Map(Object.entries(wire.ram.rolePolicies)),
    };
  }
  return account;
}

/** The whole fleet, indexed by account id and (fleet-wide) by cluster id. */
export class FleetIndex {
  /** Accounts in fleet order. */
  readonly accounts: AccountEntry[];
  private readonly accountById: Map<string, AccountEntry>;
  private readonly clusterById: Map<string, ClusterEntry>;

  private constructor(readonly fleet: WireFleet) {
    this.accounts = fleet.accounts.map(indexAccount);
    this.accountById = new Map(this.accounts.map((a) => [a.accountId, a]));
    this.clusterById = new Map();
    for (const a of this.accounts) for (const c of a.clusters) this.clusterById.set(c.clusterId, c);
  }

  /** Index a WireFleet (as `readFleetDirectory` returns it). Does not copy the bodies. */
  static build(fleet: WireFleet): FleetIndex {
    return new FleetIndex(fleet);
  }

  /** An account by numeric id. */
  account(accountId: string): AccountEntry | undefined {
    return this.accountById.get(accountId);
  }

  /** A cluster by id, in any account (Kubernetes API routing). */
  cluster(clusterId: string): ClusterEntry | undefined {
    return this.clusterById.get(clusterId);
  }

  /**
   * The account the base AccessKey reads: the one whose `account.yaml` has `management: true`,
   * else the first account; `undefined` for a fleet without accounts.
   */
  managementAccount(): AccountEntry | undefined {
    return this.accounts.find((a) => a.wire.account.management === true) ?? this.accounts[0];
  }
}
