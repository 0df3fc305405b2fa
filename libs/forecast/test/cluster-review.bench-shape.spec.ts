/**
 * The admission review model (libs/forecast cluster-review.model.ts) answers exactly what `plan` answers for one
 * Service on a fleet of the bench fleet's shape (one region of 12 clusters of 100 nodes and 22 LoadBalancer Services
 * each): for the matrix of cluster-review-oracle.util.ts on two clusters of different CCM versions, the model's answer
 * equals `planManifests` on the whole snapshot, the per-Service checks run on the reviewed Service alone and those
 * that count over the cluster are answered from the counts the step moves. The sample fleet and the other cases are
 * cluster-review.model.spec.ts; this matrix is a file of its own so that the two run on two workers.
 */
import { describe, expect, it } from 'vitest';
import { generateFleet, generateSpecSchema } from '@app/collectors';
import { mapWireFleet } from '@app/domain';
import { millionBackendSpec } from '../../../bench/bench-support';
import { runMatrix } from './cluster-review-oracle.util';

describe('ClusterReviewModel: the same answer as plan, Service by Service', () => {
  it('on the bench fleet\'s shape (one region of 12 clusters, both CCM versions)', () => {
    const spec = generateSpecSchema.parse({ ...millionBackendSpec(22, { nlb: true }), accounts: 1, clusters: 12 });
    const snapshot = mapWireFleet(generateFleet(spec, 'bench').fleet);
    const clusters = snapshot.accounts[0]!.regions[0]!.clusters;
    const ids = [clusters[0]!, clusters[1]!].map((c) => c.clusterId);
    expect(new Set([clusters[0]!.ccmVersion, clusters[1]!.ccmVersion]).size).toBe(2);
    const { answered, fallbacks, alone, counted, serviceChecks, countingChecks, twinClbs } = runMatrix(snapshot, ids);
    expect(answered).toBe(26);
    // The per-Service checks of the bench shape run on the reviewed Service alone; those that count over the cluster
    // (a node's attachments, Cluster-mode blowup) are answered from the counts the step moves (compared with plan above).
    expect(serviceChecks).toContain('LB_CONFIG_DRIFT');
    expect(serviceChecks).toContain('CLB_BACKEND_QUOTA');
    expect(serviceChecks).not.toContain('ECS_LB_ATTACHMENT_QUOTA');
    expect(serviceChecks).not.toContain('CLUSTER_MODE_BLOWUP');
    expect([...countingChecks].sort()).toEqual(['CLUSTER_MODE_BLOWUP', 'ECS_LB_ATTACHMENT_QUOTA']);
    expect(alone).toBeGreaterThanOrEqual(14);
    expect(counted).toBeGreaterThanOrEqual(10);
    // The reviews answered from the counts audited the slice with the other Services' CLBs as backend twins.
    expect(twinClbs).toBeGreaterThan(0);
    for (const f of fallbacks) expect(f).toMatch(/ reuseForeign names-stub: lb-\S+$/);
  });
});
