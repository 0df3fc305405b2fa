/**
 * CCM convergence estimate: the CLB OpenAPI calls CCM makes to apply a change, and how long its workqueue takes
 * to get through them at CCM's concurrency under the account's API rate limits.
 *
 * CCM behaviour (research/ccm-behaviour.md §7; kubernetes/cloud-provider-alibaba-cloud):
 * - `--concurrent-service-syncs` / `serviceMaxConcurrentReconciles` 3 Services reconcile in parallel;
 * - `--max-concurrent-actions` 10 listener / vServer group actions of one Service run in parallel;
 * - backends are added / removed / updated in batches of `--sg-batch-size` 40
 *   (AddVServerGroupBackendServers, RemoveVServerGroupBackendServers, SetVServerGroupAttribute);
 * - CLB calls are not retried in-call on Throttling: the reconcile fails and the Service is requeued with the
 *   workqueue's per-item exponential backoff, 5 s doubling up to 300 s (clbv1/service_controller.go);
 * - seed 004 "Notes on managing large-scale load balancing": delays during batch creation, endpoint changes or
 *   node changes; "perform capacity assessments and stress testing in advance".
 *
 * Per changed Service the reconcile is modelled as: a describe phase in sequence (DescribeLoadBalancers,
 * DescribeLoadBalancerAttribute, DescribeLoadBalancerListeners, DescribeVServerGroups, then
 * DescribeVServerGroupAttribute per existing group), CreateLoadBalancer + AddTags for a new CLB, then the
 * vServer group actions (CreateVServerGroup, then the backend batches, in sequence per group; up to 10 groups
 * in parallel), then the listener actions (CreateLoadBalancerTCPListener + StartLoadBalancerListener per new
 * listener, up to 10 in parallel). Each call takes `callLatencyMs` (an assumption: CLB OpenAPI calls take
 * 100-300 ms; a setting).
 *
 * NLB Services (CCM's NLB controller, research/nlb.md 3.3, 4, 5, 7) run the same workqueue with the
 * NLB 2022-04-30 calls, named `nlb:<Action>` so they never share a budget with the CLB action of the same name: a
 * prelude of nlb:ListLoadBalancers (FindNLB by tag), nlb:CreateLoadBalancer + nlb:GetJobStatus for a new NLB (every
 * mutating NLB call is asynchronous), nlb:GetLoadBalancerAttribute, nlb:ListListeners, nlb:ListServerGroups and
 * nlb:ListServerGroupServers per existing group; per server group nlb:CreateServerGroup, then per batch of
 * `batchSize` servers nlb:AddServersToServerGroup / nlb:RemoveServersFromServerGroup /
 * nlb:UpdateServerGroupServersAttribute each followed by nlb:GetJobStatus (CCM waits on every server job); per new
 * listener nlb:CreateListener, and one nlb:ListAsynJobs per 20 listener jobs (`BatchWaitJobsFinish`). The NLB API
 * limits are per API and region (research/nlb.md 5, DOC "api nlb 2022-04-30 quota"): 20 calls/s for the reads and
 * GetJobStatus, 200 per 60 s for the write APIs (`NLB_API_QPS`), used unless `qps.perApi` names the action.
 * A CLB Service moved to NLB also deletes on the CLB side (research/ccm-behaviour.md §1.7): DescribeLoadBalancers,
 * DescribeLoadBalancerAttribute, SetLoadBalancerDeleteProtection (protection off) and DeleteLoadBalancer for a CLB
 * CCM created; on a reused CLB DescribeLoadBalancerListeners / DescribeVServerGroups, then one
 * DeleteLoadBalancerListener per listener and one DeleteVServerGroup per vServer group of the Service.
 *
 * The estimate is closed-form; `replayConvergence` runs the same calls as a discrete-event simulation against a
 * rate limiter (the simulator's fixed one-second windows) with virtual time, so 5,000 Services replay in
 * milliseconds; tests compare the two.
 */
