/**
 * acme-prod / cn-beijing: the ACK Pro cluster "arena" (game servers), NodePort range narrowed to 30100-30199.
 */
import { ACCOUNT_A, type SampleFleet } from '../model';
import type { ServicePort } from '../types';
import { HEX, REGIONS } from '../random';
import { D, plus } from '../time';
import type { StatusService } from './storefront-catalogue';

/**
 * Builds arena: a 41-port Local-mode matchmaker (CLB_LISTENER_QUOTA), a 42-port NodePort Service
 * (NODEPORT_RANGE_EXHAUSTION) and two status Services on storefront's status-edge CLB (LB_LISTENER_PORT_CONFLICT,
 * LB_REUSE_NAME_COLLISION).
 *
 * @param statusSvc from `storefrontCatalogue`
 */
export function arena(f: SampleFleet, statusSvc: StatusService): void {
  const { vswitch, cluster, addNode, deploy, service, ccmClb, apiServerClb } = f;
  const { int, chars, cloudId, clusterId } = f.random;
  const bj = f.region(ACCOUNT_A, 'cn-beijing');
  const H = (n: number): string => chars(HEX, n);
  // ------------------------------------------------------------------------------------------
  // acme-prod / cn-beijing, new ACK Pro cluster "arena" (game servers): NodePort range narrowed to
  // 30100-30199 to match a security-group rule; a 41-port matchmaker and a 42-port NodePort Service.
  // ------------------------------------------------------------------------------------------
  const vpc = cloudId('vpc', bj.id);
  const zones = REGIONS[bj.id].zones;
  const nodeVsw = [vswitch(bj, vpc, zones[2], '10.40.0.0/20', 'arena-k', 3921)];
  const cl = cluster(bj, {
    id: clusterId(),
    name: 'arena',
    type: 'ManagedKubernetes',
    spec: 'ack.pro.small',
    createdAt: D('2025-09-08T03:12:00Z'),
    version: '1.33.3-aliyun.1',
    initVersion: '1.33.3-aliyun.1',
    plugin: 'flannel',
    ccm: 'v2.12.3',
    vpc,
    nodeVsw,
    sg: cloudId('sg', bj.id),
    podBase: '172.24',
    containerCidr: '172.24.0.0/16',
    serviceCidr: '192.168.0.0/16',
    serviceNet: '192.168',
    nodePortRange: '30100-30199',
  });
  const np = { id: `np${H(32)}`, asg: cloudId('asg', bj.id) };
  for (let w = 0; w < 2; w++) addNode(cl, { ip: `10.40.${int(0, 3)}.${int(10, 240)}`, vsw: nodeVsw[0], type: 'ecs.c7.xlarge', created: plus(D('2026-09-01T01:00:00Z'), w * 300), nodepool: np });
  const gamePorts = (first: number, n: number, nodePort0: number): ServicePort[] => Array.from({ length: n }, (_, i) => ({ name: `game-${first + i}`, port: first + i, targetPort: first + i, nodePort: nodePort0 + i, protocol: 'TCP' }));
  const mmPods = deploy(cl, { ns: 'arena', app: 'matchmaker', on: [cl.nodes[0], cl.nodes[1]], created: D('2026-11-14T06:00:00Z'), image: 'registry-vpc.cn-beijing.aliyuncs.com/arena/matchmaker:7.3.0', containerPorts: gamePorts(7000, 41, 0).map((p) => ({ containerPort: p.port, name: p.name })) });
  const mm = service(cl, { ns: 'arena', name: 'matchmaker', created: D('2025-09-20T08:00:00Z'), policy: 'Local', healthCheckNodePort: 30199, ports: gamePorts(7000, 41, 30100), pods: mmPods });
  ccmClb(cl, mm);
  const gsPods = deploy(cl, { ns: 'arena', app: 'game-sessions', on: [cl.nodes[0], cl.nodes[1]], created: D('2026-11-14T06:00:00Z'), image: 'registry-vpc.cn-beijing.aliyuncs.com/arena/session-host:7.3.0', containerPorts: gamePorts(7100, 42, 0).map((p) => ({ containerPort: p.port, name: p.name })) });
  service(cl, { ns: 'arena', name: 'game-sessions', type: 'NodePort', created: D('2025-09-20T08:00:00Z'), ports: gamePorts(7100, 42, 30141), pods: gsPods });
  // The same status-page chart as storefront's (same namespace/name), and a status API on port 80.
  statusSvc(cl, 'status-page', 8080, 30183, [cl.nodes[0]]);
  statusSvc(cl, 'status-api', 80, 30184, [cl.nodes[1]]);
  apiServerClb(cl, [0, 1].map((i) => ({ ServerId: cloudId('eni', bj.id), ServerIp: `10.40.15.${250 + i}`, Weight: 100, Type: 'eni' })));
}
