/**
 * The CLI on a store failure exits 3 (a transient failure: StoreError UNAVAILABLE, a retry
 * may succeed; the exit codes of libs/errors/README.md) with exactly one line on stderr (never a stack trace,
 * never 1, which means "findings found"). Spawns the built CLI (`nest build cli`):
 * - `--database-url` pointing at a port where nothing listens;
 * - a private PostgreSQL (never the shared one) stopped while the scan runs and kept down until
 *   the CLI gave up (a short restart is ridden over: scan-lifecycle.integration-spec.ts).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPrivatePostgres, type PrivatePostgres } from '../../bench/chaos/private-servers';

/**
 * A port where nothing listens: the discard port, below the range the system hands out for port 0, so no server of
 * the suite can hold it (a port found free and closed again could be taken before the command connects).
 */
const NOTHING_LISTENS = 9;

const ROOT = join(__dirname, '../..');
const CLI = join(ROOT, 'bin/fleet-audit.js');
const SAMPLE = join(ROOT, 'examples/fleets/sample');

function runCli(args: string[], during?: () => Promise<void>): Promise<{ exit: number | null; lines: string[] }> {
  return new Promise((resolve) => {
    const c = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    c.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    c.once('exit', (code) => resolve({ exit: code, lines: stderr.split('\n').filter((l) => l.trim() !== '') }));
    void during?.();
  });
}

describe('fleet-audit scan on a store failure: exit 3 (transient), one line', () => {
  let pg: PrivatePostgres;
  let big: string;

  beforeAll(async () => {
    pg = await startPrivatePostgres();
    // A generated fleet that takes seconds to audit, so the stop lands while the scan runs.
    big = mkdtempSync(join(tmpdir(), 'fleet-store-failure-'));
    writeFileSync(
      join(big, 'fleet.yaml'),
      'name: store-failure\ngenerate:\n  seed: 14\n  accounts: 2\n  regions: [cn-hangzhou, cn-beijing]\n  clusters: 150\n  nodesPerCluster: 20\n  servicesPerCluster: 8\n',
    );
  });
  afterAll(() => {
    pg?.destroy();
    if (big) rmSync(big, { recursive: true, force: true });
  });

  it('nothing listening at --database-url', async () => {
    const r = await runCli(['scan', '--fleet', SAMPLE, '--format', 'json', '--database-url', `postgres://postgres@127.0.0.1:${NOTHING_LISTENS}/fleet`]);
    expect(r.exit).toBe(3);
    expect(r.lines).toHaveLength(1);
    expect(r.lines[0]).toMatch(/^fleet-audit: error: cannot open PostgreSQL at postgres:\/\/postgres@127\.0\.0\.1:\d+\/fleet: .*ECONNREFUSED/);
  }, 120_000);

  it('PostgreSQL stopped while the scan runs', async () => {
    const watcher = new Client({ connectionString: pg.url });
    await watcher.connect();
    const r = await runCli(['scan', '--fleet', big, '--format', 'json', '--database-url', pg.url], async () => {
      // Stop as soon as the scan row exists (the scan is running), before its results are stored.
      for (let i = 0; i < 1200; i++) {
        const rows = await watcher.query<{ n: string }>(`SELECT count(*) AS n FROM pg_tables WHERE tablename = 'scans'`);
        if (Number(rows.rows[0].n) > 0) {
          const scans = await watcher.query<{ n: string }>(`SELECT count(*) AS n FROM scans`);
          if (Number(scans.rows[0].n) > 0) break;
        }
        await new Promise((res) => setTimeout(res, 50));
      }
      await watcher.end().catch(() => undefined);
      pg.stop();
    });
    pg.start();
    expect(r.exit).toBe(3);
    expect(r.lines, r.lines.join('\n')).toHaveLength(1);
    expect(r.lines[0]).toMatch(/^fleet-audit: error: /);
    expect(r.lines[0]).toMatch(/PostgreSQL|database/i);
  }, 180_000);
});
