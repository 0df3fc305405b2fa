/**
 * Deterministic fault injection. Whether a call gets a fault, and which, is a pure function of
 * (seed, account, call key, call number): the call key is the API action (OpenAPI) or the request
 * path (Kubernetes), the call number counts calls with that account and key from 0. The same
 * sequence of calls against the same fleet and seed therefore meets the same faults, whatever the
 * timing. The unit interval is split into consecutive ranges, one per fault kind in
 * {@link FAULT_KINDS} order with the kind's probability as width; a hash of the inputs picks a point.
 *
 * Faults (research/alibaba-cloud-api.md sections 1.5 and 7; Kubernetes apimachinery statuses):
 * - `throttle`: OpenAPI `Throttling.User` "Request was denied due to user flow control." (HTTP 400,
 *   or 429 with `throttlingStatus: 429`) with `x-acs-retry-after` in milliseconds; Kubernetes 429
 *   `TooManyRequests` with `Retry-After` in seconds;
 * - `server-error`: 503 `ServiceUnavailable` (OpenAPI JSON error body; Kubernetes `Status`);
 * - `timeout`: the request is never answered; the connection is held, then dropped (`timeoutHoldMs`);
 * - `truncate`: the answer's headers and the first half of its body, then the connection is closed;
 * - `slow`: the answer comes after a delay (`slowDelayMs`, 200-1000 ms by default);
 * - `non-json`: 502 with an HTML body (what a gateway in front of the API sends);
 * - `expire-continue`: Kubernetes lists that carry a `continue` token only: 410 `Expired`.
 */
import { FAULT_KINDS, type FaultKind, type FaultRates } from './fault-spec.util';

/** 32-bit FNV-1a of a string, finished with the MurmurHash3 mixer; uniform enough to draw faults. */
export function hash32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** A point in [0, 1) drawn from `text`. */
export const unitHash = (text: string): number => hash32(text) / 2 ** 32;

/** Picks faults for calls. */
export class FaultInjector {
  /**
   * @param rates validated probabilities (`validateFaultRates` / `parseFaultSpec`)
   * @param seed any integer; another seed gives other faults
   * @param slowDelayMs delay range of the `slow` fault, milliseconds (inclusive)
   */
  constructor(
    private readonly rates: FaultRates,
    private readonly seed: number,
    private readonly slowDelayMs: { min: number; max: number },
  ) {}

  /** Whether any fault has a non-zero probability. */
  get enabled(): boolean {
    return Object.keys(this.rates).length > 0;
  }

  /**
   * The fault of one call, or `undefined`.
   * @param accountId the account the call reads
   * @param key the OpenAPI action or the Kubernetes request path
   * @param callNumber how many calls with this account and key came before (0-based)
   * @param continueList whether this is a Kubernetes list with a `continue` token (only those
   *   can get `expire-continue`)
   */
  decide(accountId: string, key: string, callNumber: number, continueList: boolean): FaultKind | undefined {
    const u = unitHash(`${this.seed}|${accountId}|${key}|${callNumber}`);
    let start = 0;
    for (const kind of FAULT_KINDS) {
      const p = this.rates[kind] ?? 0;
      if (u < start + p) return kind !== 'expire-continue' || continueList ? kind : undefined;
      start += p;
    }
    return undefined;
  }

  /** The delay of a `slow` call, milliseconds, drawn from the same inputs as {@link decide}. */
  slowDelay(accountId: string, key: string, callNumber: number): number {
    const { min, max } = this.slowDelayMs;
    const u = unitHash(`${this.seed}|${accountId}|${key}|${callNumber}|slow`);
    return min + Math.floor(u * (max - min + 1));
  }
}
