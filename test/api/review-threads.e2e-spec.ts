/**
 * The admission review threads (apps/api/src/admission/review-threads.ts) run the built thread entry
 * (`review-thread.js` under FLEET_AUDIT_DIST, which the suite's global setup builds): the answer a thread gives equals
 * the answer of a model built on the test's own thread (its plan as the webhook keeps it, admission-plan.ts), a
 * cluster's model is built once per scan (a new scan id builds it again, in the thread the cluster is homed on; a
 * prebuild builds it ahead of the first review), clusters are spread over the threads, and a Service the step refuses
 * comes back as a ReviewRefusedError with the step's message.
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadFleetDirectory } from '@app/collectors';
import { ClusterReviewModel, readManifests, regionBaseline } from '@app/forecast';
import type { StoredSnapshot } from '@app/store';
import { ReviewRefusedError, ReviewThreads, reviewThreadEntry } from '../../apps/api/src/admission/review-threads';
import { admissionPlanOf } from '../../apps/api/src/admission/admission-plan';

const SAMPLE = join(__dirname, '..', '..', 'examples', 'fleets', 'sample');
const NOW = new Date('2026-11-22T00:00:00Z');

function manifest(name: string, spec: string, annotations = '{}') {
  return readManifests([{ source: 'test', text: `apiVersion: v1\nkind: Service\nmetadata: {name: ${name}, namespace: shop, annotations: ${annotations}}\nspec: {type: LoadBalancer, selector: {app: ${name}}, ${spec}}\n` }]).services[0]!.manifest;
}

describe('ReviewThreads', () => {
  const entry = reviewThreadEntry();
  const threads = new ReviewThreads(entry!, 2);
  afterAll(() => threads.close());

  it('answers as a model on this thread, builds each model once per scan, spreads clusters over the threads', async () => {
    expect(entry, 'the built review-thread.js under FLEET_AUDIT_DIST').toBeDefined();
    const snapshot = loadFleetDirectory(SAMPLE);
    const clusters = snapshot.accounts.flatMap((a) => a.regions.flatMap((r) => r.clusters)).filter((c) => c.kubernetes);
    expect(clusters.length).toBeGreaterThanOrEqual(2);
    const s: StoredSnapshot = { scanId: 'scan-1', observedAt: NOW.toISOString(), snapshot };
    const wide = manifest('rv-wide', `ports: [${Array.from({ length: 51 }, (_, i) => `{name: p${i}, port: ${8000 + i}, targetPort: 8080}`).join(', ')}]`);
    for (const c of clusters.slice(0, 2)) {
      const first = await threads.review(s, c.clusterId, c.accountId, c.regionId, wide);
      expect(first.buildMs, 'the first review builds the model').not.toBeNull();
      const local = new ClusterReviewModel(snapshot, c.clusterId, regionBaseline(snapshot, c.clusterId, { now: NOW }), { now: NOW }).review(wide);
      // The thread posts back the plan as the webhook keeps it (admission-plan.ts).
      expect(first.answer).toEqual('plan' in local ? { plan: admissionPlanOf(local.plan) } : local);
      const again = await threads.review(s, c.clusterId, c.accountId, c.regionId, manifest('rv-one', 'ports: [{name: a, port: 80, targetPort: 8080}]'));
      expect(again.buildMs, 'a later review of the same scan finds the model warm').toBeNull();
    }
    expect(new Set(clusters.slice(0, 2).map((x) => threads.homeOf(x.clusterId))), 'two clusters, two threads').toEqual(new Set([0, 1]));
    const c = clusters[0]!;
    const rebuilt = await threads.review({ ...s, scanId: 'scan-2' }, c.clusterId, c.accountId, c.regionId, wide);
    expect(rebuilt.buildMs, 'a new scan builds the model again').not.toBeNull();
    // Built ahead of its first review: the review then finds it warm, with the same answer.
    const d = clusters[1]!;
    expect(await threads.prebuild({ ...s, scanId: 'scan-2' }, d.clusterId, d.accountId, d.regionId), 'a prebuild builds the model').not.toBeNull();
    expect(await threads.prebuild({ ...s, scanId: 'scan-2' }, d.clusterId, d.accountId, d.regionId), 'a second prebuild finds it warm').toBeNull();
    const warm = await threads.review({ ...s, scanId: 'scan-2' }, d.clusterId, d.accountId, d.regionId, wide);
    expect(warm.buildMs).toBeNull();
    const local = new ClusterReviewModel(snapshot, d.clusterId, regionBaseline(snapshot, d.clusterId, { now: NOW }), { now: NOW }).review(wide);
    expect(warm.answer).toEqual('plan' in local ? { plan: admissionPlanOf(local.plan) } : local);
  });

  it('gives a refused Service back as ReviewRefusedError with the step\'s message', async () => {
    // A cluster whose Kubernetes objects were not read: the step has nothing to change and refuses.
    const snapshot = structuredClone(loadFleetDirectory(SAMPLE));
    const c = snapshot.accounts.flatMap((a) => a.regions.flatMap((r) => r.clusters)).find((x) => x.kubernetes)!;
    delete c.kubernetes;
    const s: StoredSnapshot = { scanId: 'scan-3', observedAt: NOW.toISOString(), snapshot };
    const one = manifest('rv-one', 'ports: [{name: a, port: 80, targetPort: 8080}]');
    let local: unknown;
    try {
      new ClusterReviewModel(snapshot, c.clusterId, regionBaseline(snapshot, c.clusterId, { now: NOW }), { now: NOW }).review(one);
    } catch (e) {
      local = e;
    }
    expect((local as Error).message).toContain('were not read');
    const remote = await threads.review(s, c.clusterId, c.accountId, c.regionId, one).catch((e: unknown) => e);
    expect(remote).toBeInstanceOf(ReviewRefusedError);
    expect((remote as Error).message).toBe((local as Error).message);
  });
});
