/**
 * The bundled sample fleet (`examples/fleets/sample`) scanned live through the simulator equals the
 * offline load of the same directory, coverage included (for the account the simulator's base
 * AccessKey reads; the other account needs STS AssumeRole, a later issue). Data the directory
 * lacks (`quotas.json`) is answered 403 by the simulator and recorded `failed` live where offline
 * says `absent` (see snapshot-compare.util.ts).
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadFleetDirectory, loadScanConfig, readFleetDirectory, scanLive } from '@app/collectors';
import { startSimulator, type RunningSimulator } from '@app/fleet-sim';
import { expectLiveEqualsOffline, onlyAccounts } from './snapshot-compare.util';

const SAMPLE = join(__dirname, '..', '..', 'examples', 'fleets', 'sample');

describe('scanLive on the sample fleet', () => {
  let sim: RunningSimulator;

  beforeAll(async () => {
    sim = await startSimulator({ fleet: readFleetDirectory(SAMPLE) });
  });
  afterAll(async () => {
    await sim?.close();
  });

  it('equals the offline snapshot of the same directory, coverage included', async () => {
    const live = await scanLive(loadScanConfig(sim.configPath));
    expect(live.accounts.map((a) => a.accountId)).toEqual([sim.accountId]);
    const clusters = live.accounts[0].regions.flatMap((r) => r.clusters);
    expect(clusters.length).toBeGreaterThan(0);
    expect(clusters.every((c) => c.kubernetes && c.nodeLocalPortRanges && c.addons)).toBe(true);
    expectLiveEqualsOffline(live, onlyAccounts(loadFleetDirectory(SAMPLE), [sim.accountId]));
  });
});
