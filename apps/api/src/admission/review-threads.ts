/**
 * The admission review threads: `node:worker_threads` threads (review-thread.ts is their entry) that keep the warm
 * review models and compute the reviews, so that building a model (one analysis of its region: seconds on the
 * 1M-backend bench fleet) never stalls the API's event loop, and reviews of clusters homed on different threads run
 * on different cores (one thread per core beside the event loop's: `reviewThreadCount`). Each cluster is homed on one
 * thread (the one with the fewest clusters of the scan when its first review comes), which keeps its model; the region snapshot a thread needs is posted to it once per scan, before
 * the first review that needs it (messages on a port arrive in order). A thread that stops fails its pending reviews
 * and is started again by the next one.
 */
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { processEnvironment } from '@app/config';
import type { FleetSnapshot, K8sServiceWire } from '@app/domain';
import type { ReviewAnswer } from '@app/forecast';
import type { StoredSnapshot } from '@app/store';
import type { ReviewThreadAnswer, ReviewThreadRequest } from './review-thread';

/** Most review threads: one per core beside the event loop's, up to this (each holds the models of its clusters: 2 MB each, plus its regions). */
export const MAX_REVIEW_THREADS = 4;

/**
 * The review threads of a machine of `cores` cores: one per core but the one the API's event loop keeps, at least one,
 * at most MAX_REVIEW_THREADS. A thread more than the cores beside the event loop costs CPU for nothing: each thread is
 * an isolate of its own (its own compiled code, its own collections, its own wake-ups), and on 2 cores two review
 * threads spent 3.5 ms of CPU per review where one spent 2.7 ms (bench:admission --clusters 50 --seconds 10 at 200
 * reviews/s, docs/benchmarks.md 2026-11-30), with its event loop busy 1.1 ms per review and a lower p99.
 */
export function reviewThreadCount(cores: number): number {
  return Math.max(1, Math.min(MAX_REVIEW_THREADS, cores - 1));
}

/** A review thread refused the Service (a ScenarioError's message in the thread). */
export class ReviewRefusedError extends Error {}

/**
 * The built `review-thread.js`: next to this module when it runs compiled (`dist/apps/cli/...`); from TypeScript
 * source (tests), the build under FLEET_AUDIT_DIST, else the repository's `dist/apps/cli`. Undefined when that file is
 * not there (the caller computes reviews on its own thread).
 */
export function reviewThreadEntry(): string | undefined {
  const entry = __filename.endsWith('.js')
    ? join(__dirname, 'review-thread.js')
    : join(processEnvironment().FLEET_AUDIT_DIST || join(__dirname, '..', '..', '..', '..', 'dist', 'apps', 'cli'), 'apps', 'api', 'src', 'admission', 'review-thread.js');
  return existsSync(entry) ? entry : undefined;
}

/** One thread and what the API knows of it. */
interface Thread {
  worker: Worker;
  pending: Map<number, { resolve: (a: ReviewThreadAnswer) => void; reject: (e: Error) => void }>;
  /** The regions posted to it (`scanId/regionKey`). */
  regions: Set<string>;
  stopped: boolean;
}

/** The review threads of one API process (see the file comment). */
export class ReviewThreads {
  private readonly threads: (Thread | undefined)[];
  /** Clusters homed on each thread for `scanId`. */
  private readonly homed: number[];
  /** Cluster id -> thread index, for `scanId`. */
  private readonly home = new Map<string, number>();
  private scanId: string | undefined;
  private nextId = 1;

  /**
   * @param entry the built thread entry (`reviewThreadEntry`)
   * @param count threads (default `reviewThreadCount` of the cores available)
   */
  constructor(
    private readonly entry: string,
    count = reviewThreadCount(availableParallelism()),
  ) {
    this.threads = new Array<Thread | undefined>(Math.max(1, count)).fill(undefined);
    this.homed = new Array<number>(this.threads.length).fill(0);
  }

  /**
   * The model's answer for `manifest` on cluster `clusterId` (in region `accountId/regionId`) of snapshot `s`, its plan
   * as the webhook keeps it (admission-plan.ts: the quotas over their limit only), and the time its thread took to
   * build the cluster's model for it (ms; null when the model was warm).
   * @throws ReviewRefusedError when the what-if step refuses the Service; Error when the thread failed or stopped
   */
  async review(s: StoredSnapshot, clusterId: string, accountId: string, regionId: string, manifest: K8sServiceWire): Promise<{ answer: ReviewAnswer; buildMs: number | null }> {
    const { index, regionKey, answer: pending } = this.send(s, clusterId, accountId, regionId, (id, regionKey) => ({ type: 'review', id, scanId: s.scanId, regionKey, clusterId, manifest, now: Date.parse(s.observedAt) }));
    const answer = await pending;
    if ('answer' in answer) return { answer: answer.answer, buildMs: answer.buildMs };
    if ('refused' in answer) throw new ReviewRefusedError(answer.refused);
    return failed(index, regionKey, answer);
  }

