/**
 * The admission review model (libs/forecast cluster-review.model.ts) answers exactly what `plan` answers for one
 * Service: for each cluster and Service of the matrix (cluster-review-oracle.util.ts), the model's answer equals
 * `planManifests` on the whole snapshot, on the sample fleet and on a fleet of the bench fleet's shape (one region of
 * 12 clusters of 100 nodes and 22 LoadBalancer Services each) with a lowered quota ratio. Where the model falls back
 * to the whole what-if it says why, and it falls back only on the reuse of a load balancer it holds as a stub and on
 * the rare results it cannot compute exactly. Most answers run the per-Service checks on the reviewed Service alone
 * (the model's increment), and some take the region checks' results from an earlier review of the same signature
 * (Services naming vSwitches come after those), so these comparisons test both. The bench shape's matrix on two
 * clusters of both CCM versions is cluster-review.bench-shape.spec.ts: each file is a few seconds of whole-snapshot
 * plans, and as two files they run on two workers.
 */
import { describe, expect, it } from 'vitest';
import { generateFleet, generateSpecSchema, loadFleetDirectory } from '@app/collectors';
import { mapWireFleet, type FleetSnapshot } from '@app/domain';
import { ClusterReviewModel, regionBaseline } from '@app/forecast';
import { millionBackendSpec } from '../../../bench/bench-support';
import { NEW_SERVICES, NOW, SAMPLE, compare, runMatrix } from './cluster-review-oracle.util';

describe('ClusterReviewModel: the same answer as plan, Service by Service', () => {
  it('on the sample fleet (every cluster)', () => {
    const snapshot = loadFleetDirectory(SAMPLE);
    const ids = snapshot.accounts.flatMap((a) => a.regions.flatMap((r) => r.clusters.map((c) => c.clusterId)));
    const before = JSON.stringify(snapshot);
    // One model per cluster answers every review of the matrix in turn: a review that left anything behind in the
    // model would change the answers after it.
    const { answered, fallbacks, alone, regionRemembered } = runMatrix(snapshot, ids);
    expect(JSON.stringify(snapshot), 'the snapshot is left as it was').toBe(before);
    // Most answers ran the Service checks on the reviewed Service alone (the increment compared with plan above).
    expect(alone).toBeGreaterThan(answered / 2);
    // Reviews whose region checks' results came from an earlier review of the same signature (the second Service of
    // a shape, at least, on every cluster whose region checks allow it), compared with plan like every other answer.
    expect(regionRemembered).toBeGreaterThanOrEqual(10);
    // The model answers every review but those on a CLB other clusters use (reused across clusters: storefront's
    // status page CLB) or held as a stub (another cluster's CLB), and a Service naming a vSwitch only other clusters
    // use (the region's result on it is not the slice's).
    expect(answered).toBe(77);
    for (const f of fallbacks) expect(f).toMatch(/ (update shared-lb|reuseForeign (shared-lb|names-stub)): lb-\S+$| vSwitch untrusted-result: VSWITCH_IP_EXHAUSTION on VSwitch vsw-\S+$/);
    expect(fallbacks.filter((f) => f.includes(' vSwitch ')).length, 'the vSwitch case falls back somewhere').toBeGreaterThan(0);
  });

  it("keeps the scan's failed coverage of its own cluster, region and account (a skipped result's reason names it as the region's does)", () => {
    const spec = generateSpecSchema.parse({ ...millionBackendSpec(22), accounts: 1, clusters: 4 });
    const snapshot = mapWireFleet(generateFleet(spec, 'bench').fleet);
    const account = snapshot.accounts[0]!;
    const region = account.regions[0]!;
    const [target, other] = region.clusters;
    // Node port ranges not read on two clusters (NODEPORT_EPHEMERAL_OVERLAP skips them naming the coverage message), and
    // the scan's failures recorded for the target cluster, the other cluster, the region and the account.
    delete target!.nodeLocalPortRanges;
    delete other!.nodeLocalPortRanges;
    const at = { accountId: account.accountId, regionId: region.regionId };
    const failures = [
      { ...at, clusterId: target!.clusterId, api: 'sysctls' as const, status: 'failed' as const, errorCode: 'Timeout', message: 'node sysctls timed out' },
      { ...at, clusterId: other!.clusterId, api: 'sysctls' as const, status: 'failed' as const, errorCode: 'Forbidden', message: 'no exec on nodes' },
      { ...at, api: 'nlb' as const, status: 'failed' as const, errorCode: 'Forbidden.RAM', message: 'no NLB permission' },
      { accountId: account.accountId, api: 'ram' as const, status: 'failed' as const, errorCode: 'Forbidden.RAM', message: 'no RAM permission' },
    ];
    const model = (s: FleetSnapshot) => new ClusterReviewModel(s, target!.clusterId, regionBaseline(s, target!.clusterId, { now: NOW }), { now: NOW });
    const plain = model(snapshot);
    const failed = model({ ...snapshot, coverage: [...snapshot.coverage, ...failures] });
    // The slice's results are compared with the region's when the model is built: a reason the slice words without the
    // coverage message the region's result has would leave that result untrusted.
    expect(failed.size.untrusted).toBe(plain.size.untrusted);
    const failedSnapshot = { ...snapshot, coverage: [...snapshot.coverage, ...failures] };
    expect(compare(failedSnapshot, failed, target!.clusterId, NEW_SERVICES.cluster2!)).toEqual({});
  });

  it("on the bench fleet's shape with a quota ratio one attachment above the busiest node (a review that reaches it is not answered from the counts)", () => {
    const spec = generateSpecSchema.parse({ ...millionBackendSpec(22, { nlb: true }), accounts: 1, clusters: 12 });
    const snapshot = mapWireFleet(generateFleet(spec, 'bench').fleet);
    const clusterId = snapshot.accounts[0]!.regions[0]!.clusters[0]!.clusterId;
    // The cluster's nodes are backends of 15 or 16 CLBs, of an attachment quota of 50. With a warning from 17/50, a
    // review whose CLB attaches the busiest nodes gives them a finding: the counts do not answer it, the whole slice
    // does; a review that attaches no node (Local mode without pods, ENI, NLB) is answered from the counts. Every
    // answer equals plan's.
    const { answered, counted } = runMatrix(snapshot, [clusterId], { quota: { warningRatio: 0.34, criticalRatio: 0.36 } });
    expect(answered).toBe(13);
    expect(counted).toBeGreaterThan(0);
    expect(counted).toBeLessThan(answered / 2);
  });
});