import { CCM_BACKEND_BATCH_SIZE } from '@app/domain';

/** The CCM work of one changed Service (counts). */
export interface ServiceChange {
  /** `namespace/name` of the Service. */
  service: string;
  /**
   * The Service's cluster id, set by the what-if runner: with `service` it names one Service across the scenario,
   * so a Service changed twice (a move to NLB releases its CLB and builds its NLB) counts once.
   */
  cluster?: string;
  /** The LB product CCM calls for this change: `clb` (default when absent) or `nlb` (NLB 2022-04-30 API). */
  product?: 'clb' | 'nlb';
  /** CCM deletes the LB (a CLB it created, when its Service moves to NLB). */
  deletesLoadBalancer?: boolean;
  /** Listeners deleted (with the LB, or the Service's listeners on a reused CLB). */
  listenersDeleted?: number;
  /** vServer groups deleted (with the LB, or the Service's groups on a reused CLB). */
  groupsDeleted?: number;
  /** CCM creates the CLB (new Service without reuse). */
  createsLoadBalancer: boolean;
  /** vServer groups created. */
  groupsCreated: number;
  /** vServer groups whose backends changed. */
  groupsUpdated: number;
  /** Listeners created. */
  listenersCreated: number;
  /** Backends added / removed / re-weighted, per changed group. */
  backendsAdded: number[];
  backendsRemoved: number[];
  backendsUpdated: number[];
}

/** CCM and account settings of the estimate. */
export interface ConvergenceSettings {
  /** Services reconciled in parallel (CCM default 3). */
  concurrentServiceSyncs: number;
  /** Listener / vServer group actions of one Service in parallel (CCM default 10). */
  maxConcurrentActions: number;
  /** Backends per batch call (CCM `--sg-batch-size`, default 40). */
  batchSize: number;
  /** Latency of one OpenAPI call (ms, default 200: an assumption, see the file comment). */
  callLatencyMs: number;
  /**
   * Account API rate limits, calls per second: `default` for every API, `perApi` by action name; the same
   * shape as the simulator's `QpsLimits` and the crawler's budgets (`qpsPerAccount`, `qpsPerApi`).
   */
  qps: { default: number; perApi?: Record<string, number> };
  /** Workqueue requeue backoff: first delay and cap (seconds; CCM 5 and 300). */
  requeueBaseSeconds: number;
  requeueMaxSeconds: number;
}

/** Defaults: CCM's flags (research/ccm-behaviour.md §7) and 20 calls/s per API (the crawler's default budget). */
export const DEFAULT_CONVERGENCE_SETTINGS: Readonly<ConvergenceSettings> = {
  concurrentServiceSyncs: 3,
  maxConcurrentActions: 10,
  batchSize: CCM_BACKEND_BATCH_SIZE,
  callLatencyMs: 200,
  qps: { default: 20 },
  requeueBaseSeconds: 5,
  requeueMaxSeconds: 300,
};

/** One Service's reconcile as call sequences. */
interface ServicePlan {
  /** Calls in sequence before the actions. */
  prelude: string[];
  /** vServer group actions: each a sequence of calls; up to `maxConcurrentActions` run in parallel. */
  groupActions: string[][];
  /** Listener actions, after the group actions. */
  listenerActions: string[][];
}

/** The convergence estimate of a change (JSON contract: the `convergence` of `forecast whatif`). */
export interface ConvergenceEstimate {
  /**
   * Distinct Services CCM reconciles (count, by cluster and `namespace/name`): a Service with several changes (a
   * move to NLB: its CLB released and its NLB built; two steps of a scenario) is one Service.
   */
  services: number;
  /** OpenAPI calls per action name (counts), sorted by name. */
  callsPerApi: Record<string, number>;
  /** Total calls (count). */
  calls: number;
  /** Wall time until the last Service converges (seconds): p50 and p95. */
  wallSeconds: { p50: number; p95: number };
  /** Which bound dominates: CCM's concurrency or the API rate limits. */
  boundBy: 'concurrency' | 'rate-limits';
}

