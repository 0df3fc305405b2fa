/**
 * acme-prod / cn-hangzhou: the ACK managed Terway cluster "batch-legacy" (created 2018, ECS backends by default),
 * CCM never upgraded past v1.9.3.220.
 */
import { TAG_CCM_OWNER, defaultLoadBalancerName } from '@app/domain';
import { A, ACCOUNT_A, type SampleFleet } from '../model';
import { HEX, REGIONS } from '../random';
import { D, plus } from '../time';

/**
 * Builds batch-legacy: exporter (a 2018 CLB: default name, no tag, shared-resource; Local-mode percentage
 * weights), api (tagged kubernetes.do.not.delete only) and renderer (ENI with a named targetPort).
 */
export function batchLegacy(f: SampleFleet): void {
  const { region, vswitch, clb, cluster, addNode, deploy, service, attach, apiServerClb } = f;
  const { int, chars, cloudId, clusterId } = f.random;
  const H = (n: number): string => chars(HEX, n);
  // ------------------------------------------------------------------------------------------
  // acme-prod / cn-hangzhou, new cluster "batch-legacy": ACK managed, Terway (created 2018, so ECS
  // backends by default), CCM never upgraded past v1.9.3.220-g24b1885-aliyun.
  // ------------------------------------------------------------------------------------------
  const hz = region(ACCOUNT_A, 'cn-hangzhou');
  const vpc = cloudId('vpc', hz.id);
  const zones = REGIONS[hz.id].zones;
  const nodeVsw = [vswitch(hz, vpc, zones[0], '10.60.0.0/22', 'batch-nodes-h', 970), vswitch(hz, vpc, zones[1], '10.60.4.0/22', 'batch-nodes-i', 981)];
  vswitch(hz, vpc, zones[0], '10.60.64.0/19', 'batch-pods-h', 8150);
  const cl = cluster(hz, {
    id: clusterId(),
    name: 'batch-legacy',
    type: 'ManagedKubernetes',
    createdAt: D('2018-07-20T02:40:00Z'),
    version: '1.20.11-aliyun.1',
    initVersion: '1.10.4',
    plugin: 'terway',
    ccm: 'v1.9.3.220-g24b1885-aliyun',
    vpc,
    nodeVsw,
    sg: cloudId('sg', hz.id),
    podNet: '10.60',
    podThird: 64,
    containerCidr: '',
    serviceCidr: '172.23.0.0/20',
    serviceNet: '172.23',
  });
  const np = { id: `np${H(32)}`, asg: cloudId('asg', hz.id) };
  for (let w = 0; w < 3; w++) addNode(cl, { ip: `10.60.${(w % 2) * 4 + int(0, 3)}.${int(10, 240)}`, vsw: nodeVsw[w % 2], type: 'ecs.g6.xlarge', created: plus(D('2024-03-04T01:00:00Z'), w * 600), nodepool: np });

  // exporter: its CLB dates from CCM v1.9.3.10 (2018): default name, no tag, shared-resource
  // (no specification). Local mode, weights as CCM v1.9.3.220 sets them (100 x pods / total).
  const ePods = deploy(cl, { ns: 'reports', app: 'exporter', on: [cl.nodes[0], cl.nodes[0], cl.nodes[1]], created: D('2026-11-02T01:00:00Z'), image: 'registry-vpc.cn-hangzhou.aliyuncs.com/acme/report-exporter:1.12.0', containerPorts: [{ containerPort: 9100, name: 'http' }] });
  const exporter = service(cl, { ns: 'reports', name: 'exporter', created: D('2018-08-01T03:00:00Z'), policy: 'Local', healthCheckNodePort: 31866, ports: [{ name: 'http', port: 80, targetPort: 9100, nodePort: 31865, protocol: 'TCP' }], pods: ePods });
  const old = clb(hz, { name: defaultLoadBalancerName(exporter.uid), created: D('2018-08-01T03:00:06Z'), shared: true, tags: [] });
  attach(cl, exporter, old, D('2018-08-01T03:00:09Z'));

  // api: created in 2020 by v1.9.3.220: tagged kubernetes.do.not.delete (no ack.aliyun.com on an old cluster).
  const aPods = deploy(cl, { ns: 'reports', app: 'api', on: [cl.nodes[2]], created: D('2026-11-02T01:00:00Z'), image: 'registry-vpc.cn-hangzhou.aliyuncs.com/acme/report-api:3.4.1', containerPorts: [{ containerPort: 8080, name: 'http' }] });
  const api = service(cl, { ns: 'reports', name: 'api', created: D('2020-02-18T05:00:00Z'), ports: [{ name: 'http', port: 80, targetPort: 8080, nodePort: 30488, protocol: 'TCP' }], pods: aPods });
  const apiLb = clb(hz, { name: defaultLoadBalancerName(api.uid), created: D('2020-02-18T05:00:07Z'), spec: 'slb.s1.small', tags: [[TAG_CCM_OWNER, defaultLoadBalancerName(api.uid)]] });
  attach(cl, api, apiLb, D('2020-02-18T05:00:10Z'));

  // renderer: ENI mode with a named targetPort on CCM v1.9.3.220: "The specified Port must be between 1
  // and 65535." (seed 002) -- this CCM records no events, so the Service is just Pending.
  const rPods = deploy(cl, { ns: 'reports', app: 'renderer', on: [cl.nodes[1]], created: D('2026-11-16T02:00:00Z'), image: 'registry-vpc.cn-hangzhou.aliyuncs.com/acme/report-renderer:0.8.0', containerPorts: [{ containerPort: 3000, name: 'http' }] });
  service(cl, { ns: 'reports', name: 'renderer', created: D('2026-11-16T02:01:00Z'), annotations: { [A.backendType]: 'eni' }, ports: [{ name: 'http', port: 80, targetPort: 'http', nodePort: 32190, protocol: 'TCP' }], pods: rPods });

  apiServerClb(cl, [0, 1].map((i) => ({ ServerId: cloudId('eni', hz.id), ServerIp: `10.60.${i * 4}.${250 + i}`, Weight: 100, Type: 'eni' })));
}
