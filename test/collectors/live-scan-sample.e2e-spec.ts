/**
 * The bundled sample fleet (`examples/fleets/sample`) scanned live through the simulator equals the
 * offline load of the same directory (for the account the simulator's base AccessKey reads).
 *
 * The directory is copied and adjusted first, each for a stated reason:
 *  - `node-sysctls.json` removed: node sysctls are not collected live yet (Cloud Assistant
 *    RunCommand is implemented behind `collector.nodeSysctls` but the simulator does not serve it);
 *  - `vswitches.json` removed: the simulator does not serve VPC DescribeVSwitches yet.
 * Data the directory lacks (`quotas.json`) is answered 403 by the simulator and recorded `failed`
 * live where offline says `absent` (see snapshot-compare.util.ts).
 */
import { cpSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadFleetDirectory, loadScanConfig, readFleetDirectory, scanLive } from '@app/collectors';
import { startSimulator, type RunningSimulator } from '@app/fleet-sim';
import { expectLiveEqualsOffline, onlyAccounts } from './snapshot-compare.util';

const SAMPLE = join(__dirname, '..', '..', 'examples', 'fleets', 'sample');

function walk(dir: string, visit: (file: string) => void): void {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p, visit);
    else visit(p);
  }
}

function preparedSampleCopy(): string {
  const root = mkdtempSync(join(tmpdir(), 'sample-live-'));
  cpSync(SAMPLE, root, { recursive: true });
  walk(root, (f) => {
    if (f.endsWith('node-sysctls.json') || f.endsWith('vswitches.json')) rmSync(f);
  });
  return root;
}

describe('scanLive on the sample fleet', () => {
  let root: string;
  let sim: RunningSimulator;

  beforeAll(async () => {
    root = preparedSampleCopy();
    sim = await startSimulator({ fleet: readFleetDirectory(root) });
  });
  afterAll(async () => {
    await sim?.close();
  });

  it('equals the offline snapshot of the same directory, coverage included', async () => {
    const live = await scanLive(loadScanConfig(sim.configPath));
    expect(live.accounts.map((a) => a.accountId)).toEqual([sim.accountId]);
    expect(live.accounts[0].regions.flatMap((r) => r.clusters).length).toBeGreaterThan(0);
    expectLiveEqualsOffline(live, onlyAccounts(loadFleetDirectory(root), [sim.accountId]));
  });
});
