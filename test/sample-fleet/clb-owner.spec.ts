/**
 * The cluster owning each CLB and NLB (libs/checks clb-owner.ts) on the bundled sample fleet and variations of it:
 * CCM's `ack.aliyun.com` tag first (a cluster of the load balancer's account and region), then (CLB) the API server,
 * then the one cluster of its Services; CLB and NLB results, their quota samples and findings carry it without
 * changing fingerprints.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { clbOwnerClusters, FleetIndex, nlbOwnerClusters, fingerprintOf, QUOTA_USAGE_CHECK_IDS, runAudit, withLbOwner } from '@app/checks';
import { loadFleetDirectory } from '@app/collectors';
import { quotaUsageOf, TAG_CLUSTER_ID, type FleetSnapshot, type ResourceRef } from '@app/domain';

const SAMPLE = join(__dirname, '..', '..', 'examples', 'fleets', 'sample');
const NOW = new Date('2026-11-22T00:00:00Z');
const PAYMENTS = 'c1e64668d4e11407d7227bc187533f952';
/** Same account and region as PAYMENTS (cn-hangzhou), team data. */
const BATCH = 'c34d43b2609c95a255da22974d24d9288';
/** Same account, other region (cn-beijing). */
const ARENA = 'c8f7e8e97309874d0dac47c9c955643a5';

const region = (s: FleetSnapshot, regionId: string) => s.accounts.find((a) => a.accountId === '1234567890123456')!.regions.find((r) => r.regionId === regionId)!;

