/**
 * Catalogue additions to storefront (acme-prod / cn-beijing): six more Services for the Service-level checks,
 * the console CLBs partner-gateway and status-edge. Runs on the catalogue's PRNG stream (see catalogue.ts).
 */
import { LABEL_SERVICE_LOADBALANCER_ID, TAG_REUSED_BY_USER } from '@app/domain';
import { A, ACCOUNT_A, type SampleFleet } from '../model';
import type { Cluster, Node, Service } from '../types';
import { ALNUM } from '../random';
import { D } from '../time';

/** Puts a status Service of cluster `cl` on the shared status-edge CLB (force-override, listener `port`). */
export type StatusService = (cl: Cluster, name: string, port: number, nodePort: number, nodes: Node[]) => Service;

/**
 * Adds search (ENI on Flannel), legacy-api (CLB released), catalog (own CLB pasted into loadbalancer-id),
 * shop-api (HTTPS to the TLS port), reviews (resource group changed), partner-api (address type mismatch) and
 * storefront's status-page on the shared status-edge CLB.
 *
 * @returns `statusSvc`, which puts a status Service of another cluster on the same status-edge CLB
 */
export function storefrontCatalogue(f: SampleFleet): StatusService {
  const { region, clb, deploy, service, attach, ccmClb, event, clusterNamed } = f;
  const { int, chars, cloudId, publicIp } = f.random;
  // ------------------------------------------------------------------------------------------
  // acme-prod / cn-beijing, cluster storefront (ACK Pro, Flannel, CCM v2.10.0): six more Services
  // ------------------------------------------------------------------------------------------
  const bj = region(ACCOUNT_A, 'cn-beijing');
  const sf = clusterNamed('storefront');
  const sfNode = (i: number): Node => sf.nodes[i % sf.nodes.length];

  // search: backend-type eni on Flannel -> "can not find eniid for ip" (seed 002), never gets a CLB.
  {
    const pods = deploy(sf, { ns: 'storefront', app: 'search', on: [sfNode(0), sfNode(3)], created: D('2026-11-19T08:10:00Z'), image: 'registry-vpc.cn-beijing.aliyuncs.com/acme/search:1.4.0', containerPorts: [{ containerPort: 9200, name: 'http' }] });
    const svc = service(sf, { ns: 'storefront', name: 'search', created: D('2026-11-19T08:11:02Z'), annotations: { [A.backendType]: 'eni' }, ports: [{ name: 'http', port: 80, targetPort: 9200, nodePort: 31380, protocol: 'TCP' }], pods });
    event(sf, svc, { type: 'Warning', reason: 'SyncLoadBalancerFailed', message: `Error syncing load balancer []: Message: can not find eniid for ip ${pods[0].ip} in vpc ${sf.vpc}`, count: 61, first: D('2026-11-19T08:11:03Z'), last: D('2026-11-21T09:14:40Z') });
  }

  // legacy-api: its CLB was released in the SLB console; the Service still shows the old address.
  {
    const pods = deploy(sf, { ns: 'storefront', app: 'legacy-api', on: [sfNode(1)], created: D('2026-08-01T02:00:00Z'), image: 'registry-vpc.cn-beijing.aliyuncs.com/acme/legacy-api:0.9.7', containerPorts: [{ containerPort: 8080, name: 'http' }] });
    const svc = service(sf, { ns: 'storefront', name: 'legacy-api', created: D('2024-02-07T03:30:00Z'), ports: [{ name: 'http', port: 80, targetPort: 8080, nodePort: 30641, protocol: 'TCP' }], pods });
    svc.ingressIp = publicIp(bj.id);
    svc.labels[LABEL_SERVICE_LOADBALANCER_ID] = cloudId('lb', bj.id);
    event(sf, svc, { type: 'Warning', reason: 'SyncLoadBalancerFailed', message: `Error syncing load balancer []: Message: alicloud: can not find loadbalancer, but it's defined in service [${svc.ingressIp}] this may happen when you delete the loadbalancer`, count: 340, first: D('2026-11-02T06:20:11Z'), last: D('2026-11-21T09:20:02Z') });
  }

  // catalog: its own CCM-created CLB was pasted into the loadbalancer-id annotation (seeds 000/003: do not).
  {
    const pods = deploy(sf, { ns: 'storefront', app: 'catalog', on: [sfNode(2), sfNode(5)], created: D('2026-10-01T01:00:00Z'), image: 'registry-vpc.cn-beijing.aliyuncs.com/acme/catalog:3.2.1', containerPorts: [{ containerPort: 8080, name: 'http' }] });
    const svc = service(sf, { ns: 'storefront', name: 'catalog', created: D('2025-05-20T04:00:00Z'), ports: [{ name: 'http', port: 80, targetPort: 8080, nodePort: 31811, protocol: 'TCP' }], pods });
    const lb = ccmClb(sf, svc);
    svc.annotations[A.id] = lb.id;
    event(sf, svc, { type: 'Warning', reason: 'SyncLoadBalancerFailed', message: `Error syncing load balancer [${lb.id}]: Message: alicloud: the loadbalancer ${lb.id} can not be reused, can not reuse loadbalancer created by kubernetes.`, count: 22, first: D('2026-11-20T10:02:00Z'), last: D('2026-11-21T09:12:31Z') });
  }

  // shop-api: HTTPS listener (certificate on the CLB) forwarding to the pods' TLS port 8443 (seed 002).
  {
    const pods = deploy(sf, { ns: 'storefront', app: 'shop-api', on: [sfNode(1), sfNode(4)], created: D('2026-11-10T03:00:00Z'), image: 'registry-vpc.cn-beijing.aliyuncs.com/acme/shop-api:5.0.3', containerPorts: [{ containerPort: 8080, name: 'http' }, { containerPort: 8443, name: 'https' }] });
    const svc = service(sf, {
      ns: 'storefront',
      name: 'shop-api',
      created: D('2026-11-10T02:58:40Z'),
      annotations: { [A.protocolPort]: 'https:443', [A.certId]: `${int(1000000, 9999999)}-cn-beijing` },
      ports: [
        { name: 'http', port: 80, targetPort: 8080, nodePort: 30907, protocol: 'TCP' },
        { name: 'https', port: 443, targetPort: 8443, nodePort: 31943, protocol: 'TCP', lbProtocol: 'https' },
      ],
      pods,
    });
    ccmClb(sf, svc);
  }

  // reviews: resource-group-id changed after CCM created the CLB -> "can not change ResourceGroupId once created".
  {
    const pods = deploy(sf, { ns: 'storefront', app: 'reviews', on: [sfNode(0)], created: D('2026-09-15T02:00:00Z'), image: 'registry-vpc.cn-beijing.aliyuncs.com/acme/reviews:2.3.0', containerPorts: [{ containerPort: 8080, name: 'http' }] });
    const svc = service(sf, { ns: 'storefront', name: 'reviews', created: D('2025-02-11T06:00:00Z'), ports: [{ name: 'http', port: 80, targetPort: 8080, nodePort: 32011, protocol: 'TCP' }], pods });
    const lb = ccmClb(sf, svc);
    svc.annotations[A.resourceGroup] = `rg-aek${chars(ALNUM, 12)}`;
    event(sf, svc, { type: 'Warning', reason: 'SyncLoadBalancerFailed', message: `Error syncing load balancer [${lb.id}]: Message: alicloud: can not change ResourceGroupId once created`, count: 9, first: D('2026-11-21T07:40:10Z'), last: D('2026-11-21T09:01:55Z') });
  }

  // partner-api: reuses the console CLB partner-gateway (internet) but asks for intranet, without
  // force-override-listeners: CCM tags the CLB as reused, then fails on the address type.
  const partnerLb = clb(bj, {
    name: 'partner-gateway',
    created: D('2023-11-02T09:15:00Z'),
    spec: 'slb.s2.small',
    deleteProtection: 'on',
    modProtection: ['NonProtection', ''],
    tags: [['owner', 'partner-integrations'], [TAG_REUSED_BY_USER, 'true']],
  });
  partnerLb.listeners.push({ port: 443, protocol: 'https', description: 'partner portal' });
  {
    const pods = deploy(sf, { ns: 'partners', app: 'partner-api', on: [sfNode(3)], created: D('2026-11-18T05:00:00Z'), image: 'registry-vpc.cn-beijing.aliyuncs.com/acme/partner-api:1.0.0', containerPorts: [{ containerPort: 8080, name: 'http' }] });
    const svc = service(sf, { ns: 'partners', name: 'partner-api', created: D('2026-11-18T05:02:10Z'), annotations: { [A.id]: partnerLb.id, [A.addressType]: 'intranet' }, ports: [{ name: 'http', port: 8080, targetPort: 8080, nodePort: 30218, protocol: 'TCP' }], pods });
    event(sf, svc, { type: 'Warning', reason: 'SyncLoadBalancerFailed', message: `Error syncing load balancer [${partnerLb.id}]: Message: alicloud: can not change LoadBalancer AddressType once created. delete and retry`, count: 118, first: D('2026-11-18T05:02:11Z'), last: D('2026-11-21T09:18:09Z') });
  }

  // status-edge: the company status CLB (console-created), reused by storefront and by arena below.
  const statusLb = clb(bj, { name: 'status-edge', created: D('2024-06-12T01:00:00Z'), spec: 'slb.s1.small', modProtection: ['NonProtection', ''], tags: [['owner', 'sre'], [TAG_REUSED_BY_USER, 'true']] });
  const statusSvc = (cl: Cluster, name: string, port: number, nodePort: number, nodes: Node[]): Service => {
    const pods = deploy(cl, { ns: 'default', app: name, on: nodes, created: D('2026-10-07T02:00:00Z'), image: 'registry-vpc.cn-beijing.aliyuncs.com/acme/statuspage:2.1.0', containerPorts: [{ containerPort: 8080, name: 'http' }] });
    const svc = service(cl, { ns: 'default', name, created: D('2026-10-07T02:01:00Z'), annotations: { [A.id]: statusLb.id, [A.force]: 'true' }, ports: [{ name: 'http', port, targetPort: 8080, nodePort, protocol: 'TCP' }], pods });
    attach(cl, svc, statusLb, D('2026-10-07T02:01:20Z'));
    return svc;
  };
  statusSvc(sf, 'status-page', 80, 31180, [sfNode(2)]);
  return statusSvc;
}
