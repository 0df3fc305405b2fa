/**
 * What the index computes once per Service and per cluster against the plain computations the
 * checks made before: `selectionOf`, `eligibleNodesOf`, `slicesOf`, `ClusterEntry.services`, and the node ECS ids the
 * index links to the ECS listing (same values; only the string objects are shared); its CCM version gates
 * (`ccmAtLeast`, against `ccmVersionAtLeast`) and its one ref per load balancer (lb-refs.ts `loadBalancerRef`, with the owning
 * cluster, the object every check's results share). Also NLB_SERVER_ADDED_QUOTA's own result order (resource-key
 * order, so the audit has nothing to sort).
 */
import { describe, expect, it } from 'vitest';
import { ccmVersionAtLeast, nodeSelectionOptionsOf, reusedLoadBalancerId, type NlbServer, type NlbServerGroup, type RegionSnapshot } from '@app/domain';
import { FleetIndex, runAudit } from '@app/checks';
import { resultOrder } from '../src/audit.engine';
import { resolveAuditSettings } from '../src/audit-settings.util';
import { CHECK_IDS } from '../src/check.registry';
import { nlbServerAddedQuotaRule } from '../src/rules/nlb-server-added-quota.rule';
import { lbRef } from '../src/result.util';
import { CLUSTER_ID, FROZEN_NOW, P, factory, uid } from './factories';
import { lbOwners, loadBalancerRef } from '../src/lb-refs';

/** A cluster of 4 nodes (nodes 0-2 listed as ECS instances, node 3 not) and three Services. */
function fleetWithServices() {
  const nodes = factory.nodes(4);
  // Ids rebuilt from parts, as ids parsed from JSON or cut from a providerID are: equal values, other strings.
  for (const n of nodes) n.ecsInstanceId = ['i-', n.ecsInstanceId!.slice(2)].join('');
  const web = factory.service({ uid: uid() });
  const api = factory.service({ name: 'api', uid: uid(), annotations: { [`${P}backend-label`]: 'pool=edge' } });
  const bad = factory.service({ name: 'bad', uid: uid(), annotations: { [`${P}backend-label`]: 'broken' } });
  const cluster = factory.cluster({
    kubernetes: factory.kubernetes({
      nodes,
      services: [web, api, bad],
      endpointSlices: [factory.endpointSlice('web', [['10.0.0.1', 'node-0']]), factory.endpointSlice('api', [['10.0.0.2', 'node-1']])],
    }),
  });
  const region = factory.region({ clusters: [cluster], loadBalancers: [], ecsInstances: [0, 1, 2].map((i) => factory.ecs(i)) });
  return { snapshot: factory.fleet([region]), cluster, nodes };
}

describe('per-Service and per-cluster memos of the index', () => {
  it('answers as the computations they replace, and once per Service', () => {
    const { snapshot, cluster } = fleetWithServices();
    const index = FleetIndex.build(snapshot);
    expect(index.services).toHaveLength(3);
    for (const se of index.services) {
      const sel = nodeSelectionOptionsOf(se.service, cluster.ccmVersion);
      expect(index.selectionOf(se)).toEqual(sel);
      expect(index.selectionOf(se)).toBe(index.selectionOf(se));
      const eligible = index.eligibleNodesOf(se);
      if ('error' in sel) expect(eligible).toBeUndefined();
      else expect(eligible).toBe(index.eligibleNodes(se.cluster, sel.options));
      expect(index.slicesOf(se)).toEqual(index.endpointSlicesOf(se.cluster, se.service.namespace, se.service.name));
      expect(index.slicesOf(se)).toBe(index.slicesOf(se));
    }
    const [web, api, bad] = index.services;
    expect(index.eligibleNodesOf(web!)?.nodes.map((n) => n.name)).toEqual(['node-0', 'node-1', 'node-2', 'node-3']);
    expect(index.eligibleNodesOf(api!)?.nodes).toEqual([]);
    expect(index.selectionOf(bad!)).toHaveProperty('error');
    expect(index.slicesOf(web!).map((s) => s.serviceName)).toEqual(['web']);
    expect(index.slicesOf(bad!)).toEqual([]);
  });

  it('keeps each Service\'s reused CLB id as reusedLoadBalancerId reads it (trimmed; blank is none)', () => {
    const { snapshot } = fleetWithServices();
    const services = snapshot.accounts[0]!.regions[0]!.clusters[0]!.kubernetes!.services;
    services[0]!.annotations[`${P}id`] = ' lb-reused ';
    services[1]!.annotations[`${P}id`] = '  ';
    const index = FleetIndex.build(snapshot);
    expect(index.services.map((se) => se.reusedLbId)).toEqual(['lb-reused', undefined, undefined]);
    for (const se of index.services) expect(se.reusedLbId).toBe(reusedLoadBalancerId(se.service));
  });

  it('lists each cluster with its Services in snapshot order, none for a cluster not read', () => {
    const { snapshot } = fleetWithServices();
    const unread = factory.cluster({ clusterId: 'c-unread' });
    snapshot.accounts[0]!.regions[0]!.clusters.push(unread);
    const index = FleetIndex.build(snapshot);
    const [read, notRead] = index.clusters;
    expect(read!.services.map((se) => se.service.name)).toEqual(['web', 'api', 'bad']);
    expect(read!.services.every((se, i) => se === index.services[i] && se.cluster === read)).toBe(true);
    expect(notRead!.services).toEqual([]);
  });

  it('keeps every node ECS id value when linking nodes to the listing', () => {
    const { snapshot, nodes } = fleetWithServices();
    const before = nodes.map((n) => n.ecsInstanceId);
    const audit = JSON.stringify(runAudit(structuredClone(snapshot), { now: FROZEN_NOW }));
    const index = FleetIndex.build(snapshot);
    expect(nodes.map((n) => n.ecsInstanceId)).toEqual(before);
    // The listed nodes name the listing's record; the unlisted one keeps its own id and no record.
    expect(index.nodeEcsOf(snapshot.accounts[0]!.regions[0]!.clusters[0]!).map((e) => e?.instanceId)).toEqual([
      'i-node0000',
      'i-node0001',
      'i-node0002',
      undefined,
    ]);
    expect(index.nodeOfEcs('i-node0001')?.node).toBe(nodes[1]);
    expect(JSON.stringify(runAudit(snapshot, { now: FROZEN_NOW }))).toBe(audit);
  });
});

