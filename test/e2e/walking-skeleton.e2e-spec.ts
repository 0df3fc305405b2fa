/**
 * End to end, in process: the simulator serves the sample fleet; the live collectors read it
 * through the official SDKs and client-node; the scan is stored in real PostgreSQL; the REST API
 * serves the findings. The live findings equal the offline findings of the same fleet.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import request from 'supertest';
import type { INestApplication } from '@nestjs/common';
import { join } from 'node:path';
import { runScan, LocalScanLauncher, type ScanOutcome } from '@app/audit';
import { createApiApp } from '@app/api';
import { loadScanConfig, readFleetDirectory } from '@app/collectors';
import { startSimulator, type RunningSimulator } from '@app/fleet-sim';
import { Store } from '@app/store';

const SAMPLE = join(__dirname, '..', '..', 'examples', 'fleets', 'sample');
const NOW = new Date('2026-11-22T00:00:00Z');
const TOKEN = 'e2e-token-0123456789abcdef';

describe('walking skeleton: simulator -> official clients -> store -> REST', () => {
  let sim: RunningSimulator;
  let store: Store;
  let app: INestApplication;
  let live: ScanOutcome;
  let offline: ScanOutcome;

  beforeAll(async () => {
    const url = process.env.TEST_DATABASE_URL;
    if (!url) throw new Error('TEST_DATABASE_URL is not set (test/global-setup.ts creates the test database)');
    sim = await startSimulator({ fleet: readFleetDirectory(SAMPLE), port: 0 });
    store = await Store.open({ connectionString: url });
    const config = loadScanConfig(sim.configPath);
    live = await runScan({ source: { kind: 'live', config }, now: NOW }, store);
    offline = await runScan({ source: { kind: 'offline', fleetDir: SAMPLE }, now: NOW });
    const launcher = new LocalScanLauncher(store, [{ name: 'sample', source: { kind: 'offline', fleetDir: SAMPLE } }]);
    app = await createApiApp({ store, token: TOKEN, scanLauncher: launcher });
    await app.init();
  });

  afterAll(async () => {
    await app?.close();
    await store?.close();
    await sim?.close();
  });

  it('reads every dataset of the sample fleet live (no coverage gap)', () => {
    expect(live.scan.coverage.filter((c) => c.status === 'failed')).toEqual([]);
    // Messages of `absent` entries say where the absence was seen (file vs API); the rest must match.
    const key = (c: { accountId: string; regionId?: string; clusterId?: string; api: string; status: string }) =>
      [c.accountId, c.regionId ?? '', c.clusterId ?? '', c.api, c.status].join('|');
    expect(live.scan.coverage.map(key)).toEqual(offline.scan.coverage.map(key));
  });

  it('finds exactly what the offline scan finds', () => {
    expect(live.findings).toEqual(offline.findings);
    expect(live.findings.length).toBeGreaterThan(9);
  });

  it('serves the stored findings over REST with the token', async () => {
    const unauth = await request(app.getHttpServer()).get('/v1/findings');
    expect(unauth.status).toBe(401);
    const all: { fingerprint: string; checkId: string }[] = [];
    for (let offset = 0; ; offset += 100) {
      const res = await request(app.getHttpServer()).get(`/v1/findings?scanId=${live.scan.id}&limit=100&offset=${offset}`).set('Authorization', `Bearer ${TOKEN}`);
      expect(res.status).toBe(200);
      const body = res.body as { items: { fingerprint: string; checkId: string }[]; total: number };
      all.push(...body.items);
      if (all.length >= body.total) break;
    }
    expect(all.map((f) => f.fingerprint).sort()).toEqual(live.findings.map((f) => f.fingerprint).sort());
    const scan = await request(app.getHttpServer()).get(`/v1/scans/${live.scan.id}`).set('Authorization', `Bearer ${TOKEN}`);
    expect(scan.status).toBe(200);
    expect(scan.body).toMatchObject({ id: live.scan.id, status: 'succeeded', source: 'live' });
  });

  it('a launcher given audit settings (serve --settings) runs POST /v1/scans with them', async () => {
    const tuned = new LocalScanLauncher(store, [{ name: 'sample', source: { kind: 'offline', fleetDir: SAMPLE } }], undefined, {
      checks: { SERVICE_NO_CONNECTION_DRAIN: { enabled: false } },
      ccmScale: { maxLoadBalancerServices: 40 },
    });
    const { scanId } = await tuned.launch({});
    await tuned.drain();
    const stored = await store.scans.get(scanId);
    expect(stored?.status).toBe('succeeded');
    const byCheck = (stored?.summary?.byCheck ?? {}) as Record<string, number>;
    expect(byCheck.SERVICE_NO_CONNECTION_DRAIN).toBeUndefined();
    expect(byCheck.CCM_LARGE_SCALE_RISK).toBe(1);
    // The default launcher above runs with the defaults: draining findings, no large-scale finding.
    expect(live.scan.summary.byCheck.SERVICE_NO_CONNECTION_DRAIN).toBeGreaterThan(0);
    expect(live.scan.summary.byCheck.CCM_LARGE_SCALE_RISK).toBeUndefined();
  });
});
