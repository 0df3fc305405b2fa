/**
 * Test data: the NLB part of one region (`WireRegion.nlb`, the four `regions/<regionId>/nlb/` files in
 * NLB 2022-04-30 List* shapes, libs/domain `wire-nlb.schemas.ts`), shaped as CCM's nlbv2 controller builds
 * it (research/nlb.md sections 3.1 and 4): per NLB one TCP listener per port, one server group per
 * listener named `k8s.{port}.TCP.{svc}.{ns}.{clusterId}` and tagged `kubernetes.do.not.delete` /
 * `ack.aliyun.com`, `Ecs` servers at the NodePort with weight 100. Plus leaked server groups (CCM-tagged,
 * no related NLB, no servers: the pre-v2.12.4 leak of research/nlb.md 3.3). Listeners are grouped by NLB
 * and servers by server group, in NLB order: the order a live crawl reads them back in.
 * Deterministic ids; sizes chosen by the caller so listings need several pages.
 */
import type { WireNlbRegion } from '@app/domain';

/** Sizes of the NLB data of one region. */
export interface NlbRegionSpec {
  /** NLB instances. */
  loadBalancers: number;
  /** Listeners (and server groups) per NLB. */
  listenersPerLb: number;
  /** Servers per server group (`ServerCount`). */
  serversPerGroup: number;
  /** Extra server groups with no NLB and no servers (`ServerCount` 0). */
  leakedGroups?: number;
  /** Prefix that keeps ids apart between regions and accounts (hex digits). */
  idPrefix?: string;
  regionId?: string;
  vpcId?: string;
  clusterId?: string;
}

const hex = (n: number, width: number) => n.toString(16).padStart(width, '0');

/** NLB id number `i` of a spec. */
export const nlbIdOf = (prefix: string, i: number) => `nlb-${prefix}${hex(i, 12)}`;
/** Server group id number `i` of a spec. */
export const serverGroupIdOf = (prefix: string, i: number) => `sgp-${prefix}${hex(i, 12)}`;

/** Build the NLB data of one region (see the module comment). */
export function nlbRegionOf(spec: NlbRegionSpec): WireNlbRegion {
  const prefix = spec.idPrefix ?? 'a0';
  const regionId = spec.regionId ?? 'cn-hangzhou';
  const vpcId = spec.vpcId ?? 'vpc-bp1simtestvpc0001';
  const clusterId = spec.clusterId ?? 'c0123456789abcdef0123456789abcdef';
  const out: WireNlbRegion = { loadBalancers: [], listeners: [], serverGroups: [], servers: [] };
  let group = 0;
  for (let i = 0; i < spec.loadBalancers; i++) {
    const lbId = nlbIdOf(prefix, i);
    const uidName = `a${prefix}${hex(i, 31 - prefix.length)}`;
    const svc = `nlb-svc-${i}`;
    const tags = [
      { Key: 'kubernetes.do.not.delete', Value: uidName },
      { Key: 'ack.aliyun.com', Value: clusterId },
    ];
    out.loadBalancers.push({
      LoadBalancerId: lbId,
      LoadBalancerName: uidName,
      LoadBalancerStatus: 'Active',
      LoadBalancerBusinessStatus: 'Normal',
      AddressType: i % 2 === 0 ? 'Internet' : 'Intranet',
      AddressIpVersion: 'ipv4',
      VpcId: vpcId,
      DNSName: `${lbId}.${regionId}.nlb.aliyuncsslb.com`,
      ZoneMappings: [
        { ZoneId: `${regionId}-h`, VSwitchId: 'vsw-bp1simtest0001', Status: 'Active' },
        { ZoneId: `${regionId}-i`, VSwitchId: 'vsw-bp1simtest0002', Status: 'Active' },
      ],
      RegionId: regionId,
      CreateTime: '2026-01-02T03:04:05Z',
      LoadBalancerType: 'Network',
      ModificationProtectionConfig: { Status: 'ConsoleProtection', Reason: 'managed.by.ack' },
      Tags: tags,
    });
    for (let l = 0; l < spec.listenersPerLb; l++) {
      const port = 80 + l;
      const nodePort = 30000 + ((i * spec.listenersPerLb + l) % 2000);
      const sgId = serverGroupIdOf(prefix, group++);
      const key = `k8s.${nodePort}.TCP.${svc}.default.${clusterId}`;
      out.listeners.push({
        ListenerId: `lsn-${prefix}${hex(i, 8)}${hex(l, 4)}@${port}`,
        LoadBalancerId: lbId,
        ListenerProtocol: 'TCP',
        ListenerPort: port,
        ListenerDescription: `k8s.${port}.TCP.${svc}.default.${clusterId}`,
        ServerGroupId: sgId,
        ListenerStatus: 'Running',
        IdleTimeout: 900,
      });
      out.serverGroups.push({
        ServerGroupId: sgId,
        ServerGroupName: key,
        ServerGroupType: 'Instance',
        ServerGroupStatus: 'Available',
        Protocol: 'TCP',
        VpcId: vpcId,
        RelatedLoadBalancerIds: [lbId],
        ServerCount: spec.serversPerGroup,
        Scheduler: 'Wrr',
        Tags: tags,
      });
      for (let s = 0; s < spec.serversPerGroup; s++)
        out.servers.push({
          ServerGroupId: sgId,
          ServerId: `i-${prefix}nlbnode${hex(s, 8)}`,
          ServerIp: `10.0.${Math.floor(s / 250)}.${(s % 250) + 1}`,
          ServerType: 'Ecs',
          Port: nodePort,
          Weight: 100,
          Status: 'Available',
          ZoneId: `${regionId}-${s % 2 === 0 ? 'h' : 'i'}`,
          Description: key,
        });
    }
  }
  for (let k = 0; k < (spec.leakedGroups ?? 0); k++) {
    const uidName = `a${prefix}leak${hex(k, 27 - prefix.length)}`;
    out.serverGroups.push({
      ServerGroupId: serverGroupIdOf(prefix, group++),
      ServerGroupName: `k8s.${31000 + k}.TCP.gone-${k}.default.${clusterId}`,
      ServerGroupType: 'Instance',
      ServerGroupStatus: 'Available',
      Protocol: 'TCP',
      VpcId: vpcId,
      RelatedLoadBalancerIds: [],
      ServerCount: 0,
      Tags: [
        { Key: 'kubernetes.do.not.delete', Value: uidName },
        { Key: 'ack.aliyun.com', Value: clusterId },
      ],
    });
  }
  return out;
}
