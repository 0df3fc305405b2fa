/**
 * Call counters of a running simulator, for tests and the crawl benchmark to check request
 * budgets: calls per (account, action), throttled answers, injected faults, and the busiest
 * one-second window (aligned to whole seconds of the simulator clock) per account and per
 * (account, action).
 */
import type { FaultKind } from './fault-spec.util';

/** What `RunningSimulator.stats()` returns (a copy; later calls do not change it). */
export interface SimStats {
  /**
   * Calls per account id and action. OpenAPI calls by action name (`DescribeInstances`,
   * `DescribeClustersV1`, `AssumeRole`, ...), Kubernetes calls as `k8s:list:<resource>`,
   * `k8s:get:<resource>` or `k8s:discovery` (`<resource>` the plural, e.g. `nodes`,
   * `endpointslices`). Every authenticated call counts, throttled and faulty ones included.
   */
  calls: Record<string, Record<string, number>>;
  /** Calls answered with throttling: over a QPS limit, or the `throttle` fault. */
  throttled: number;
  /** Calls that got an injected fault, by fault kind (`throttle` included). */
  faults: Partial<Record<FaultKind, number>>;
  /** Most OpenAPI calls (every action, Kubernetes excluded) of an account in one second, by account id. */
  maxObservedQps: Record<string, number>;
  /** Most calls of one OpenAPI action of an account in one second, by account id and action. */
  maxObservedQpsByAction: Record<string, Record<string, number>>;
}

interface PeakWindow {
  second: number;
  count: number;
  max: number;
}

function bump(map: Map<string, PeakWindow>, key: string, second: number): void {
  let w = map.get(key);
  if (!w) {
    w = { second, count: 0, max: 0 };
    map.set(key, w);
  }
  if (w.second !== second) {
    w.second = second;
    w.count = 0;
  }
  w.count++;
  if (w.count > w.max) w.max = w.count;
}

/** Mutable counters behind {@link SimStats}. */
export class CallStats {
  private calls = new Map<string, Map<string, number>>();
  private throttled = 0;
  private faults = new Map<FaultKind, number>();
  private accountPeaks = new Map<string, PeakWindow>();
  private actionPeaks = new Map<string, Map<string, PeakWindow>>();

  /**
   * Count one call.
   * @param openApi whether it went to the OpenAPI (counts towards the QPS peaks)
   * @param nowMs simulator clock, epoch milliseconds
   * @returns how many calls with this account and action came before (0-based)
   */
  record(accountId: string, action: string, openApi: boolean, nowMs: number): number {
    let perAccount = this.calls.get(accountId);
    if (!perAccount) {
      perAccount = new Map();
      this.calls.set(accountId, perAccount);
    }
    const before = perAccount.get(action) ?? 0;
    perAccount.set(action, before + 1);
    if (openApi) {
      const second = Math.floor(nowMs / 1000);
      bump(this.accountPeaks, accountId, second);
      let peaks = this.actionPeaks.get(accountId);
      if (!peaks) {
        peaks = new Map();
        this.actionPeaks.set(accountId, peaks);
      }
      bump(peaks, action, second);
    }
    return before;
  }

  /** Count a throttled answer. */
  recordThrottled(): void {
    this.throttled++;
  }

  /** Count an injected fault. */
  recordFault(kind: FaultKind): void {
    this.faults.set(kind, (this.faults.get(kind) ?? 0) + 1);
  }

  /** A copy of the counters. */
  snapshot(): SimStats {
    const nested = <V>(m: Map<string, Map<string, V>>, f: (v: V) => number) =>
      Object.fromEntries(
        [...m].map(([k, inner]) => [k, Object.fromEntries([...inner].map(([a, v]) => [a, f(v)]))]),
      );
    return {
      calls: nested(this.calls, (n) => n),
      throttled: this.throttled,
      faults: Object.fromEntries(this.faults),
      maxObservedQps: Object.fromEntries([...this.accountPeaks].map(([k, w]) => [k, w.max])),
      maxObservedQpsByAction: nested(this.actionPeaks, (w) => w.max),
    };
  }

  /** Zero every counter (fault draws keep their own call numbers; see `TrafficPolicy`). */
  reset(): void {
    this.calls = new Map();
    this.throttled = 0;
    this.faults = new Map();
    this.accountPeaks = new Map();
    this.actionPeaks = new Map();
  }
}
