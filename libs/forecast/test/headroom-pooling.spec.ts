/**
 * Headroom of quotas several clusters share (headroom.model.ts `computeHeadroom`): an account's CLB-instance quota
 * in a region and a vSwitch both clusters' nodes sit in are pooled, each cluster gets its share, and a what-if that
 * adds every cluster's share at once fits while one more on each breaches the shared quota. Also ACK's node limit,
 * the pod CIDR of a Flannel cluster, the NLB "not planned" reason and the order by time to exhaustion.
 */
import { describe, expect, it } from 'vitest';
import { QUOTA_USAGE_CHECK_IDS, runAudit } from '@app/checks';
import { quotaUsageOf, type FleetSnapshot } from '@app/domain';
import { computeHeadroom, parseScenario, runWhatIf, type HeadroomEntry, type HeadroomOptions } from '@app/forecast';
import { ACCOUNT, CLUSTER, NOW, REGION, smallFleet } from './forecast-fleet.util';

const OTHER = 'c-forecast-2';

/** Two clusters of 3 workers each in one account, region and vSwitch (`freeIps` free), with the given quotas. */
function twoClusters(quotas: Record<string, number>, freeIps = 200): FleetSnapshot {
  const snapshot = smallFleet({ nodes: 3, quotas, freeIps });
  const region = snapshot.accounts[0]!.regions[0]!;
  const first = region.clusters[0]!;
  const second = structuredClone(first);
  second.clusterId = OTHER;
  second.name = 'small-2';
  second.kubernetes!.nodes = second.kubernetes!.nodes.map((n, i) => {
    const id = `i-other${String(i).padStart(4, '0')}`;
    return { ...n, name: `other-${i}`, labels: { 'kubernetes.io/hostname': `other-${i}` }, providerId: `${REGION}.${id}`, ecsInstanceId: id, internalIp: `10.0.0.${i + 100}` };
  });
  for (const n of second.kubernetes!.nodes)
    region.ecsInstances!.push({ ...region.ecsInstances![0]!, instanceId: n.ecsInstanceId!, privateIps: [n.internalIp!] });
  region.clusters.push(second);
  return snapshot;
}

function headroom(snapshot: FleetSnapshot, opts: HeadroomOptions = {}): HeadroomEntry[] {
  const samples = quotaUsageOf(runAudit(snapshot, { now: NOW }).results, QUOTA_USAGE_CHECK_IDS);
  return computeHeadroom(snapshot, samples, opts);
}

function byId(entries: HeadroomEntry[], id: string): HeadroomEntry {
  return entries.find((e) => e.clusterId === id)!;
}

function whatIf(snapshot: FleetSnapshot, steps: Record<string, unknown>[]) {
  return runWhatIf(snapshot, parseScenario({ apiVersion: 'fleet-audit/v1', kind: 'Scenario', name: 'pool', steps }), { now: NOW });
}

function headroomOf(a: HeadroomEntry['nodes']): number | null {
  return 'alreadyOver' in a ? null : a.headroom;
}

describe('headroom pools the quotas clusters share', () => {
  it('two clusters share the account CLB-instance quota: the shares add up to the pool, and a what-if adding both agrees', () => {
    const snapshot = twoClusters({ slb_quota_instances_num: 7 });
    const entries = headroom(snapshot);
    const a = byId(entries, CLUSTER);
    const b = byId(entries, OTHER);
    // 7 CLBs left in the account's region, split 4 + 3 (the odd one to the first cluster id), not 7 each.
    expect(a.clusterModeServices).toMatchObject({ headroom: 4, limitedBy: { checkId: 'CLB_INSTANCE_QUOTA', resource: { kind: 'Region', id: REGION, accountId: ACCOUNT } } });
    expect(b.clusterModeServices).toMatchObject({ headroom: 3, limitedBy: { checkId: 'CLB_INSTANCE_QUOTA' } });
    expect(a.sharedQuotas).toContainEqual(
      expect.objectContaining({ question: 'clusterModeServices', checkId: 'CLB_INSTANCE_QUOTA', fleetHeadroom: 7, clusters: 2, share: 4, room: 7 }),
    );
    expect(b.sharedQuotas).toContainEqual(expect.objectContaining({ question: 'clusterModeServices', fleetHeadroom: 7, clusters: 2, share: 3 }));

    const add = (cluster: string, count: number) => ({ addServices: { cluster, namespace: 'shop', count } });
    const fits = whatIf(twoClusters({ slb_quota_instances_num: 7 }), [add(CLUSTER, 4), add(OTHER, 3)]);
    expect(fits.steps.map((s) => s.firstBreach)).toEqual([null, null]);
    const over = whatIf(twoClusters({ slb_quota_instances_num: 7 }), [add(CLUSTER, 5), add(OTHER, 3)]);
    expect(over.steps[1]!.firstBreach).toMatchObject({ checkId: 'CLB_INSTANCE_QUOTA', after: { used: 8, limit: 7 } });
  });

  it('two clusters whose nodes share a vSwitch: the free IPs are split, and adding both shares fits', () => {
    const entries = headroom(twoClusters({}, 10));
    expect(byId(entries, CLUSTER).nodes).toMatchObject({ headroom: 5, limitedBy: { checkId: 'VSWITCH_IP_EXHAUSTION', resource: { id: 'vsw-1' } } });
    expect(byId(entries, OTHER).nodes).toMatchObject({ headroom: 5, limitedBy: { checkId: 'VSWITCH_IP_EXHAUSTION' } });
    const addNodes = (cluster: string, count: number) => ({ addNodes: { cluster, count } });
    const fits = whatIf(twoClusters({}, 10), [addNodes(CLUSTER, 5), addNodes(OTHER, 5)]);
    expect(fits.steps.map((s) => s.firstBreach)).toEqual([null, null]);
    const over = whatIf(twoClusters({}, 10), [addNodes(CLUSTER, 6), addNodes(OTHER, 5)]);
    expect(over.steps[1]!.firstBreach).toMatchObject({ checkId: 'VSWITCH_IP_EXHAUSTION' });
  });

  it('a cluster asked alone still gets its share: its pool-mates are counted', () => {
    const [only] = headroom(twoClusters({ slb_quota_instances_num: 7 }), { clusterIds: [OTHER] });
    expect(only).toMatchObject({ clusterId: OTHER, clusterModeServices: { headroom: 3 } });
  });

  it('a cluster limited below an even split by its own quota leaves the rest of the pool to the other', () => {
    const snapshot = twoClusters({ slb_quota_instances_num: 7 });
    // The first cluster's NodePort range holds 2 more Services; the second takes the other 5.
    snapshot.accounts[0]!.regions[0]!.clusters[0]!.nodePortRange = { from: 30000, to: 30001, source: 'control_plane_config' };
    const entries = headroom(snapshot);
    expect(byId(entries, CLUSTER).clusterModeServices).toMatchObject({ headroom: 2, limitedBy: { checkId: 'NODEPORT_RANGE_EXHAUSTION' } });
    expect(byId(entries, OTHER).clusterModeServices).toMatchObject({ headroom: 5, limitedBy: { checkId: 'CLB_INSTANCE_QUOTA' } });
  });
});