/** NLB write APIs: 200 calls per 60 s per API and region (research/nlb.md 5, DOC "api nlb 2022-04-30 quota"). */
const NLB_WRITE_QPS = 200 / 60;

/**
 * NLB 2022-04-30 rate limits per API and region, calls per second (research/nlb.md 5: 20/s for the reads and
 * GetJobStatus, 200 per 60 s for most write APIs; ListLoadBalancers and ListAsynJobs are not documented there and
 * are taken at 20/s like the other reads, research/nlb.md 7 "Budget ~20 QPS per API per region").
 */
export const NLB_API_QPS: Readonly<Record<string, number>> = {
  'nlb:ListLoadBalancers': 20,
  'nlb:GetLoadBalancerAttribute': 20,
  'nlb:ListListeners': 20,
  'nlb:ListServerGroups': 20,
  'nlb:ListServerGroupServers': 20,
  'nlb:GetJobStatus': 20,
  'nlb:ListAsynJobs': 20,
  'nlb:CreateLoadBalancer': NLB_WRITE_QPS,
  'nlb:CreateServerGroup': NLB_WRITE_QPS,
  'nlb:AddServersToServerGroup': NLB_WRITE_QPS,
  'nlb:RemoveServersFromServerGroup': NLB_WRITE_QPS,
  'nlb:UpdateServerGroupServersAttribute': NLB_WRITE_QPS,
  'nlb:CreateListener': NLB_WRITE_QPS,
};

/** Listener jobs CCM waits on with one ListAsynJobs call (`BatchWaitJobsFinish`, research/nlb.md 4). */
const NLB_JOBS_PER_WAIT = 20;

function batches(n: number, size: number): number {
  return n > 0 ? Math.ceil(n / size) : 0;
}

function nlbPlanOf(c: ServiceChange, s: ConvergenceSettings): ServicePlan {
  const prelude = ['nlb:ListLoadBalancers'];
  if (c.createsLoadBalancer) prelude.push('nlb:CreateLoadBalancer', 'nlb:GetJobStatus');
  prelude.push('nlb:GetLoadBalancerAttribute', 'nlb:ListListeners', 'nlb:ListServerGroups');
  for (let i = 0; i < c.groupsUpdated; i++) prelude.push('nlb:ListServerGroupServers');
  const groupActions: string[][] = [];
  for (let g = 0; g < c.backendsAdded.length; g++) {
    const seq: string[] = [];
    if (g < c.groupsCreated) seq.push('nlb:CreateServerGroup');
    for (let i = 0; i < batches(c.backendsAdded[g] ?? 0, s.batchSize); i++) seq.push('nlb:AddServersToServerGroup', 'nlb:GetJobStatus');
    for (let i = 0; i < batches(c.backendsRemoved[g] ?? 0, s.batchSize); i++) seq.push('nlb:RemoveServersFromServerGroup', 'nlb:GetJobStatus');
    for (let i = 0; i < batches(c.backendsUpdated[g] ?? 0, s.batchSize); i++) seq.push('nlb:UpdateServerGroupServersAttribute', 'nlb:GetJobStatus');
    if (seq.length > 0) groupActions.push(seq);
  }
  const listenerActions: string[][] = [];
  for (let i = 0; i < c.listenersCreated; i++) listenerActions.push(['nlb:CreateListener']);
  for (let i = 0; i < batches(c.listenersCreated, NLB_JOBS_PER_WAIT); i++) listenerActions.push(['nlb:ListAsynJobs']);
  return { prelude, groupActions, listenerActions };
}

