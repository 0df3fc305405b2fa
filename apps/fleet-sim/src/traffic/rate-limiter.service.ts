/**
 * Per-account, per-API request rate limits of the simulated OpenAPI: fixed one-second windows
 * (aligned to whole seconds of the simulator clock), each (account, action) pair admits at most
 * its limit of calls per window; a call over the limit is refused with the milliseconds left until
 * the next window. Throttled calls do not use up the window.
 *
 * Source: research/alibaba-cloud-api.md section 7 (limits apply per account and per API; each API
 * is counted on its own). The real per-API numbers are not published for the SLB/ECS read APIs,
 * so they are configuration here.
 */

import { FleetAuditError } from '@app/errors';

/** QPS limits: `default` for every action, `perApi` overrides by action name (e.g. `DescribeInstances`). */
export interface QpsLimits {
  /** Calls per second per account and action; a positive integer, or `Infinity` for no limit. */
  default: number;
  /** Per-action limits (same units), by OpenAPI action name (`DescribeLoadBalancers`, `DescribeClustersV1`, ...). */
  perApi?: Readonly<Record<string, number>>;
}

/** An invalid {@link QpsLimits}. */
export class QpsLimitsError extends FleetAuditError {
  override readonly name = 'QpsLimitsError';
  /** Stable code (libs/errors README). */
  readonly code = 'SIM_QPS_LIMITS_INVALID';
  /** The simulator options must change. */
  readonly permanent = true;
}

const validLimit = (n: unknown): n is number =>
  typeof n === 'number' && (n === Number.POSITIVE_INFINITY || (Number.isInteger(n) && n >= 1));

/**
 * Check limits: each a positive integer or `Infinity`.
 * @throws QpsLimitsError naming the bad entry
 */
export function validateQpsLimits(limits: QpsLimits): QpsLimits {
  if (!validLimit(limits.default))
    throw new QpsLimitsError(
      `qps.default must be a positive integer (calls per second), got ${String(limits.default)}`,
    );
  for (const [action, n] of Object.entries(limits.perApi ?? {}))
    if (!validLimit(n))
      throw new QpsLimitsError(
        `qps.perApi.${action} must be a positive integer (calls per second), got ${String(n)}`,
      );
  return limits;
}

interface Window {
  second: number;
  count: number;
}

/** Fixed-window limiter keyed by (account, action). */
export class RateLimiter {
  private readonly windows = new Map<string, Window>();

  /** @throws QpsLimitsError for invalid limits */
  constructor(private readonly limits: QpsLimits) {
    validateQpsLimits(limits);
  }

  /** The limit of an action, calls per second (`Infinity` = none). */
  limitOf(action: string): number {
    return this.limits.perApi?.[action] ?? this.limits.default;
  }

  /**
   * Admit one call.
   * @param nowMs simulator clock, epoch milliseconds
   * @returns `undefined` when admitted, else the milliseconds until the next window (at least 1)
   */
  admit(accountId: string, action: string, nowMs: number): number | undefined {
    const limit = this.limitOf(action);
    if (limit === Number.POSITIVE_INFINITY) return undefined;
    const second = Math.floor(nowMs / 1000);
    const key = `${accountId}\u0000${action}`;
    let w = this.windows.get(key);
    if (!w || w.second !== second) {
      w = { second, count: 0 };
      this.windows.set(key, w);
    }
    if (w.count >= limit) return Math.max(1, (second + 1) * 1000 - nowMs);
    w.count++;
    return undefined;
  }
}
