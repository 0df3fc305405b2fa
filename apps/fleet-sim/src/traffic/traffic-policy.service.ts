/**
 * What happens to each authenticated call before its handler runs: it is counted
 * ({@link CallStats}), checked against the QPS limits ({@link RateLimiter}, OpenAPI only), then
 * maybe given an injected fault ({@link FaultInjector}). The gateways turn the verdict into the
 * product's answer.
 */
import type { CallStats } from './call-stats.service';
import type { FaultInjector } from './fault-injector.service';
import type { FaultKind } from './fault-spec.util';
import type { RateLimiter } from './rate-limiter.service';

/** Retry hint sent with an injected `throttle` fault, milliseconds. */
export const FAULT_RETRY_AFTER_MS = 1000;

/** The verdict on one call. */
export type TrafficVerdict =
  | { kind: 'pass' }
  /** Refuse with throttling; retry after this many milliseconds. */
  | { kind: 'throttle'; retryAfterMs: number }
  /** An injected fault other than `throttle`; `delayMs` for `slow`. */
  | { kind: 'fault'; fault: Exclude<FaultKind, 'throttle'>; delayMs: number };

const PASS: TrafficVerdict = { kind: 'pass' };

/** Counts, limits and faults calls. */
export class TrafficPolicy {
  private readonly faultCalls = new Map<string, number>();

  /**
   * @param stats counters
   * @param now simulator clock
   * @param limiter OpenAPI QPS limits (`undefined` = none)
   * @param faults fault injection (`undefined` = none)
   */
  constructor(
    private readonly stats: CallStats,
    private readonly now: () => Date,
    private readonly limiter: RateLimiter | undefined,
    private readonly faults: FaultInjector | undefined,
  ) {}

  /**
   * An OpenAPI call (any product, STS included), after its signature was verified.
   * @param accountId the account the caller's key reads
   * @param action the API action (`DescribeInstances`, CS `DescribeClustersV1`, ...)
   */
  admitOpenApi(accountId: string, action: string): TrafficVerdict {
    const nowMs = this.now().getTime();
    this.stats.record(accountId, action, true, nowMs);
    const wait = this.limiter?.admit(accountId, action, nowMs);
    if (wait !== undefined) {
      this.stats.recordThrottled();
      return { kind: 'throttle', retryAfterMs: wait };
    }
    return this.fault(accountId, action, false);
  }

  /**
   * A Kubernetes API call, after its bearer token was accepted (no QPS limit applies).
   * @param accountId the account owning the cluster
   * @param action the counted name (`k8s:list:nodes`, ...)
   * @param path the request path (`/k8s/<clusterId>/api/v1/nodes`), the fault draw's key
   * @param continueList whether it is a list carrying a `continue` token
   */
  admitKubernetes(accountId: string, action: string, path: string, continueList: boolean): TrafficVerdict {
    this.stats.record(accountId, action, false, this.now().getTime());
    return this.fault(accountId, path, continueList);
  }

  private fault(accountId: string, key: string, continueList: boolean): TrafficVerdict {
    const faults = this.faults;
    if (!faults?.enabled) return PASS;
    const counterKey = `${accountId}\u0000${key}`;
    const n = this.faultCalls.get(counterKey) ?? 0;
    this.faultCalls.set(counterKey, n + 1);
    const fault = faults.decide(accountId, key, n, continueList);
    if (fault === undefined) return PASS;
    this.stats.recordFault(fault);
    if (fault === 'throttle') {
      this.stats.recordThrottled();
      return { kind: 'throttle', retryAfterMs: FAULT_RETRY_AFTER_MS };
    }
    return { kind: 'fault', fault, delayMs: fault === 'slow' ? faults.slowDelay(accountId, key, n) : 0 };
  }
}
