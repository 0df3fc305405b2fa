/**
 * The bundled sample fleet (`examples/fleets/sample`) scanned live through the simulator equals the
 * offline load of the same directory, coverage included: both accounts, each read through STS
 * AssumeRole of its `auditRoleArn` (the simulator's config lists every account with its role).
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadFleetDirectory, loadScanConfig, readFleetDirectory, scanLive } from '@app/collectors';
import { startSimulator, type RunningSimulator } from '@app/fleet-sim';
import { testConfig } from './scan-config.util';
import { expectLiveEqualsOffline } from './snapshot-compare.util';

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
    const live = await scanLive(testConfig(loadScanConfig(sim.configPath)));
    expect(live.accounts.map((a) => a.accountId)).toEqual(['1234567890123456', '1987654321098765']);
    const clusters = live.accounts.flatMap((a) => a.regions.flatMap((r) => r.clusters));
    expect(clusters.length).toBe(6);
    expect(clusters.every((c) => c.kubernetes && c.nodeLocalPortRanges && c.addons)).toBe(true);
    expectLiveEqualsOffline(live, loadFleetDirectory(SAMPLE));
  });
});