  /**
   * Builds the model of cluster `clusterId` (in region `accountId/regionId`) of snapshot `s` in the thread it is homed
   * on, ahead of its first review (a review sent after it waits for it there, as it would wait for its own build).
   * @returns the build time (ms), null when the model was warm already
   * @throws Error when the thread failed or stopped
   */
  async prebuild(s: StoredSnapshot, clusterId: string, accountId: string, regionId: string): Promise<number | null> {
    const { index, regionKey, answer: pending } = this.send(s, clusterId, accountId, regionId, (id, regionKey) => ({ type: 'build', id, scanId: s.scanId, regionKey, clusterId, now: Date.parse(s.observedAt) }));
    const answer = await pending;
    if ('built' in answer) return answer.built;
    return failed(index, regionKey, answer);
  }

  /**
   * Sends one review or build of a cluster to the thread it is homed on (homing it on first use for the scan, the
   * thread with the fewest clusters), the region snapshot first when that thread has not had it for this scan.
   * The messages are posted before this returns: what is sent next is handled after them.
   */
  private send(
    s: StoredSnapshot,
    clusterId: string,
    accountId: string,
    regionId: string,
    request: (id: number, regionKey: string) => ReviewThreadRequest,
  ): { index: number; regionKey: string; answer: Promise<ReviewThreadAnswer> } {
    if (s.scanId !== this.scanId) {
      this.scanId = s.scanId;
      this.home.clear();
      this.homed.fill(0);
    }
    let index = this.home.get(clusterId);
    if (index === undefined) {
      index = this.homed.indexOf(Math.min(...this.homed));
      this.homed[index]!++;
      this.home.set(clusterId, index);
    }
    const thread = this.thread(index);
    const regionKey = `${accountId}/${regionId}`;
    if (!thread.regions.has(`${s.scanId}/${regionKey}`)) {
      thread.regions.add(`${s.scanId}/${regionKey}`);
      thread.worker.postMessage({ type: 'region', scanId: s.scanId, regionKey, snapshot: regionOf(s.snapshot, accountId, regionId) } satisfies ReviewThreadRequest);
    }
    const id = this.nextId++;
    const answer = new Promise<ReviewThreadAnswer>((resolve, reject) => {
      thread.pending.set(id, { resolve, reject });
      thread.worker.postMessage(request(id, regionKey));
    });
    return { index, regionKey, answer };
  }

  /** The thread a cluster is homed on for the latest scan reviewed, or undefined before its first review. */
  homeOf(clusterId: string): number | undefined {
    return this.home.get(clusterId);
  }

  /** Stops every thread (pending reviews fail). */
  async close(): Promise<void> {
    await Promise.all(this.threads.map((t) => t?.worker.terminate()));
  }

  /** Thread `i`, started (again) when it is not running. */
  private thread(i: number): Thread {
    const existing = this.threads[i];
    if (existing && !existing.stopped) return existing;
    const worker = new Worker(this.entry);
    // Idle threads do not keep the process alive (the API's server does while it listens).
    worker.unref();
    const t: Thread = { worker, pending: new Map(), regions: new Set(), stopped: false };
    const stop = (why: string) => {
      t.stopped = true;
      for (const p of t.pending.values()) p.reject(new Error(`review thread ${i} stopped: ${why}`));
      t.pending.clear();
    };
    worker.on('message', (a: ReviewThreadAnswer) => {
      const p = t.pending.get(a.id);
      t.pending.delete(a.id);
      p?.resolve(a);
    });
    worker.on('error', (e) => stop(e.message));
    worker.on('exit', (code) => stop(`exit code ${code}`));
    this.threads[i] = t;
    return t;
  }
}

/** The error of an answer that is neither the model's nor a refusal: the region was lost, or the thread failed. */
function failed(index: number, regionKey: string, answer: ReviewThreadAnswer): never {
  if ('missing' in answer) throw new Error(`review thread ${index} lost region ${regionKey}`);
  if ('error' in answer) throw new Error(`review thread ${index}: ${answer.error}`);
  throw new Error(`review thread ${index}: an unexpected answer`);
}

/** One account and region of a snapshot as a snapshot of its own (what a thread builds the region's models from). */
function regionOf(snapshot: FleetSnapshot, accountId: string, regionId: string): FleetSnapshot {
  const account = snapshot.accounts.find((a) => a.accountId === accountId)!;
  return {
    name: snapshot.name,
    accounts: [{ ...account, regions: account.regions.filter((r) => r.regionId === regionId) }],
    coverage: snapshot.coverage.filter((c) => c.accountId === accountId && (c.regionId === undefined || c.regionId === regionId)),
  };
}