describe('node limits of a cluster', () => {
  it("ACK's per-cluster node limit counts (maxNodesPerCluster; default 5,000)", () => {
    const [h] = headroom(smallFleet({ nodes: 5 }), { maxNodesPerCluster: 8 });
    expect(h!.nodes).toMatchObject({ headroom: 3, limitedBy: { checkId: 'ACK_NODE_LIMIT', resource: { kind: 'Cluster', id: CLUSTER } } });
    const snapshot = smallFleet({ nodes: 5, freeIps: 100_000 });
    snapshot.accounts[0]!.regions[0]!.vSwitches![0]!.cidrBlock = '10.0.0.0/8';
    expect(headroom(snapshot)[0]!.nodes).toMatchObject({ headroom: 4995, limitedBy: { checkId: 'ACK_NODE_LIMIT' } });
  });

  it('the pod CIDR of a Flannel cluster holds 2^(node mask - prefix) nodes', () => {
    const snapshot = smallFleet({ nodes: 5 });
    snapshot.accounts[0]!.regions[0]!.clusters[0]!.podCidr = { cidr: '172.20.0.0/22', prefixLength: 22, nodeCidrMask: 26 };
    // 16 blocks of /26 in a /22, 5 taken.
    expect(headroom(snapshot)[0]!.nodes).toMatchObject({ headroom: 11, limitedBy: { checkId: 'POD_CIDR_NODE_BLOCKS' } });
    snapshot.accounts[0]!.regions[0]!.clusters[0]!.podCidr = { cidr: '172.20.0.0/24', prefixLength: 24, nodeCidrMask: 26 };
    expect(headroom(snapshot)[0]!.nodes).toMatchObject({ alreadyOver: [{ checkId: 'POD_CIDR_NODE_BLOCKS', used: 5, limit: 4 }] });
  });
});

describe('the NLB "not planned" reason and the order of the rows', () => {
  it('says whether the NLB data was not read or the CCM predates the NLB controller', () => {
    expect(headroom(smallFleet({ nodes: 2 }))[0]).toMatchObject({
      nlbClusterModeServices: null,
      nlbNotPlanned: { reason: 'nlb-data-not-read', message: `the NLB data of ${ACCOUNT}/${REGION} was not read (coverage gap nlb)` },
    });
    const old = smallFleet({ nodes: 2, nlb: true });
    old.accounts[0]!.regions[0]!.clusters[0]!.ccmVersion = 'v2.4.1';
    expect(headroom(old)[0]).toMatchObject({
      nlbLocalServices: null,
      nlbNotPlanned: { reason: 'ccm-without-nlb', message: 'CCM v2.4.1 has no NLB controller (since v2.5.0)' },
    });
    expect(headroom(smallFleet({ nodes: 2, nlb: true }))[0]!.nlbNotPlanned).toBeNull();
  });

  it('sorts rows by the time to exhaustion of the quota limiting them, soonest first', () => {
    const snapshot = twoClusters({ slb_quota_instances_num: 7 });
    expect(headroom(snapshot).map((e) => e.clusterId)).toEqual([CLUSTER, OTHER]);
    const nodeLimit = (cluster: string, seconds: number) => ({
      checkId: 'ACK_NODE_LIMIT',
      resource: { kind: 'Cluster' as const, id: cluster, accountId: ACCOUNT, regionId: REGION, clusterId: cluster },
      secondsToExhaustion: { p50: seconds },
    });
    const entries = headroom(snapshot, { maxNodesPerCluster: 4, trends: [nodeLimit(CLUSTER, 900), nodeLimit(OTHER, 60)] });
    expect(entries.map((e) => [e.clusterId, e.secondsToExhaustion])).toEqual([
      [OTHER, 60],
      [CLUSTER, 900],
    ]);
    expect(headroomOf(entries[0]!.nodes)).toBe(1);
  });
});
