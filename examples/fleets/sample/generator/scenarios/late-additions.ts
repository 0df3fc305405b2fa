/**
 * Catalogue additions drawn last, so the ids before them stayed as they were: grafana reusing arena's API server
 * CLB, the storefront/web HTTPS control and the tools-edge CLB reused by two clusters.
 */
import { TAG_REUSED_BY_USER } from '@app/domain';
import { A, ACCOUNT_A, apiLbOf, type SampleFleet } from '../model';
import type { Cluster, Node } from '../types';
import { D } from '../time';

/**
 * Adds ops/grafana (LB_REUSE_OF_APISERVER), storefront/web (control of SERVICE_HTTPS_TO_HTTPS_PORT) and
 * tools/wiki + tools/dashboard on tools-edge (controls of LB_REUSE_NAME_COLLISION, LB_LISTENER_PORT_CONFLICT).
 */
export function lateAdditions(f: SampleFleet): void {
  const { clb, deploy, service, attach, ccmClb, event, clusterNamed } = f;
  const { int } = f.random;
  const bj = f.region(ACCOUNT_A, 'cn-beijing');
  // grafana (arena): the API server CLB's id was copied from the SLB console into loadbalancer-id.
  // CCM refuses (the CLB carries ack.aliyun.com, research/ccm-behaviour.md 1.6); seed 000: "You cannot
  // reuse the SLB instance for the API Server". Drawn last so the ids above stay as they were.
  {
    const arena = clusterNamed('arena');
    const gPods = deploy(arena, { ns: 'ops', app: 'grafana', on: [arena.nodes[0]], created: D('2026-11-20T03:00:00Z'), image: 'registry-vpc.cn-beijing.aliyuncs.com/arena/grafana:11.3.1', containerPorts: [{ containerPort: 3000, name: 'http' }] });
    const g = service(arena, { ns: 'ops', name: 'grafana', created: D('2026-11-20T03:01:15Z'), annotations: { [A.id]: apiLbOf(arena).id, [A.force]: 'true' }, ports: [{ name: 'http', port: 80, targetPort: 3000, nodePort: 30185, protocol: 'TCP' }], pods: gPods });
    event(arena, g, { type: 'Warning', reason: 'SyncLoadBalancerFailed', message: `Error syncing load balancer [${apiLbOf(arena).id}]: Message: alicloud: the loadbalancer ${apiLbOf(arena).id} can not be reused, can not reuse loadbalancer created by kubernetes.`, count: 57, first: D('2026-11-20T03:01:16Z'), last: D('2026-11-21T09:11:48Z') });
  }

  // Controls drawn last (ids above unchanged). storefront/web: an HTTPS listener done right (443 -> the
  // pods' plain HTTP port 8080), the control of SERVICE_HTTPS_TO_HTTPS_PORT.
  {
    const sfc = clusterNamed('storefront');
    const wPods = deploy(sfc, { ns: 'storefront', app: 'web', on: [sfc.nodes[1], sfc.nodes[2]], created: D('2026-11-12T02:00:00Z'), image: 'registry-vpc.cn-beijing.aliyuncs.com/acme/web:9.1.0', containerPorts: [{ containerPort: 8080, name: 'http' }] });
    const web = service(sfc, {
      ns: 'storefront',
      name: 'web',
      created: D('2025-03-03T03:00:00Z'),
      annotations: { [A.protocolPort]: 'https:443,http:80', [A.certId]: `${int(1000000, 9999999)}-cn-beijing` },
      ports: [
        { name: 'http', port: 80, targetPort: 8080, nodePort: 30080, protocol: 'TCP', lbProtocol: 'http' },
        { name: 'https', port: 443, targetPort: 8080, nodePort: 30443, protocol: 'TCP', lbProtocol: 'https' },
      ],
      pods: wPods,
    });
    ccmClb(sfc, web);
  }
  // tools-edge: a console CLB reused by storefront tools/wiki (80) and arena tools/dashboard (8080): two
  // clusters, distinct namespace/names and listener ports: the control of LB_REUSE_NAME_COLLISION and
  // LB_LISTENER_PORT_CONFLICT.
  {
    const toolsLb = clb(bj, { name: 'tools-edge', created: D('2025-01-15T01:00:00Z'), spec: 'slb.s1.small', modProtection: ['NonProtection', ''], tags: [['owner', 'platform'], [TAG_REUSED_BY_USER, 'true']] });
    const toolSvc = (cl: Cluster, ns: string, name: string, port: number, nodePort: number, node: Node): void => {
      const pods = deploy(cl, { ns, app: name, on: [node], created: D('2026-10-20T02:00:00Z'), image: `registry-vpc.cn-beijing.aliyuncs.com/acme/${name}:1.0.0`, containerPorts: [{ containerPort: 8080, name: 'http' }] });
      const svc = service(cl, { ns, name, created: D('2025-01-15T01:10:00Z'), annotations: { [A.id]: toolsLb.id, [A.force]: 'true' }, ports: [{ name: 'http', port, targetPort: 8080, nodePort, protocol: 'TCP' }], pods });
      attach(cl, svc, toolsLb, D('2025-01-15T01:10:20Z'));
    };
    const sfc = clusterNamed('storefront');
    const arena = clusterNamed('arena');
    toolSvc(sfc, 'tools', 'wiki', 80, 31280, sfc.nodes[4]);
    toolSvc(arena, 'tools', 'dashboard', 8080, 30186, arena.nodes[1]);
  }
}
