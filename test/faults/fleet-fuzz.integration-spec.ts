/**
 * Fuzzed fleets (part of the fault suite): random mutations of the sample fleet (fast-check, seeded;
 * FUZZ_SEED / FUZZ_RUNS override) end as ok, findings or one invalid-input line naming the file;
 * never a crash. On failure the message carries the seed and the counterexample path to replay.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fuzzFleets } from '../../bench/chaos/fleet-fuzz';

const SAMPLE = join(__dirname, '../../examples/fleets/sample');

describe('fuzzed fleets', () => {
  it('never crash: every case ends ok, with findings, or with one line naming the file', async () => {
    const seed = Number(process.env.FUZZ_SEED ?? 1414);
    const runs = Number(process.env.FUZZ_RUNS ?? 12);
    const summary = await fuzzFleets(SAMPLE, runs, seed);
    expect(summary.failure, `fuzz failed with seed ${seed}: ${JSON.stringify(summary.failure)}`).toBeUndefined();
    expect(summary.cases).toBe(runs);
    expect(summary.endings.crash).toBe(0);
  }, 300_000);
});
