/**
 * The NLB additions: NLB Services as CCM's nlb-controller builds them, drawn from their own PRNG stream
 * so that every id of the CLB scenarios stays as it was.
 *
 * - storefront (CCM v2.10.0, Flannel): `shop/api-edge` (Cluster mode, TCP 443: an NLB, one listener, one server group
 *   with every worker node) and `shop/cart-stream` (Local mode, TCP 9443: the two nodes running its pods, weight = pods);
 * - arena (CCM v2.12.3): `arena/lobby` asks CCM to create an NLB without `zone-maps`: every sync fails "ParameterMissing,
 *   zone mappings are required" (NLB_ZONE_MAPS_MISSING), it stays pending (SERVICE_LB_PENDING);
 * - data-platform (CCM v2.12.3, a build that skipped the server-group cleanup): a server group still tagged for the
 *   deleted NLB Service `ml/feature-store` (NLB_SERVER_GROUP_ORPHANED), holding one of the region's 3,000 slots.
 */
import { lbAnnotationKey, NLB_ANNOTATION, NLB_LOAD_BALANCER_CLASS } from '@app/domain';
import { ACCOUNT_A, ACCOUNT_B, type SampleFleet } from '../model';
import type { Cluster } from '../types';
import { D } from '../time';

/** Seed of the NLB additions' PRNG stream. */
export const NLB_SEED = 0x20261126;

function clusterNamed(f: SampleFleet, account: string, region: string, name: string): Cluster {
  const cl = f.region(account, region as never).clusters.find((c) => c.name === name);
  if (!cl) throw new Error(`sample fleet: no cluster ${name}`);
  return cl;
}

/** Adds the NLB Services, their NLBs and the leaked server group. */
export function nlbAdditions(f: SampleFleet): void {
  f.random.withStream(NLB_SEED, () => {
    const { deploy, service, ccmNlb, leakedNlbServerGroup } = f;
    const zoneMaps = (cl: Cluster): string => [...new Map(cl.nodeVsw.map((v) => [v.ZoneId, v.VSwitchId])).entries()].map(([z, v]) => `${z}:${v}`).join(',');
    const storefront = clusterNamed(f, ACCOUNT_A, 'cn-beijing', 'storefront');
    const workers = storefront.nodes.filter((n) => !n.master && n.ready);
    const apiPods = deploy(storefront, { ns: 'shop', app: 'api-edge', on: [workers[0]!, workers[1]!], created: D('2026-10-02T03:00:00Z'), image: 'registry-vpc.cn-beijing.aliyuncs.com/shop/api-edge:2.4.1', containerPorts: [{ containerPort: 8443, name: 'https' }] });
    const api = service(storefront, {
      ns: 'shop',
      name: 'api-edge',
      created: D('2026-10-02T03:05:00Z'),
      loadBalancerClass: NLB_LOAD_BALANCER_CLASS,
      annotations: { [lbAnnotationKey(NLB_ANNOTATION.zoneMaps)]: zoneMaps(storefront) },
      ports: [{ name: 'https', port: 443, targetPort: 8443, nodePort: 31443, protocol: 'TCP' }],
      pods: apiPods,
    });
    ccmNlb(storefront, api);
    const cartPods = deploy(storefront, { ns: 'shop', app: 'cart-stream', on: [workers[2]!, workers[2]!, workers[3]!], created: D('2026-10-09T05:00:00Z'), image: 'registry-vpc.cn-beijing.aliyuncs.com/shop/cart-stream:1.8.0', containerPorts: [{ containerPort: 9443, name: 'stream' }] });
    const cart = service(storefront, {
      ns: 'shop',
      name: 'cart-stream',
      created: D('2026-10-09T05:10:00Z'),
      loadBalancerClass: NLB_LOAD_BALANCER_CLASS,
      policy: 'Local',
      healthCheckNodePort: 31990,
      annotations: { [lbAnnotationKey(NLB_ANNOTATION.zoneMaps)]: zoneMaps(storefront) },
      ports: [{ name: 'stream', port: 9443, targetPort: 9443, nodePort: 31944, protocol: 'TCP' }],
      pods: cartPods,
    });
    ccmNlb(storefront, cart);

    const arena = clusterNamed(f, ACCOUNT_A, 'cn-beijing', 'arena');
    const lobbyPods = deploy(arena, { ns: 'arena', app: 'lobby', on: [arena.nodes[0]!], created: D('2026-11-20T07:00:00Z'), image: 'registry-vpc.cn-beijing.aliyuncs.com/arena/lobby:1.0.0', containerPorts: [{ containerPort: 7700, name: 'lobby' }] });
    service(arena, {
      ns: 'arena',
      name: 'lobby',
      created: D('2026-11-20T07:02:00Z'),
      loadBalancerClass: NLB_LOAD_BALANCER_CLASS,
      ports: [{ name: 'lobby', port: 7700, targetPort: 7700, nodePort: 30190, protocol: 'TCP' }],
      pods: lobbyPods,
    });

    const dataPlatform = clusterNamed(f, ACCOUNT_B, 'cn-hangzhou', 'data-platform');
    leakedNlbServerGroup(dataPlatform, f.random.uuid(), { nodePort: 30411, protocol: 'TCP', svc: 'feature-store', ns: 'ml' });
  });
}
