/**
 * acme-prod / cn-hangzhou: the dedicated Flannel cluster "payments-legacy" (CCM v1.9.3.313).
 *
 * Fires CLB_BACKEND_QUOTA, CLUSTER_MODE_BLOWUP, NODEPORT_EPHEMERAL_OVERLAP, NODEPORT_IN_EPHEMERAL_RANGE,
 * CCM_ANNOTATION_UNSUPPORTED, CCM_RAM_PERMISSION_GAP (with emit/ram.ts); see README.md next to the fleet.
 */
import { MASTER_ROLE_PREFIX } from '@app/domain';
import { A, ACCOUNT_A, lbOf, type SampleFleet } from '../model';
import type { Node } from '../types';
import { HEX, REGIONS } from '../random';
import { D, plus } from '../time';

/**
 * Builds payments-legacy: 3 masters + 85 workers (one cordoned, one NotReady), checkout-gateway (Cluster mode,
 * 2 ports: 168 backends), ledger-api (Local, intranet, NodePort in the ephemeral range, drain annotations
 * this CCM ignores) and the old ACK ingress Service.
 */
export function paymentsLegacy(f: SampleFleet): void {
  const { region, vswitch, cluster, addNode, deploy, service, ccmClb, apiServerClb, event } = f;
  const { int, chars, uuid, cloudId, clusterId } = f.random;
  const reg = region(ACCOUNT_A, 'cn-hangzhou');
  const vpc = cloudId('vpc', reg.id);
  const zones = REGIONS[reg.id].zones;
  const nodeVsw = zones.map((z, i) => vswitch(reg, vpc, z, `192.168.${i * 16}.0/20`, `payments-${z.slice(-1)}`, 4000 - i * 37));
  const cl = cluster(reg, {
    id: clusterId(),
    name: 'payments-legacy',
    type: 'Kubernetes',
    createdAt: D('2020-09-14T03:27:41Z'),
    version: '1.22.15-aliyun.1',
    initVersion: '1.18.8-aliyun.1',
    plugin: 'flannel',
    ccm: 'v1.9.3.313-g748f81e-aliyun',
    vpc,
    nodeVsw,
    sg: cloudId('sg', reg.id),
    podBase: '172.20',
    containerCidr: '172.20.0.0/16',
    serviceCidr: '172.21.0.0/20',
    serviceNet: '172.21',
    nodePortFlag: '30000-40000',
    masterRoleUuid: uuid(),
    workerRoleUuid: uuid(),
  });
  cl.masterRole = `${MASTER_ROLE_PREFIX}${cl.masterRoleUuid}`;
  cl.workerRole = `KubernetesWorkerRole-${cl.workerRoleUuid}`;
  const np = { id: `np${chars(HEX, 32)}`, asg: cloudId('asg', reg.id) };
  // 3 masters (one per zone), 85 workers; worker 44 cordoned, worker 70 NotReady.
  for (let i = 0; i < 3; i++) addNode(cl, { ip: `192.168.${i * 16}.${240 + i}`, vsw: nodeVsw[i], master: true, type: 'ecs.g6.xlarge', created: plus(cl.createdAt, 60 + i) });
  const used = new Set<string>();
  for (let w = 0; w < 85; w++) {
    const z = w % 3;
    const draw = (): string => `${int(0, 3) + z * 16}.${int(10, 230)}`;
    let host = draw();
    while (used.has(host)) host = draw();
    used.add(host);
    addNode(cl, {
      ip: `192.168.${host}`,
      vsw: nodeVsw[z],
      type: 'ecs.g6.2xlarge',
      created: plus(D('2025-01-06T02:00:00Z'), int(0, 640) * 36_000),
      nodepool: np,
      cordoned: w === 44,
      ready: w !== 70,
    });
  }
  const W = (w: number): Node => cl.nodes[3 + w];

  // checkout-gateway: Cluster mode, 2 ports -> 2 vServer groups x 84 eligible nodes = 168 backends (84 % of 200).
  const checkoutPods = deploy(cl, { ns: 'payments', app: 'checkout-gateway', on: [W(5), W(31), W(60)], created: D('2026-10-30T07:12:00Z'), image: 'registry-vpc.cn-hangzhou.aliyuncs.com/acme/checkout-gateway:4.18.2', containerPorts: [{ containerPort: 8080, name: 'http' }, { containerPort: 8443, name: 'https' }] });
  const checkout = service(cl, {
    ns: 'payments',
    name: 'checkout-gateway',
    created: D('2021-03-02T06:41:09Z'),
    annotations: { [A.spec]: 'slb.s2.small' },
    ports: [
      { name: 'http', port: 80, targetPort: 8080, nodePort: 30812, protocol: 'TCP' },
      { name: 'https', port: 443, targetPort: 8443, nodePort: 31443, protocol: 'TCP' },
    ],
    pods: checkoutPods,
  });
  ccmClb(cl, checkout);

  // ledger-api: Local mode, intranet, NodePort 36218 inside 32768-60999, drain annotations unsupported by v1.9.3.
  const ledgerPods = deploy(cl, { ns: 'payments', app: 'ledger-api', on: [W(12), W(12), W(47)], created: D('2026-11-03T01:05:00Z'), image: 'registry-vpc.cn-hangzhou.aliyuncs.com/acme/ledger-api:2.7.0', containerPorts: [{ containerPort: 8443, name: 'https' }] });
  const ledger = service(cl, {
    ns: 'payments',
    name: 'ledger-api',
    created: D('2025-07-14T08:20:33Z'),
    annotations: { [A.addressType]: 'intranet', [A.drain]: 'on', [A.drainTimeout]: '30' },
    policy: 'Local',
    healthCheckNodePort: 31207,
    ports: [{ name: 'https', port: 8443, targetPort: 8443, nodePort: 36218, protocol: 'TCP' }],
    pods: ledgerPods,
  });
  ccmClb(cl, ledger, { vsw: nodeVsw[1] });

  // ACK's default ingress Service of old dedicated clusters: Local mode, NodePorts 34512/38790.
  const ingPods = deploy(cl, { ns: 'kube-system', app: 'nginx-ingress-controller', labels: { app: 'ingress-nginx' }, on: [W(2), W(3)], created: D('2026-06-18T03:00:00Z'), image: 'registry-vpc.cn-hangzhou.aliyuncs.com/acs/aliyun-ingress-controller:v1.2.1-aliyun.1', containerPorts: [{ containerPort: 80, name: 'http' }, { containerPort: 443, name: 'https' }] });
  const ing = service(cl, {
    ns: 'kube-system',
    name: 'nginx-ingress-lb',
    created: plus(cl.createdAt, 420),
    labels: { app: 'nginx-ingress-lb' },
    selector: { app: 'ingress-nginx' },
    policy: 'Local',
    healthCheckNodePort: 30291,
    ports: [
      { name: 'http', port: 80, targetPort: 80, nodePort: 34512, protocol: 'TCP' },
      { name: 'https', port: 443, targetPort: 443, nodePort: 38790, protocol: 'TCP' },
    ],
    pods: ingPods,
  });
  ccmClb(cl, ing);

  apiServerClb(
    cl,
    cl.nodes.filter((n) => n.master).map((n) => ({ ServerId: n.ecsId, ServerIp: n.ip, Weight: 100, Type: 'ecs' })),
  );
  event(cl, ledger, { type: 'Normal', reason: 'EnsuredLoadBalancer', message: `Ensured load balancer [${lbOf(ledger).id}]`, count: 14, first: D('2026-11-03T01:05:40Z'), last: D('2026-11-20T22:41:07Z') });
  event(cl, checkout, { type: 'Normal', reason: 'EnsuredLoadBalancer', message: `Ensured load balancer [${lbOf(checkout).id}]`, count: 212, first: D('2026-10-30T07:12:31Z'), last: D('2026-11-21T08:57:12Z') });
}