/** CCM's calls to delete a Service's CLB side (a CLB Service moved to NLB; see the file comment). */
function clbReleasePlanOf(c: ServiceChange): ServicePlan {
  if (c.deletesLoadBalancer)
    return { prelude: ['DescribeLoadBalancers', 'DescribeLoadBalancerAttribute', 'SetLoadBalancerDeleteProtection', 'DeleteLoadBalancer'], groupActions: [], listenerActions: [] };
  const prelude = ['DescribeLoadBalancers', 'DescribeLoadBalancerAttribute', 'DescribeLoadBalancerListeners', 'DescribeVServerGroups'];
  const listenerActions: string[][] = [];
  for (let i = 0; i < (c.listenersDeleted ?? 0); i++) listenerActions.push(['DeleteLoadBalancerListener']);
  const groupActions: string[][] = [];
  for (let i = 0; i < (c.groupsDeleted ?? 0); i++) groupActions.push(['DeleteVServerGroup']);
  // Listeners go before the vServer groups they forward to.
  return { prelude, groupActions: listenerActions, listenerActions: groupActions };
}

function planOf(c: ServiceChange, s: ConvergenceSettings): ServicePlan {
  if (c.product === 'nlb') return nlbPlanOf(c, s);
  if (c.deletesLoadBalancer || c.groupsDeleted || c.listenersDeleted) return clbReleasePlanOf(c);
  const prelude = ['DescribeLoadBalancers'];
  if (c.createsLoadBalancer) prelude.push('CreateLoadBalancer', 'AddTags');
  prelude.push('DescribeLoadBalancerAttribute', 'DescribeLoadBalancerListeners', 'DescribeVServerGroups');
  const existing = c.groupsUpdated;
  for (let i = 0; i < existing; i++) prelude.push('DescribeVServerGroupAttribute');
  const groupActions: string[][] = [];
  const groups = c.backendsAdded.length;
  for (let g = 0; g < groups; g++) {
    const seq: string[] = [];
    if (g < c.groupsCreated) seq.push('CreateVServerGroup');
    for (let i = 0; i < batches(c.backendsAdded[g] ?? 0, s.batchSize); i++) seq.push('AddVServerGroupBackendServers');
    for (let i = 0; i < batches(c.backendsRemoved[g] ?? 0, s.batchSize); i++) seq.push('RemoveVServerGroupBackendServers');
    for (let i = 0; i < batches(c.backendsUpdated[g] ?? 0, s.batchSize); i++) seq.push('SetVServerGroupAttribute');
    if (seq.length > 0) groupActions.push(seq);
  }
  const listenerActions: string[][] = [];
  for (let i = 0; i < c.listenersCreated; i++) listenerActions.push(['CreateLoadBalancerTCPListener', 'StartLoadBalancerListener']);
  return { prelude, groupActions, listenerActions };
}

/** Makespan (in calls) of sequences on `slots` parallel slots, taken in order (list scheduling). */
function wavesOf(actions: readonly string[][], slots: number): number {
  if (actions.length === 0) return 0;
  const free = new Array<number>(Math.min(slots, actions.length)).fill(0);
  for (const a of actions) {
    let i = 0;
    for (let j = 1; j < free.length; j++) if (free[j]! < free[i]!) i = j;
    free[i]! += a.length;
  }
  return Math.max(...free);
}

function qpsOf(s: ConvergenceSettings, api: string): number {
  return s.qps.perApi?.[api] ?? NLB_API_QPS[api] ?? s.qps.default;
}

/**
 * Estimates calls per API and wall time for a set of changed Services (the `services` of `AppliedChange`).
 * The concurrency bound is the list-scheduled makespan of the Services' unthrottled reconcile times on
 * `concurrentServiceSyncs` workers; the rate bound is the largest calls / qps over the APIs (seconds). When
 * the concurrency bound dominates nothing is throttled and p50 = p95 = that makespan. When the rate bound
 * dominates, p50 = 1.05 x rate bound + 2 requeue base delays and p95 = 1.1 x rate bound + 4 base delays: the
 * factors are the share of calls redone after a throttled reconcile (requeued Services re-read their CLB),
 * 5 % typical and 10 % at worst in `replayConvergence` runs of 50 to 5,000 Services (libs/forecast README).
 */
