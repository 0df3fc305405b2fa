/**
 * acme-data / cn-beijing: the ACK Basic Flannel cluster "preview-envs" with 42 preview Services, each with its
 * own CLB, and the region's Quota Center values.
 */
import { ACCOUNT_B, quota, quotaApplication, type SampleFleet } from '../model';
import { HEX, REGIONS } from '../random';
import { D, plus } from '../time';

/**
 * Builds preview-envs: 3 nodes, 42 Cluster-mode preview Services (ECS_LB_ATTACHMENT_QUOTA, CLB_INSTANCE_QUOTA,
 * CCM_LARGE_SCALE_RISK with audit-settings.yaml), quotas.json, and the region's quota applications: the instance quota
 * raised from 30 to 50 in March, then a request for 120 for the previews refused in November (QUOTA_APPLICATION_REFUSED).
 */
export function previewEnvs(f: SampleFleet): void {
  const { region, vswitch, cluster, addNode, deploy, service, ccmClb, apiServerClb } = f;
  const { int, chars, cloudId, clusterId } = f.random;
  const reg = region(ACCOUNT_B, 'cn-beijing');
  const vpc = cloudId('vpc', reg.id);
  const zones = REGIONS[reg.id].zones;
  const nodeVsw = [vswitch(reg, vpc, zones[1], '10.30.0.0/20', 'preview-h', 4051)];
  const cl = cluster(reg, {
    id: clusterId(),
    name: 'preview-envs',
    type: 'ManagedKubernetes',
    spec: 'ack.standard',
    createdAt: D('2025-03-18T08:45:10Z'),
    version: '1.33.3-aliyun.1',
    initVersion: '1.31.1-aliyun.1',
    plugin: 'flannel',
    ccm: 'v2.11.4',
    vpc,
    nodeVsw,
    sg: cloudId('sg', reg.id),
    podBase: '172.22',
    containerCidr: '172.22.0.0/16',
    serviceCidr: '192.168.0.0/16',
    serviceNet: '192.168',
  });
  const np = { id: `np${chars(HEX, 32)}`, asg: cloudId('asg', reg.id) };
  for (let w = 0; w < 3; w++) addNode(cl, { ip: `10.30.${int(0, 3)}.${int(10, 240)}`, vsw: nodeVsw[0], type: 'ecs.c7.xlarge', created: plus(D('2026-07-01T01:00:00Z'), w * 120), nodepool: np });
  const usedPorts = new Set<number>();
  for (let i = 0; i < 42; i++) {
    const pr = 4100 + i * 3 + int(0, 2);
    const ns = `pr-${pr}`;
    let nodePort = int(30000, 32767);
    while (usedPorts.has(nodePort)) nodePort = int(30000, 32767);
    usedPorts.add(nodePort);
    const created = plus(D('2026-10-20T02:00:00Z'), i * 26_000 + int(0, 3000));
    const pods = deploy(cl, { ns, app: 'web', on: [cl.nodes[i % 3]], created, image: `registry-vpc.cn-beijing.aliyuncs.com/acme/storefront-web:pr-${pr}`, containerPorts: [{ containerPort: 8080, name: 'http' }] });
    const svc = service(cl, { ns, name: 'web', created, ports: [{ name: 'http', port: 80, targetPort: 8080, nodePort, protocol: 'TCP' }], pods });
    ccmClb(cl, svc);
  }
  apiServerClb(cl, [0, 1].map((i) => ({ ServerId: cloudId('eni', reg.id), ServerIp: `10.30.15.${250 + i}`, Weight: 100, Type: 'eni' })));
  // Quota Center values for this region: the CLB instance quota was raised to 100 for the previews.
  reg.quotas = [
    quota(reg, 'slb_quota_instances_num', 'Maximum number of CLB instances', 50, reg.lbs.length, [30, 500]),
    quota(reg, 'slb_quota_backendservers_num', 'Maximum number of backend servers that can be added to a CLB instance', 200, undefined, [200, 1000]),
    quota(reg, 'slb_quota_backendserver_attached_num', 'Maximum number of CLB instances to which a backend server can be added', 50, undefined, [50, 200]),
    quota(reg, 'slb_quota_listeners_num', 'Maximum number of listeners that can be added to a CLB instance', 50, undefined, [50, 100]),
  ];
  const instances = { code: 'slb_quota_instances_num', name: 'Maximum number of CLB instances' };
  reg.quotaApplications = [
    quotaApplication(reg, { ...instances, id: 'a1f3c9e2-5b7d-4e1a-9c2f-3d4e5f6a7b01', status: 'Agree', desire: 50, applyTime: '2026-03-20T02:14:09Z', reason: 'preview environments per pull request', auditReason: 'Agree' }),
    quotaApplication(reg, {
      ...instances,
      id: 'a1f3c9e2-5b7d-4e1a-9c2f-3d4e5f6a7b02',
      status: 'Disagree',
      desire: 120,
      applyTime: '2026-11-12T09:41:37Z',
      reason: 'more preview environments',
      auditReason: 'Please describe the business scenario and the expected growth of CLB instances.',
    }),
  ];
}