describe('CCM version gates and load-balancer refs of the index', () => {
  it('ccmAtLeast answers as ccmVersionAtLeast for every pair of texts, asked twice', () => {
    const index = FleetIndex.build(fleetWithServices().snapshot);
    const texts = [undefined, '', 'garbage', 'v2.12.3', 'v2.10.0', '2.10.0', ' v2.10.0 ', 'v1.9.3.313-g748f81e-aliyun', 'v1.9.3.164-g2105d2e-aliyun', 'v2.11.2'];
    for (let round = 0; round < 2; round++)
      for (const installed of texts)
        for (const minimum of texts.filter((t): t is string => t !== undefined))
          expect(index.ccmAtLeast(installed, minimum), `${installed} >= ${minimum}`).toBe(ccmVersionAtLeast(installed, minimum));
  });

  it('gives one ref per load balancer, shared by every check of it and carrying its owning cluster', () => {
    const { snapshot } = fleetWithServices();
    const owned = factory.ccmClb({ loadBalancerId: 'lb-owned', name: 'owned' });
    const unowned = factory.clb({ loadBalancerId: 'lb-free', name: '' });
    snapshot.accounts[0]!.regions[0]!.loadBalancers = [owned, unowned];
    const index = FleetIndex.build(snapshot);
    expect(lbOwners(index).get('lb-owned')).toBe(CLUSTER_ID);
    expect(lbOwners(index).has('lb-free')).toBe(false);
    const ownedRef = loadBalancerRef(index, 'LoadBalancer', owned);
    // The JSON contract's key order: the owning cluster right after the region.
    expect(Object.keys(ownedRef)).toEqual(['kind', 'id', 'accountId', 'regionId', 'clusterId', 'name']);
    expect(ownedRef).toEqual(lbRef('LoadBalancer', owned, CLUSTER_ID));
    expect(loadBalancerRef(index, 'LoadBalancer', unowned)).toEqual(lbRef('LoadBalancer', unowned));
    expect(loadBalancerRef(index, 'LoadBalancer', owned)).toBe(ownedRef);
    const out = runAudit(snapshot, { now: FROZEN_NOW, index });
    const ofOwned = out.results.filter((r) => r.resource.kind === 'LoadBalancer' && r.resource.id === 'lb-owned');
    expect(new Set(ofOwned.map((r) => r.checkId)).size).toBeGreaterThan(1);
    for (const r of ofOwned) expect(r.resource).toBe(ownedRef);
  });
});

describe('NLB_SERVER_ADDED_QUOTA result order', () => {
  it('emits a region in resource-key order (ECS instances by id, then the other servers by id) whatever the group order', () => {
    const server = (type: NlbServer['type'], serverId: string): NlbServer => ({ type, serverId, port: 30080, weight: 100 }) as NlbServer;
    const group = (id: string, servers: NlbServer[]): NlbServerGroup =>
      ({ serverGroupId: id, name: id, relatedLoadBalancerIds: [], servers }) as unknown as NlbServerGroup;
    const region = factory.region({
      loadBalancers: [],
      nlbs: [],
      nlbServerGroups: [
        group('sgp-1', [server('Ecs', 'i-c'), server('Ip', '10.0.0.9'), server('Ecs', 'i-a')]),
        group('sgp-2', [server('Eni', 'eni-2'), server('Ecs', 'i-b'), server('Ip', '10.0.0.1'), server('Ecs', 'i-a')]),
      ],
    }) as RegionSnapshot;
    const snapshot = factory.fleet([region]);
    const index = FleetIndex.build(snapshot);
    const results = nlbServerAddedQuotaRule.evaluate({ snapshot, index, now: FROZEN_NOW, settings: resolveAuditSettings(undefined, CHECK_IDS) });
    expect(results.map((r) => `${r.resource.kind} ${r.resource.id} ${String(r.figures?.used)}`)).toEqual([
      'EcsInstance i-a 2',
      'EcsInstance i-b 1',
      'EcsInstance i-c 1',
      'NlbServer 10.0.0.1 1',
      'NlbServer 10.0.0.9 1',
      'NlbServer eni-2 1',
    ]);
    expect(resultOrder(results)).toBeUndefined();
  });
});
