/**
 * An ad-hoc offline scan with DATABASE_URL exported (as the service setup says) does not replace the fleet's view:
 * it is not stored, says so on stderr, and the API's latest scan stays the one it was; the same scan with
 * `--database-url` on the command line is stored (backfill from dated dumps).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Store } from '@app/store';
import { createTestDatabase, type TestDatabase } from '../store/test-database.util';
import { runCliInProcess, SAMPLE_FLEET } from './cli-run.util';

describe('ad-hoc offline scans and the stored latest scan (e2e)', () => {
  let db: TestDatabase;
  let store: Store;

  beforeAll(async () => {
    db = await createTestDatabase();
    store = await Store.open({ connectionString: db.url, migrate: true });
  });
  afterAll(async () => {
    await store?.close();
    await db?.release();
  });

  const latest = async () => (await store.scans.succeededBetween({ until: new Date(Date.now() + 60_000), limit: 1 }))[0]?.id ?? null;
  const stored = async () => (await store.scans.succeededBetween({ from: new Date(0), until: new Date(Date.now() + 60_000), limit: 100 })).length;

  it('DATABASE_URL exported: not stored (a note says how), the latest scan unchanged; --database-url given: stored', async () => {
    // The fleet's view: a scan stored on purpose (the flag on the command line).
    const live = await runCliInProcess(['scan', '--fleet', SAMPLE_FLEET, '--format', 'json', '--summary', '--database-url', db.url, '--now', new Date(Date.now() - 3_600_000).toISOString()]);
    expect(live.status, live.stderr).toBe(0);
    const view = (JSON.parse(live.stdout) as { scan: { id: string } }).scan.id;
    expect(await latest()).toBe(view);

    const adhoc = await runCliInProcess(['scan', '--fleet', SAMPLE_FLEET, '--format', 'json', '--summary'], { DATABASE_URL: db.url });
    expect(adhoc.status, adhoc.stderr).toBe(0);
    expect(adhoc.stderr).toContain('this offline scan was not stored');
    expect(adhoc.stderr).toContain('--database-url');
    expect(await stored()).toBe(1);
    expect(await latest()).toBe(view);

    const asked = await runCliInProcess(['scan', '--fleet', SAMPLE_FLEET, '--format', 'json', '--summary', '--database-url', db.url], { DATABASE_URL: db.url });
    expect(asked.status, asked.stderr).toBe(0);
    expect(asked.stderr).not.toContain('not stored');
    expect(await stored()).toBe(2);
    expect(await latest()).toBe((JSON.parse(asked.stdout) as { scan: { id: string } }).scan.id);
  });
});
