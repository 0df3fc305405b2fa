/**
 * acme-data / cn-hangzhou: the ACK Pro Terway cluster "data-platform" (CCM v2.12.3, ENI backends by default)
 * and the shared-services VPC.
 */
import { TAG_REUSED_BY_USER, vServerGroupName } from '@app/domain';
import { A, ACCOUNT_B, lbOf, quotaApplication, type SampleFleet } from '../model';
import { HEX, REGIONS } from '../random';
import { D, plus } from '../time';

/**
 * Builds data-platform: superset (ENI backends, PayByCLCU), metabase reusing superset's CCM-created CLB
 * (LB_REUSE_OF_CCM_CREATED) and thanos-query reusing the shared-services CLB of another VPC (LB_REUSE_CROSS_VPC,
 * VSWITCH_IP_EXHAUSTION).
 */
export function dataPlatform(f: SampleFleet): void {
  const { region, vswitch, ecsInstance, clb, vgroup, cluster, addNode, deploy, service, ccmClb, apiServerClb, event } = f;
  const { int, chars, cloudId, clusterId, requestId } = f.random;
  const reg = region(ACCOUNT_B, 'cn-hangzhou');
  const vpc = cloudId('vpc', reg.id);
  const sharedVpc = cloudId('vpc', reg.id);
  const zones = REGIONS[reg.id].zones;
  const nodeVsw = [vswitch(reg, vpc, zones[0], '10.20.0.0/22', 'data-nodes-h', 981), vswitch(reg, vpc, zones[1], '10.20.4.0/22', 'data-nodes-i', 990)];
  vswitch(reg, vpc, zones[0], '10.20.64.0/19', 'data-pods-h', 8101);
  vswitch(reg, vpc, zones[1], '10.20.96.0/19', 'data-pods-i', 8122);
  const sharedVsw = vswitch(reg, sharedVpc, zones[0], '172.31.0.0/24', 'shared-services-h', 12);
  const cl = cluster(reg, {
    id: clusterId(),
    name: 'data-platform',
    type: 'ManagedKubernetes',
    spec: 'ack.pro.small',
    createdAt: D('2024-06-03T02:14:22Z'),
    version: '1.33.3-aliyun.1',
    initVersion: '1.30.1-aliyun.1',
    plugin: 'terway',
    ccm: 'v2.12.3',
    vpc,
    nodeVsw,
    sg: cloudId('sg', reg.id),
    podNet: '10.20',
    podThird: 64,
    containerCidr: '',
    serviceCidr: '192.168.0.0/16',
    serviceNet: '192.168',
    nodePortRange: '30000-32767',
  });
  const np = { id: `np${chars(HEX, 32)}`, asg: cloudId('asg', reg.id) };
  for (let w = 0; w < 4; w++) addNode(cl, { ip: `10.20.${(w % 2) * 4 + int(0, 3)}.${int(10, 240)}`, vsw: nodeVsw[w % 2], type: 'ecs.g7.2xlarge', created: plus(D('2026-02-16T03:00:00Z'), w * 3600), nodepool: np });

  // superset: ENI backends (Terway created after 2020-08-10 -> CCM default backend type eni). Control: no blowup.
  const sPods = deploy(cl, { ns: 'analytics', app: 'superset', on: [cl.nodes[0], cl.nodes[1], cl.nodes[2]], created: D('2026-11-05T09:00:00Z'), image: 'apache/superset:4.1.2', containerPorts: [{ containerPort: 8088, name: 'http' }] });
  const superset = service(cl, { ns: 'analytics', name: 'superset', created: D('2026-02-16T05:12:40Z'), eni: true, ports: [{ name: 'http', port: 80, targetPort: 8088, nodePort: 30756, protocol: 'TCP' }], pods: sPods });
  ccmClb(cl, superset, { charge: 'PayByCLCU' });
  event(cl, superset, { type: 'Normal', reason: 'EnsuredLoadBalancer', message: `Ensured load balancer [${lbOf(superset).id}]`, count: 9, first: D('2026-11-05T09:00:31Z'), last: D('2026-11-19T11:02:50Z') });

  // metabase: reuses superset's CCM-created CLB -> CCM refuses (seed 002 message), Service pending.
  const mPods = deploy(cl, { ns: 'reporting', app: 'metabase', on: [cl.nodes[3]], created: D('2026-11-17T02:40:00Z'), image: 'metabase/metabase:v0.51.4', containerPorts: [{ containerPort: 3000, name: 'http' }] });
  const metabase = service(cl, {
    ns: 'reporting',
    name: 'metabase',
    created: D('2026-11-17T02:41:12Z'),
    annotations: { [A.id]: lbOf(superset).id, [A.force]: 'true' },
    eni: true,
    ports: [{ name: 'http', port: 3000, targetPort: 3000, nodePort: 31922, protocol: 'TCP' }],
    pods: mPods,
  });
  event(cl, metabase, {
    type: 'Warning',
    reason: 'SyncLoadBalancerFailed',
    message: `Error syncing load balancer [${lbOf(superset).id}]: alicloud: the loadbalancer ${lbOf(superset).id} can not be reused, can not reuse loadbalancer created by kubernetes.`,
    count: 187,
    first: D('2026-11-17T02:41:13Z'),
    last: D('2026-11-21T09:11:45Z'),
  });

  // Internal CLB of the shared-services VPC (console-created, LDAP for the office), reused by
  // monitoring/thanos-query of data-platform, whose VPC differs -> NetworkConflict.
  const ldapVm = [0, 1].map((i) =>
    ecsInstance(reg, { name: `ldap-0${i + 1}`, ip: `172.31.0.${11 + i}`, zone: zones[0], type: 'ecs.g6.large', created: D('2021-08-09T02:00:00Z'), sg: cloudId('sg', reg.id), vpc: sharedVpc, vsw: sharedVsw.VSwitchId, tags: [['owner', 'platform-identity']] }),
  );
  const shared = clb(reg, {
    name: 'shared-ldap-internal',
    addressType: 'intranet',
    address: '172.31.0.200',
    vpc: sharedVpc,
    vsw: sharedVsw.VSwitchId,
    zones: [zones[0], zones[1]],
    spec: 'slb.s1.small',
    created: D('2021-08-09T02:31:40Z'),
    deleteProtection: 'on',
    modProtection: ['NonProtection', ''],
    tags: [
      ['owner', 'platform-identity'],
      [TAG_REUSED_BY_USER, 'true'],
    ],
    backends: ldapVm.map((vm) => ({ ServerId: vm.InstanceId, ServerIp: vm.VpcAttributes.PrivateIpAddress.IpAddress[0], Weight: 100, Type: 'ecs' })),
  });
  shared.listeners.push({ port: 636, protocol: 'tcp', description: 'ldaps' });
  const tPods = deploy(cl, { ns: 'monitoring', app: 'thanos-query', on: [cl.nodes[1], cl.nodes[3]], created: D('2026-11-12T06:00:00Z'), image: 'quay.io/thanos/thanos:v0.37.2', containerPorts: [{ containerPort: 10902, name: 'http' }] });
  const thanos = service(cl, {
    ns: 'monitoring',
    name: 'thanos-query',
    created: D('2026-11-12T06:04:51Z'),
    annotations: { [A.id]: shared.id, [A.addressType]: 'intranet', [A.force]: 'true' },
    eni: true,
    ports: [{ name: 'http', port: 10902, targetPort: 10902, nodePort: 32144, protocol: 'TCP' }],
    pods: tPods,
  });
  // CCM tagged the CLB as reused and created the (empty) vServer group before adding backends failed.
  vgroup(shared, vServerGroupName(10902, thanos.name, thanos.ns, cl.id), [], D('2026-11-12T06:04:55Z'));
  event(cl, thanos, {
    type: 'Warning',
    reason: 'SyncLoadBalancerFailed',
    message: `Error syncing load balancer [${shared.id}]: Status Code: 400 Code: NetworkConflict Message: The backend servers and the load balancer are not in the same VPC. RequestId: ${requestId()}`,
    count: 96,
    first: D('2026-11-12T06:04:56Z'),
    last: D('2026-11-21T09:02:18Z'),
  });
  reg.sharedLb = shared;

  apiServerClb(cl, [0, 1].map((i) => ({ ServerId: cloudId('eni', reg.id), ServerIp: `10.20.${i * 4}.${250 + i}`, Weight: 100, Type: 'eni' })));
  // One quota application in review (QUOTA_APPLICATION_REFUSED's control: applications read, none refused).
  reg.quotaApplications = [
    quotaApplication(reg, {
      id: 'b2e4d0f3-6c8e-4f2b-8d3a-4e5f6a7b8c01',
      code: 'slb_quota_instances_num',
      name: 'Maximum number of CLB instances',
      status: 'Process',
      desire: 60,
      applyTime: '2026-11-20T06:05:12Z',
      reason: 'analytics dashboards per team',
      auditReason: '',
    }),
  ];
}