describe('clbOwnerClusters', () => {
  it('attributes CLBs whose Services are all of one cluster to it, and no CLB serving several clusters', () => {
    const snapshot = loadFleetDirectory(SAMPLE);
    const ix = FleetIndex.build(snapshot);
    const owners = clbOwnerClusters(ix);
    expect(owners.size).toBeGreaterThan(0);
    for (const [lb, services] of ix.servicesByClb()) {
      const clusters = new Set(services.map((se) => se.cluster.cluster.clusterId));
      if (clusters.size === 1) expect(owners.get(lb), lb).toBe([...clusters][0]);
      else if (clusters.size > 1) expect(owners.has(lb), lb).toBe(false);
    }
  });

  it("CCM's cluster tag wins when it names a cluster of the CLB's account and region; another region's cluster is ignored", () => {
    const snapshot = loadFleetDirectory(SAMPLE);
    const before = clbOwnerClusters(FleetIndex.build(snapshot));
    const lb = [...before].find(([, c]) => c === PAYMENTS)![0];
    const clb = region(snapshot, 'cn-hangzhou').loadBalancers!.find((x) => x.loadBalancerId === lb)!;
    clb.tags = { ...clb.tags, [TAG_CLUSTER_ID]: BATCH };
    expect(clbOwnerClusters(FleetIndex.build(snapshot)).get(lb)).toBe(BATCH);
    clb.tags = { ...clb.tags, [TAG_CLUSTER_ID]: ARENA };
    expect(clbOwnerClusters(FleetIndex.build(snapshot)).get(lb)).toBe(PAYMENTS);
  });

  it('a CLB no Service uses belongs to the cluster whose API server it is', () => {
    const snapshot = loadFleetDirectory(SAMPLE);
    const ix = FleetIndex.build(snapshot);
    const used = new Set(ix.servicesByClb().keys());
    const owners = clbOwnerClusters(ix);
    const idle = region(snapshot, 'cn-hangzhou').loadBalancers!.find((x) => !used.has(x.loadBalancerId) && !owners.has(x.loadBalancerId) && x.tags[TAG_CLUSTER_ID] === undefined);
    expect(idle, 'an unattributed CLB in cn-hangzhou').toBeDefined();
    const cluster = region(snapshot, 'cn-hangzhou').clusters.find((c) => c.clusterId === PAYMENTS)!;
    cluster.apiServerLoadBalancerId = idle!.loadBalancerId;
    expect(clbOwnerClusters(FleetIndex.build(snapshot)).get(idle!.loadBalancerId)).toBe(PAYMENTS);
  });

  it('an NLB belongs to the cluster its tag names in its account and region, else to the one cluster of its Services', () => {
    const snapshot = loadFleetDirectory(SAMPLE);
    const ix = FleetIndex.build(snapshot);
    const owners = nlbOwnerClusters(ix);
    const nlbs = snapshot.accounts.flatMap((a) => a.regions.flatMap((r) => (r.nlbs ?? []).map((n) => ({ n, r, a }))));
    expect(nlbs.length).toBeGreaterThan(0);
    const owned = nlbs.find(({ n }) => owners.has(n.loadBalancerId));
    expect(owned, 'an NLB of the sample fleet with an owner').toBeDefined();
    // Its tag naming a cluster of another region is ignored; one naming another cluster of its region wins (a second
    // cluster added to the region, without Kubernetes objects).
    const elsewhere = snapshot.accounts.flatMap((a) => a.regions).find((r) => r.regionId !== owned!.r.regionId)!.clusters[0]!;
    const before = owners.get(owned!.n.loadBalancerId);
    owned!.n.tags = { ...owned!.n.tags, [TAG_CLUSTER_ID]: elsewhere.clusterId };
    expect(nlbOwnerClusters(FleetIndex.build(snapshot)).get(owned!.n.loadBalancerId)).toBe(before);
    const sibling = { ...owned!.r.clusters[0]!, clusterId: 'c0000000000000000000000000000ta9', name: 'tagged-owner', kubernetes: undefined };
    owned!.r.clusters.push(sibling);
    owned!.n.tags = { ...owned!.n.tags, [TAG_CLUSTER_ID]: sibling.clusterId };
    expect(nlbOwnerClusters(FleetIndex.build(snapshot)).get(owned!.n.loadBalancerId)).toBe(sibling.clusterId);
  });

  it('withLbOwner sets clusterId right after regionId on CLB and NLB refs only, keeping the fingerprint', () => {
    const owners = new Map([['lb-1', PAYMENTS]]);
    const ref: ResourceRef = { kind: 'LoadBalancer', id: 'lb-1', accountId: '1', regionId: 'cn-hangzhou', name: 'x' };
    const owned = withLbOwner(ref, owners);
    expect(Object.keys(owned)).toEqual(['kind', 'id', 'accountId', 'regionId', 'clusterId', 'name']);
    expect(fingerprintOf('CLB_BACKEND_QUOTA', owned)).toBe(fingerprintOf('CLB_BACKEND_QUOTA', ref));
    const region: ResourceRef = { kind: 'Region', id: 'cn-hangzhou', accountId: '1', regionId: 'cn-hangzhou' };
    expect(withLbOwner(region, owners)).toBe(region);
    expect(withLbOwner({ ...ref, id: 'lb-2' }, owners)).toEqual({ ...ref, id: 'lb-2' });
    const nlb: ResourceRef = { kind: 'NetworkLoadBalancer', id: 'nlb-1', accountId: '1', regionId: 'cn-hangzhou' };
    expect(withLbOwner(nlb, new Map([['nlb-1', PAYMENTS]]))).toEqual({ ...nlb, clusterId: PAYMENTS });
  });

  it("the audit's CLB quota samples and findings carry the owning cluster, its name and team; region quotas stay the region's", () => {
    const snapshot = loadFleetDirectory(SAMPLE);
    const owners = clbOwnerClusters(FleetIndex.build(snapshot));
    const out = runAudit(snapshot, { now: NOW });
    const samples = quotaUsageOf(out.results, QUOTA_USAGE_CHECK_IDS);
    const clb = samples.filter((s) => s.resource.kind === 'LoadBalancer');
    expect(clb.length).toBeGreaterThan(0);
    for (const s of clb) expect(s.resource.clusterId, s.resource.id).toBe(owners.get(s.resource.id));
    const nlbOwners = nlbOwnerClusters(FleetIndex.build(snapshot));
    const nlb = samples.filter((s) => s.resource.kind === 'NetworkLoadBalancer');
    expect(nlb.some((s) => s.resource.clusterId !== undefined)).toBe(true);
    for (const s of nlb) expect(s.resource.clusterId, s.resource.id).toBe(nlbOwners.get(s.resource.id));
    for (const s of samples.filter((x) => x.resource.kind === 'Region')) expect(s.resource.clusterId).toBeUndefined();
    const lbFindings = out.findings.filter((f) => f.resource.kind === 'LoadBalancer' && owners.has(f.resource.id));
    expect(lbFindings.length).toBeGreaterThan(0);
    for (const f of lbFindings) expect(f.resource).toMatchObject({ clusterId: owners.get(f.resource.id), clusterName: expect.any(String), team: expect.any(String) });
  });
});