export function estimateConvergence(changes: readonly ServiceChange[], settings: Partial<ConvergenceSettings> = {}): ConvergenceEstimate {
  const s = { ...DEFAULT_CONVERGENCE_SETTINGS, ...settings };
  const calls = new Map<string, number>();
  const workers = new Array<number>(Math.max(1, s.concurrentServiceSyncs)).fill(0);
  const L = s.callLatencyMs / 1000;
  for (const c of changes) {
    const p = planOf(c, s);
    for (const api of [...p.prelude, ...p.groupActions.flat(), ...p.listenerActions.flat()]) calls.set(api, (calls.get(api) ?? 0) + 1);
    const t = L * (p.prelude.length + wavesOf(p.groupActions, s.maxConcurrentActions) + wavesOf(p.listenerActions, s.maxConcurrentActions));
    let i = 0;
    for (let j = 1; j < workers.length; j++) if (workers[j]! < workers[i]!) i = j;
    workers[i]! += t;
  }
  const concurrency = Math.max(0, ...workers);
  let rate = 0;
  for (const [api, n] of calls) rate = Math.max(rate, n / qpsOf(s, api));
  const rateBound = rate > concurrency;
  // Rate-bound: throttled reconciles are requeued and redo their describe calls (about 5 % more calls at the
  // bottleneck in the replay, 10 % at worst), and the last Services wait out one or two backoff steps.
  const p50 = rateBound ? rate * 1.05 + Math.min(s.requeueMaxSeconds, 2 * s.requeueBaseSeconds) : concurrency;
  const p95 = rateBound ? rate * 1.1 + Math.min(s.requeueMaxSeconds, 4 * s.requeueBaseSeconds) : concurrency;
  const sorted = [...calls.entries()].sort(([a], [b]) => (a < b ? -1 : 1));
  return {
    services: new Set(changes.map((c) => `${c.cluster ?? ''}\u0000${c.service}`)).size,
    callsPerApi: Object.fromEntries(sorted),
    calls: sorted.reduce((n, [, v]) => n + v, 0),
    wallSeconds: { p50: round(p50), p95: round(p95) },
    boundBy: rateBound ? 'rate-limits' : 'concurrency',
  };
}

function round(x: number): number {
  return Math.round(x * 1000) / 1000;
}

/** Prelude calls done once: a retried reconcile does not create or delete the LB again. */
const ONCE: ReadonlySet<string> = new Set(['CreateLoadBalancer', 'AddTags', 'nlb:CreateLoadBalancer', 'SetLoadBalancerDeleteProtection', 'DeleteLoadBalancer']);

/** Admits one call at a (virtual) time: `undefined` = admitted, else throttled (the simulator's `RateLimiter.admit`). */
export type AdmitFn = (accountId: string, action: string, nowMs: number) => number | undefined;

/** Result of a replay: when the last Service converged (virtual seconds), calls made and throttled. */
export interface ReplayResult {
  wallSeconds: number;
  calls: number;
  throttled: number;
  requeues: number;
}

/**
 * Replays the changes as CCM would run them, as a discrete-event simulation on virtual time: a FIFO workqueue,
 * `concurrentServiceSyncs` workers, per Service the prelude in sequence then the actions `maxConcurrentActions`
 * at a time; every call asks `admit` at its start time and ends `callLatencyMs` later; a throttled call fails
 * its action, the reconcile ends with an error when its running calls end, and the Service is requeued after
 * 5 s x 2^(failures - 1) (cap 300 s); work already done stays done (CCM re-reads and only does what is left).
 */
