/**
 * Command-line flags of the simulator shared by `fleet-sim` (main.ts) and `fleet-audit sim`:
 * `--qps N`, `--qps-api ACTION=N` (repeatable), `--faults SPEC`, `--seed N`,
 * `--throttling-status 400|429`, `--timeout-hold-ms MS`, turned into {@link SimulatorOptions}.
 */
import type { ThrottlingStatus } from './alibaba/alibaba.gateway';
import { SimulatorOptionsError, type SimulatorOptions } from './sim.server';
import { parseFaultSpec } from './traffic/fault-spec.util';
import { validateQpsLimits } from './traffic/rate-limiter.service';

/** The traffic flags as strings, as a command-line parser hands them over (absent = not given). */
export interface SimulatorTrafficFlags {
  /** `--qps N`: calls per second per account and OpenAPI action (a positive integer). */
  qps?: string;
  /** `--qps-api ACTION=N`, repeatable: per-action limits (need `--qps` or apply with no default limit). */
  qpsApi?: readonly string[];
  /** `--faults SPEC`, e.g. `throttle=0.3,server-error=0.05`. */
  faults?: string;
  /** `--seed N`: seed of the fault draws (an integer, default 0). */
  seed?: string;
  /** `--throttling-status 400|429`. */
  throttlingStatus?: string;
  /** `--timeout-hold-ms MS`: how long the `timeout` fault holds a connection. */
  timeoutHoldMs?: string;
}

function integer(flag: string, text: string, min: number): number {
  if (!/^-?\d+$/.test(text.trim()) || Number(text) < min || !Number.isSafeInteger(Number(text)))
    throw new SimulatorOptionsError(
      `${flag} needs an integer${min > Number.MIN_SAFE_INTEGER ? ` >= ${min}` : ''}, got "${text}"`,
    );
  return Number(text);
}

/**
 * Turn the traffic flags into simulator options (only the given ones are set).
 * @throws SimulatorOptionsError for a malformed number or `--qps-api` entry, FaultSpecError for a
 *   bad `--faults`, QpsLimitsError for a bad limit
 */
export function simulatorOptionsFromFlags(
  flags: SimulatorTrafficFlags,
): Pick<SimulatorOptions, 'qps' | 'faults' | 'seed' | 'throttlingStatus' | 'timeoutHoldMs'> {
  const out: Pick<SimulatorOptions, 'qps' | 'faults' | 'seed' | 'throttlingStatus' | 'timeoutHoldMs'> = {};
  const perApi: Record<string, number> = {};
  for (const entry of flags.qpsApi ?? []) {
    const eq = entry.indexOf('=');
    if (eq <= 0) throw new SimulatorOptionsError(`--qps-api needs ACTION=N, got "${entry}"`);
    perApi[entry.slice(0, eq).trim()] = integer(`--qps-api ${entry.slice(0, eq)}`, entry.slice(eq + 1), 1);
  }
  if (flags.qps !== undefined || Object.keys(perApi).length > 0)
    out.qps = validateQpsLimits({
      default: flags.qps !== undefined ? integer('--qps', flags.qps, 1) : Number.POSITIVE_INFINITY,
      ...(Object.keys(perApi).length > 0 ? { perApi } : {}),
    });
  if (flags.faults !== undefined) {
    parseFaultSpec(flags.faults);
    out.faults = flags.faults;
  }
  if (flags.seed !== undefined) out.seed = integer('--seed', flags.seed, Number.MIN_SAFE_INTEGER);
  if (flags.throttlingStatus !== undefined) {
    const status = integer('--throttling-status', flags.throttlingStatus, 0);
    if (status !== 400 && status !== 429)
      throw new SimulatorOptionsError(
        `--throttling-status must be 400 or 429, got "${flags.throttlingStatus}"`,
      );
    out.throttlingStatus = status as ThrottlingStatus;
  }
  if (flags.timeoutHoldMs !== undefined)
    out.timeoutHoldMs = integer('--timeout-hold-ms', flags.timeoutHoldMs, 0);
  return out;
}
