/**
 * `fleet-audit serve` without Redis, as a user runs it (the built CLI, bin/fleet-audit.js; run
 * `nest build cli` first): POST /v1/scans answers 202 at once, the scan runs in the in-process queue's
 * child and succeeds, `SCAN_QUEUE_DEPTH=0` refuses a scan of a second source with 429 while one runs (a second
 * launch of the same source would join the running scan), SIGTERM
 * stops it with exit 0, and a bad `SCAN_QUEUE_DEPTH` is one line naming it (exit 2).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../store/test-database.util';
import { eventually, listeningUrl } from '../worker/worker-test.util';

const ROOT = join(__dirname, '..', '..');
const BIN = join(ROOT, 'bin', 'fleet-audit.js');
const SAMPLE = join(ROOT, 'examples', 'fleets', 'sample');
const TOKEN = 'serve-queue-e2e-token-0a9b8c7d';

describe('fleet-audit serve: the in-process scan queue (e2e)', { timeout: 300_000 }, () => {
  let db: TestDatabase;
  let serve: ChildProcess | undefined;
  let url = '';
  let stderr = '';
  let work = '';

  beforeAll(async () => {
    db = await createTestDatabase();
    // A second source (its directory's name, `second`): launches of one source join its running scan.
    work = mkdtempSync(join(tmpdir(), 'serve-queue-'));
    cpSync(SAMPLE, join(work, 'second'), { recursive: true });
    serve = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--fleet', SAMPLE, '--fleet', join(work, 'second')], {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, API_TOKEN: TOKEN, DATABASE_URL: db.url, SCAN_QUEUE_DEPTH: '0', REDIS_URL: '', LOG_LEVEL: 'warn' },
    });
    serve.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    await eventually(async () => listeningUrl(stderr) !== undefined || serve!.exitCode !== null, 120_000, 'serve to listen');
    expect(serve.exitCode, stderr).toBeNull();
    url = listeningUrl(stderr)!;
  }, 300_000);

  afterAll(async () => {
    if (serve && serve.exitCode === null) serve.kill('SIGKILL');
    await db?.release();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('queues a scan (202), refuses a second one past SCAN_QUEUE_DEPTH=0 (429), runs it to succeeded, and stops on SIGTERM with exit 0', async () => {
    const headers = { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' };
    const post = await fetch(`${url}/v1/scans`, { method: 'POST', headers, body: '{"source":"sample"}' });
    expect(post.status).toBe(202);
    const { scanId } = (await post.json()) as { scanId: string };
    expect(post.headers.get('location')).toBe(`/v1/scans/${scanId}`);
    const refused = await fetch(`${url}/v1/scans`, { method: 'POST', headers, body: '{"source":"second"}' });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(((await refused.json()) as { error: string }).error).toBe('SCAN_QUEUE_FULL');
    const scan = await eventually(
      async () => {
        const s = (await (await fetch(`${url}/v1/scans/${scanId}`, { headers })).json()) as { status: string; fleetName: string; summary: { findings: number } | null };
        return s.status !== 'running' ? s : undefined;
      },
      240_000,
      'the scan to end',
    );
    expect(scan).toMatchObject({ status: 'succeeded', fleetName: 'sample' });
    expect(scan.summary!.findings).toBeGreaterThan(0);
    const exited = new Promise<number | null>((r) => serve!.once('exit', (code) => r(code)));
    serve!.kill('SIGTERM');
    expect(await exited).toBe(0);
  });

  it('a bad SCAN_QUEUE_DEPTH is one line naming it, exit 2', () => {
    const r = spawnSync(process.execPath, [BIN, 'serve', '--fleet', SAMPLE], {
      env: { ...process.env, API_TOKEN: TOKEN, DATABASE_URL: db.url, SCAN_QUEUE_DEPTH: 'many' },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(r.status).toBe(2);
    expect(r.stderr.trim().split('\n')).toEqual(['fleet-audit: error: invalid configuration: SCAN_QUEUE_DEPTH must be an integer from 0 to 1000']);
  });
});
