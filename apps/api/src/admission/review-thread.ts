/**
 * Thread entry of the admission review threads (`ReviewThreads`, review-threads.ts): each thread keeps the warm review
 * models (libs/forecast cluster-review.model.ts) of the clusters homed on it, built from the region snapshots the API
 * posts it (one per region of the latest scan, structured clone), and answers reviews of those clusters, so the API's
 * event loop only parses requests and serialises answers while models are built and reviews computed beside it.
 * Built by `nest build cli` next to review-threads.js (`dist/apps/cli/apps/api/src/admission/review-thread.js`).
 *
 * Messages in (`ReviewThreadRequest`): `region` (a region of a scan: replaces everything kept of another scan),
 * `review` (one Service on one cluster) and `build` (a cluster's model, ahead of its reviews); out
 * (`ReviewThreadAnswer`): one per review or build, with the model's answer (or its build time), the step's refusal (a
 * ScenarioError's message), `missing` (the region was never posted to this thread) or an error.
 */
import { parentPort } from 'node:worker_threads';
import { LRUCache } from 'lru-cache';
import type { FleetSnapshot, K8sServiceWire } from '@app/domain';
import { ClusterReviewModel, regionBaseline, ScenarioError, type RegionBaseline, type ReviewAnswer } from '@app/forecast';
import { admissionPlanOf } from './admission-plan';

/** Regions kept per thread (LRU): the regions of the clusters homed on it. */
export const MAX_THREAD_REGIONS = 8;

/** Models kept per thread (LRU): 2 MB each on the 1M-backend bench fleet. */
export const MAX_THREAD_MODELS = 64;

/** What the API posts a review thread. */
export type ReviewThreadRequest =
  | { type: 'region'; scanId: string; regionKey: string; snapshot: FleetSnapshot }
  | { type: 'review'; id: number; scanId: string; regionKey: string; clusterId: string; manifest: K8sServiceWire; now: number }
  | { type: 'build'; id: number; scanId: string; regionKey: string; clusterId: string; now: number };

/**
 * A review thread's answer to one review (`id`): the model's answer with its plan as the webhook keeps it
 * (`admissionPlanOf`), and `buildMs` when the cluster's model was built for this review (ms).
 */
export type ReviewThreadAnswer = { id: number } & (
  | { answer: ReviewAnswer; buildMs: number | null }
  /** A `build`: the model's build time (ms), null when it was warm already. */
  | { built: number | null }
  | { refused: string }
  | { missing: 'region' }
  | { error: string }
);

/** What one thread keeps, all of one scan. */
export class ReviewThreadState {
  private scanId: string | undefined;
  private readonly regions = new LRUCache<string, FleetSnapshot>({ max: MAX_THREAD_REGIONS });
  private readonly baselines = new LRUCache<string, RegionBaseline>({ max: MAX_THREAD_REGIONS });
  private readonly models = new LRUCache<string, ClusterReviewModel>({ max: MAX_THREAD_MODELS });

  /** Handles one message; a review or a build gets its answer, a region none. */
  handle(m: ReviewThreadRequest): ReviewThreadAnswer | undefined {
    if (m.type === 'region') {
      if (m.scanId !== this.scanId) {
        this.regions.clear();
        this.baselines.clear();
        this.models.clear();
        this.scanId = m.scanId;
      }
      this.regions.set(m.regionKey, m.snapshot);
      this.baselines.delete(m.regionKey);
      return undefined;
    }
    const snapshot = m.scanId === this.scanId ? this.regions.get(m.regionKey) : undefined;
    if (!snapshot) return { id: m.id, missing: 'region' };
    try {
      const options = { now: new Date(m.now) };
      let model = this.models.get(m.clusterId);
      let buildMs: number | null = null;
      if (!model) {
        const t0 = performance.now();
        let baseline = this.baselines.get(m.regionKey);
        if (!baseline) this.baselines.set(m.regionKey, (baseline = regionBaseline(snapshot, m.clusterId, options)));
        model = new ClusterReviewModel(snapshot, m.clusterId, baseline, options);
        this.models.set(m.clusterId, model);
        buildMs = Math.round(performance.now() - t0);
      }
      if (m.type === 'build') return { id: m.id, built: buildMs };
      // Only what the verdict reads crosses to the event loop (admission-plan.ts): the rest of a plan is most of its size.
      const answer = model.review(m.manifest);
      return { id: m.id, answer: 'plan' in answer ? { plan: admissionPlanOf(answer.plan) } : answer, buildMs };
    } catch (e) {
      if (e instanceof ScenarioError) return { id: m.id, refused: e.message };
      return { id: m.id, error: e instanceof Error ? `${e.name}: ${e.message}` : String(e) };
    }
  }
}

if (parentPort) {
  const port = parentPort;
  const state = new ReviewThreadState();
  port.on('message', (m: ReviewThreadRequest) => {
    const answer = state.handle(m);
    if (answer) port.postMessage(answer);
  });
}
