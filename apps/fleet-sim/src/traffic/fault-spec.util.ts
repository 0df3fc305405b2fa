/**
 * Fault specs of the simulator: `throttle=0.3,server-error=0.05,timeout=0.01,truncate=0.01,
 * slow=0.05,non-json=0.01,expire-continue=0.05`, each value the probability (0..1) that one call
 * gets that fault. What each fault does is described in `fault-injector.service.ts`.
 */

import { FleetAuditError } from '@app/errors';

/** The fault kinds, in the order their probability ranges are laid out (see `FaultInjector`). */
export const FAULT_KINDS = [
  'throttle',
  'server-error',
  'timeout',
  'truncate',
  'slow',
  'non-json',
  'expire-continue',
] as const;

/** One fault kind. */
export type FaultKind = (typeof FAULT_KINDS)[number];

/** Probability per call of each fault, 0..1 (absent = 0). Their sum is at most 1. */
export type FaultRates = Partial<Record<FaultKind, number>>;

/** An invalid fault spec (unknown key, bad number, probabilities over 1). */
export class FaultSpecError extends FleetAuditError {
  override readonly name = 'FaultSpecError';
  /** Stable code (libs/errors README). */
  readonly code = 'SIM_FAULT_SPEC_INVALID';
  /** The fault spec must change. */
  readonly permanent = true;
}

const isFaultKind = (k: string): k is FaultKind => (FAULT_KINDS as readonly string[]).includes(k);

/**
 * Check a rates object: known keys only, each a finite number in [0, 1], sum at most 1.
 * @returns the same rates, without zero entries
 * @throws FaultSpecError naming the offending key
 */
export function validateFaultRates(rates: Readonly<Record<string, unknown>>): FaultRates {
  const out: FaultRates = {};
  let sum = 0;
  for (const [key, value] of Object.entries(rates)) {
    if (!isFaultKind(key))
      throw new FaultSpecError(`unknown fault "${key}"; known faults: ${FAULT_KINDS.join(', ')}`);
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > 1)
      throw new FaultSpecError(`fault "${key}" needs a probability between 0 and 1, got ${String(value)}`);
    if (value > 0) out[key] = value;
    sum += value;
  }
  if (sum > 1 + 1e-9)
    throw new FaultSpecError(`fault probabilities add up to ${Number(sum.toFixed(6))}, more than 1`);
  return out;
}

/**
 * Parse `key=probability` pairs separated by commas (spaces allowed; an empty spec = no faults).
 * @throws FaultSpecError for an unknown key, a repeated key, a missing `=`, a value that is not a
 *   number in [0, 1], or probabilities adding up to more than 1
 */
export function parseFaultSpec(spec: string): FaultRates {
  const rates: Record<string, number> = {};
  for (const raw of spec.split(',')) {
    const part = raw.trim();
    if (part === '') continue;
    const eq = part.indexOf('=');
    if (eq <= 0) throw new FaultSpecError(`"${part}" is not key=probability`);
    const key = part.slice(0, eq).trim();
    const text = part.slice(eq + 1).trim();
    if (!isFaultKind(key))
      throw new FaultSpecError(`unknown fault "${key}"; known faults: ${FAULT_KINDS.join(', ')}`);
    if (key in rates) throw new FaultSpecError(`fault "${key}" is given twice`);
    if (!/^(\d+(\.\d*)?|\.\d+)$/.test(text))
      throw new FaultSpecError(`fault "${key}" needs a probability between 0 and 1, got "${text}"`);
    rates[key] = Number(text);
  }
  return validateFaultRates(rates);
}