export function replayConvergence(
  changes: readonly ServiceChange[],
  admit: AdmitFn,
  settings: Partial<ConvergenceSettings> = {},
  accountId = 'replay',
): ReplayResult {
  const s = { ...DEFAULT_CONVERGENCE_SETTINGS, ...settings };
  const L = s.callLatencyMs;
  interface Item {
    plan: ServicePlan;
    failures: number;
    readyAt: number;
    /** Remaining calls per action (prelude is repeated each attempt). */
    group: string[][];
    listener: string[][];
  }
  const items: Item[] = changes.map((c) => {
    const plan = planOf(c, s);
    return { plan, failures: 0, readyAt: 0, group: plan.groupActions.map((a) => [...a]), listener: plan.listenerActions.map((a) => [...a]) };
  });
  let calls = 0;
  let throttled = 0;
  let requeues = 0;
  const call = (api: string, t: number): boolean => {
    calls++;
    if (admit(accountId, api, t) === undefined) return true;
    throttled++;
    return false;
  };
  /** Runs one action list (each a call sequence) with `slots` parallel; returns end time and whether all succeeded. */
  const runActions = (actions: string[][], start: number): { end: number; ok: boolean } => {
    if (actions.length === 0) return { end: start, ok: true };
    // Event-driven over the parallel slots: always advance the slot that is free earliest.
    const slotFree = new Array<number>(Math.min(s.maxConcurrentActions, actions.length)).fill(start);
    let ok = true;
    for (const seq of actions) {
      let i = 0;
      for (let j = 1; j < slotFree.length; j++) if (slotFree[j]! < slotFree[i]!) i = j;
      let t = slotFree[i]!;
      while (seq.length > 0) {
        const admitted = call(seq[0]!, t);
        t += L;
        if (!admitted) {
          ok = false;
          break;
        }
        seq.shift();
      }
      slotFree[i] = t;
    }
    return { end: Math.max(...slotFree), ok };
  };
  // Workers pick the earliest-ready item (FIFO by ready time, then queue order).
  const queue = items.map((_, i) => i);
  const workerFree = new Array<number>(Math.max(1, s.concurrentServiceSyncs)).fill(0);
  let last = 0;
  while (queue.length > 0) {
    let w = 0;
    for (let j = 1; j < workerFree.length; j++) if (workerFree[j]! < workerFree[w]!) w = j;
    // The next item: the first in queue order that is ready by the time this worker is free, else the earliest-ready.
    let qi = queue.findIndex((i) => items[i]!.readyAt <= workerFree[w]!);
    if (qi < 0) {
      qi = 0;
      for (let j = 1; j < queue.length; j++) if (items[queue[j]!]!.readyAt < items[queue[qi]!]!.readyAt) qi = j;
    }
    const idx = queue.splice(qi, 1)[0]!;
    const it = items[idx]!;
    let t = Math.max(workerFree[w]!, it.readyAt);
    let ok = true;
    for (const api of it.plan.prelude) {
      const admitted = call(api, t);
      t += L;
      if (!admitted) {
        ok = false;
        break;
      }
    }
    if (ok) it.plan.prelude = it.plan.prelude.filter((api) => !ONCE.has(api));
    if (ok) {
      const g = runActions(it.group, t);
      t = g.end;
      ok = g.ok;
      it.group = it.group.filter((a) => a.length > 0);
    }
    if (ok) {
      const l = runActions(it.listener, t);
      t = l.end;
      ok = l.ok;
      it.listener = it.listener.filter((a) => a.length > 0);
    }
    workerFree[w] = t;
    if (ok) {
      last = Math.max(last, t);
      continue;
    }
    it.failures++;
    requeues++;
    it.readyAt = t + Math.min(s.requeueMaxSeconds * 1000, s.requeueBaseSeconds * 1000 * 2 ** (it.failures - 1));
    // Requeued items go to the back of the queue.
    queue.push(idx);
  }
  return { wallSeconds: last / 1000, calls, throttled, requeues };
}
