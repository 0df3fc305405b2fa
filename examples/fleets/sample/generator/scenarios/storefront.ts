/**
 * acme-prod / cn-beijing: the ACK Pro Flannel cluster "storefront" (CCM v2.10.0), an orphaned CCM CLB and a
 * console-created CLB (the documented DescribeLoadBalancerAttribute responseDemo).
 */
import { TAG_CCM_OWNER, TAG_CLUSTER_ID, defaultLoadBalancerName, listenerDescription, vServerGroupName } from '@app/domain';
import { ACCOUNT_A, lbOf, type SampleFleet } from '../model';
import { HEX, REGIONS } from '../random';
import { D, plus } from '../time';

/**
 * Builds storefront with the upstream ingress-nginx controller Service (Local mode), the orphan CLB of the
 * deleted Service storefront/promo-landing (LB_ORPHANED) and the console CLB admin-portal-legacy (its control).
 */
export function storefront(f: SampleFleet): void {
  const { region, vswitch, ecsInstance, clb, vgroup, cluster, addNode, deploy, service, ccmClb, apiServerClb, event } = f;
  const { int, chars, uuid, cloudId, clusterId } = f.random;
  const reg = region(ACCOUNT_A, 'cn-beijing');
  const vpc = cloudId('vpc', reg.id);
  const zones = REGIONS[reg.id].zones;
  const nodeVsw = [vswitch(reg, vpc, zones[0], '10.10.0.0/19', 'storefront-g', 8011), vswitch(reg, vpc, zones[1], '10.10.32.0/19', 'storefront-h', 8032)];
  const cl = cluster(reg, {
    id: clusterId(),
    name: 'storefront',
    type: 'ManagedKubernetes',
    spec: 'ack.pro.small',
    createdAt: D('2023-04-11T06:02:18Z'),
    version: '1.32.7-aliyun.1',
    initVersion: '1.26.3-aliyun.1',
    plugin: 'flannel',
    ccm: 'v2.10.0',
    vpc,
    nodeVsw,
    sg: cloudId('sg', reg.id),
    podBase: '172.16',
    containerCidr: '172.16.0.0/16',
    serviceCidr: '192.168.0.0/16',
    serviceNet: '192.168',
    nodePortRange: '30000-32767',
  });
  const np = { id: `np${chars(HEX, 32)}`, asg: cloudId('asg', reg.id) };
  for (let w = 0; w < 6; w++) {
    addNode(cl, { ip: `10.10.${(w % 2) * 32 + int(0, 3)}.${int(10, 240)}`, vsw: nodeVsw[w % 2], type: 'ecs.g7.xlarge', created: plus(D('2026-03-09T01:00:00Z'), w * 86400 * 9), nodepool: np });
  }
  // ingress-nginx controller from the upstream cloud manifest: Local mode (control: no blowup).
  const pods = deploy(cl, {
    ns: 'ingress-nginx',
    app: 'ingress-nginx-controller',
    containerName: 'controller',
    labels: { 'app.kubernetes.io/component': 'controller', 'app.kubernetes.io/instance': 'ingress-nginx', 'app.kubernetes.io/name': 'ingress-nginx' },
    on: [cl.nodes[1], cl.nodes[4]],
    created: D('2026-09-02T02:30:00Z'),
    image: 'registry.k8s.io/ingress-nginx/controller:v1.7.0@sha256:7612338342a1e7b8090bef78f2a04fffcadd548ccaabe8a47bf7758ff549a5f7',
    containerPorts: [{ containerPort: 80, name: 'http' }, { containerPort: 443, name: 'https' }, { containerPort: 8443, name: 'webhook' }],
  });
  const upstreamLabels = {
    'app.kubernetes.io/component': 'controller',
    'app.kubernetes.io/instance': 'ingress-nginx',
    'app.kubernetes.io/name': 'ingress-nginx',
    'app.kubernetes.io/part-of': 'ingress-nginx',
    'app.kubernetes.io/version': '1.7.0',
  };
  const ingress = service(cl, {
    ns: 'ingress-nginx',
    name: 'ingress-nginx-controller',
    created: D('2026-09-02T02:29:51Z'),
    labels: { ...upstreamLabels },
    selector: { 'app.kubernetes.io/component': 'controller', 'app.kubernetes.io/instance': 'ingress-nginx', 'app.kubernetes.io/name': 'ingress-nginx' },
    policy: 'Local',
    healthCheckNodePort: 32081,
    ports: [
      { appProtocol: 'http', name: 'http', port: 80, protocol: 'TCP', targetPort: 'http', nodePort: 31725 },
      { appProtocol: 'https', name: 'https', port: 443, protocol: 'TCP', targetPort: 'https', nodePort: 30463 },
    ],
    pods,
    header: [
      'Source: the `ingress-nginx-controller` Service object of kubernetes/ingress-nginx,',
      'deploy/static/provider/cloud/deploy.yaml at commit db200fcbd20a579dda122e984b8e7d2a12c00cb7',
      '(controller v1.7.0), copied unchanged (labels, spec.externalTrafficPolicy, ipFamilies,',
      'ipFamilyPolicy, ports name/port/protocol/targetPort/appProtocol, selector, type).',
      'Added as a running ACK cluster shows it: metadata uid/creationTimestamp/resourceVersion, the',
      'CCM finalizer and labels (service.k8s.alibaba/loadbalancer-id, service.beta.kubernetes.io/hash),',
      'spec clusterIP(s)/nodePort/healthCheckNodePort/allocateLoadBalancerNodePorts/internalTrafficPolicy/',
      'sessionAffinity, and status.loadBalancer.ingress.',
    ],
  });
  ccmClb(cl, ingress);
  event(cl, ingress, { type: 'Normal', reason: 'EnsuredLoadBalancer', message: `Ensured load balancer [${lbOf(ingress).id}]`, count: 3, first: D('2026-09-02T02:30:14Z'), last: D('2026-11-18T16:20:44Z') });

  // Orphan: CLB created by CCM for storefront/promo-landing (Black Friday 2025); the Service was
  // deleted with its finalizer removed by hand while CCM was being upgraded, so the CLB stayed.
  const goneUid = uuid();
  cl.orphanUid = goneUid;
  const gone = { ns: 'storefront', name: 'promo-landing', uid: goneUid };
  const orphan = clb(reg, {
    name: defaultLoadBalancerName(goneUid),
    created: D('2025-11-20T03:14:07Z'),
    spec: 'slb.s1.small',
    tags: [
      [TAG_CCM_OWNER, defaultLoadBalancerName(goneUid)],
      [TAG_CLUSTER_ID, cl.id],
    ],
  });
  orphan.listeners.push({ port: 80, protocol: 'tcp', description: listenerDescription(80, gone.name, gone.ns, cl.id) });
  const oname = vServerGroupName(30917, gone.name, gone.ns, cl.id);
  vgroup(
    orphan,
    oname,
    cl.nodes.map((n) => ({ ServerId: n.ecsId, ServerIp: n.ip, Port: 30917, Weight: 100, Type: 'ecs', Description: oname })),
    D('2025-11-20T03:14:10Z'),
  );
  cl.orphanLb = orphan;

  // Console-created CLB for a non-Kubernetes app, adapted from the documented responseDemo of
  // SLB DescribeLoadBalancerAttribute (HTTP 80 forwarding to HTTPS 443; default server group).
  const adminVm = [0, 1].map((i) =>
    ecsInstance(reg, { name: `admin-portal-0${i + 1}`, ip: `10.10.${i * 32 + 8}.${31 + i}`, zone: zones[i], type: 'ecs.g6.large', created: D('2022-05-17T07:40:00Z'), sg: cl.sg, vpc, vsw: nodeVsw[i].VSwitchId, tags: [['owner', 'it-ops']] }),
  );
  const admin = clb(reg, {
    name: 'admin-portal-legacy',
    created: D('2022-05-17T08:03:11Z'),
    spec: 'slb.s1.small',
    deleteProtection: 'off',
    modProtection: ['NonProtection', ''],
    tags: [
      ['owner', 'it-ops'],
      ['env', 'prod'],
    ],
    backends: adminVm.map((vm) => ({ ServerId: vm.InstanceId, ServerIp: vm.VpcAttributes.PrivateIpAddress.IpAddress[0], Weight: 90, Type: 'ecs', Description: 'admin portal web server' })),
    extra: { RenewalStatus: 'AutoRenewal', RenewalDuration: 1, RenewalCycUnit: 'Month' },
  });
  admin.listeners.push({ port: 80, protocol: 'http', forward: 443, description: 'redirect to https' }, { port: 443, protocol: 'https', description: 'admin portal' });
  reg.consoleLb = admin;

  apiServerClb(cl, [0, 1].map((i) => ({ ServerId: cloudId('eni', reg.id), ServerIp: `10.10.${i * 32}.${250 + i}`, Weight: 100, Type: 'eni' })));
}
