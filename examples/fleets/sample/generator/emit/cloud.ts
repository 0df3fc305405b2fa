/** Emitters of the cloud side of a region: `load-balancers.json` bodies and `vswitches.json` items. */
import type { Account, Clb, Nlb, VSwitch } from '../types';
import { iso } from '../time';

/**
 * A CLB as SLB 2014-05-15 `DescribeLoadBalancerAttribute` returns it (`load-balancers.json` item).
 *
 * @throws Error when the CLB has no address
 */
export function clbBody(lb: Clb) {
  const body = {
    LoadBalancerId: lb.id,
    LoadBalancerName: lb.name,
    RegionId: lb.reg.id,
    RegionIdAlias: lb.reg.id,
    AddressType: lb.addressType,
    Address: lb.address,
    AddressIPVersion: 'ipv4',
    NetworkType: lb.addressType === 'intranet' ? 'vpc' : 'classic',
    VpcId: lb.vpc,
    VSwitchId: lb.vsw,
    MasterZoneId: lb.zones[0],
    SlaveZoneId: lb.zones[1],
    ...(lb.charge === 'PayBySpec' && !lb.shared ? { LoadBalancerSpec: lb.spec ?? 'slb.s1.small' } : {}),
    InstanceChargeType: lb.charge,
    PayType: 'PayOnDemand',
    InternetChargeType: 'paybytraffic',
    Bandwidth: 5120,
    LoadBalancerStatus: 'active',
    CreateTime: iso(lb.created),
    CreateTimeStamp: lb.created.getTime(),
    EndTime: '2999-09-08T16:00:00Z',
    EndTimeStamp: 32493801600000,
    DeleteProtection: lb.deleteProtection,
    ModificationProtectionStatus: lb.modProtection[0],
    ModificationProtectionReason: lb.modProtection[1],
    ResourceGroupId: lb.reg.account.rg,
    ...lb.extra,
    Tags: { Tag: lb.tags.map(([k, v]) => ({ TagKey: k, TagValue: v })) },
    ListenerPorts: { ListenerPort: lb.listeners.map((l) => l.port) },
    ListenerPortsAndProtocal: { ListenerPortAndProtocal: lb.listeners.map((l) => ({ ListenerPort: l.port, ListenerProtocal: l.protocol })) },
    ListenerPortsAndProtocol: {
      ListenerPortAndProtocol: lb.listeners.map((l) => ({
        ListenerPort: l.port,
        ListenerProtocol: l.protocol,
        ...(l.forward ? { ListenerForward: 'on', ForwardPort: l.forward } : {}),
        ...(l.description !== undefined ? { Description: l.description } : {}),
      })),
    },
    BackendServers: { BackendServer: lb.backends },
  };
  if (body.Address === undefined) throw new Error(`CLB ${lb.id} has no address`);
  return body;
}

/** A vSwitch as VPC `DescribeVSwitches` returns it. */
export function vswitchBody(v: VSwitch, acc: Account) {
  return { ...v, Status: 'Available', IsDefault: false, CreationTime: '2020-09-14T03:10:52Z', ResourceGroupId: acc.rg };
}

/**
 * An NLB as NLB 2022-04-30 `ListLoadBalancers` returns it (`nlb/load-balancers.json` item): CCM's defaults
 * (deletion protection on, modification protection `ConsoleProtection` with reason `managed.by.ack`:
 * research/nlb.md 2, CCM `setDefaultValueForLoadBalancer`), the DNS name CCM writes as the Service's status
 * hostname, and `Tags` inline as `[{Key, Value}]`.
 */
export function nlbBody(lb: Nlb) {
  return {
    LoadBalancerId: lb.id,
    LoadBalancerName: lb.name,
    LoadBalancerType: 'Network',
    LoadBalancerStatus: 'Active',
    LoadBalancerBusinessStatus: 'Normal',
    AddressType: lb.addressType,
    AddressIpVersion: 'ipv4',
    VpcId: lb.vpc,
    DNSName: nlbDnsName(lb),
    ZoneMappings: lb.zones.map(([zone, vsw]) => ({ ZoneId: zone, VSwitchId: vsw, Status: 'Active', LoadBalancerAddresses: [] })),
    CrossZoneEnabled: true,
    DeletionProtectionConfig: { Enabled: true, Reason: 'managed.by.ack' },
    ModificationProtectionConfig: { Status: 'ConsoleProtection', Reason: 'managed.by.ack' },
    LoadBalancerBillingConfig: { PayType: 'PostPay' },
    ResourceGroupId: lb.reg.account.rg,
    RegionId: lb.reg.id,
    CreateTime: iso(lb.created),
    Tags: lb.tags.map(([k, v]) => ({ Key: k, Value: v })),
  };
}

/** The DNS name of an NLB as the API returns it: `<id>.<region>.nlb.aliyuncsslb.com`. */
export function nlbDnsName(lb: Pick<Nlb, 'id' | 'reg'>): string {
  return `${lb.id}.${lb.reg.id}.nlb.aliyuncsslb.com`;
}
