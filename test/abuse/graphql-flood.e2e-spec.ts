/**
 * Memory does not grow with GraphQL query text. A parsed-query cache that sizes a document by its JSON leaves out the
 * query text every location of the document holds: 5,000 distinct queries padded to 95 KB would then take the API from
 * about 300 MB to 2 GB with no plateau.
 *
 * Here `fleet-audit serve` (the built CLI, as deployed) runs with a 192 MB old-space cap and takes 1,200 distinct
 * queries, each padded with a comment to just under GRAPHQL_MAX_QUERY_BYTES (32 KiB): ~39 MB of query text, which
 * retained (twice its length on the heap, plus the AST: some 80 MB) is most of the cap. The server must answer every
 * one, stay up, and its heap must level off: the growth over the second half of the flood is a fraction (a quarter at
 * most) of what retaining the text would add. A text over the limit is refused with 413 before parsing.
 *
 * Why 1,200 queries are enough: the bounded document store (DOCUMENT_STORE_BYTES, 16 MiB counted as `documentSize`
 * counts: some 66 KB a padded query) is full after about 250 of them, within the first quarter, so the second half
 * (600 queries) measures a full store; retaining their text would add at least 19 MB there against the 4.9 MB allowed.
 *
 * The heap is read right after a full garbage collection in the API process (heap-after-gc.preload.mjs, a
 * test-only preload: `--expose-gc`, asked over the IPC channel), so a reading is what the heap retains: a reading of
 * prom-client's `nodejs_heap_size_used_bytes` on /metrics, taken whenever the request runs, swings with old-generation
 * garbage not yet collected (17.5 MB of second-half "growth" under a load average of 8).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../store/test-database.util';
import { eventually, listeningUrl } from '../worker/worker-test.util';
import { BIN } from '../cli/cli-run.util';

const TOKEN = 'graphql-flood-e2e-token-5e6f7a8b9c';
const QUERIES = 1_200;
const QUERY_BYTES = 32 * 1024 - 200;
const IN_FLIGHT = 8;
/** The test-only preload answering heap readings after a full GC over the IPC channel. */
const HEAP_AFTER_GC = join(__dirname, 'heap-after-gc.preload.mjs');

/** Query `i`: the same small query behind a distinct comment, `QUERY_BYTES` long. */
function paddedQuery(i: number): string {
  const body = `{ scans(first: 1) { totalCount } }`;
  const head = `# flood ${i} `;
  return `${head}${'x'.repeat(QUERY_BYTES - head.length - body.length - 1)}\n${body}`;
}

describe('GraphQL query-text flood', { timeout: 600_000 }, () => {
  let db: TestDatabase;
  let serve: ChildProcess | undefined;
  let url = '';
  let stderr = '';
  const headers = { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' };

  let readings = 0;
  /**
   * The API's used heap (bytes) right after a full garbage collection in it (heap-after-gc.preload.mjs); called
   * between quarters, when no query is in flight.
   */
  function heapUsed(): Promise<number> {
    const id = ++readings;
    return new Promise((resolve, reject) => {
      const onMessage = (m: { heapAfterGc?: number; heapUsed?: number }) => {
        if (m?.heapAfterGc !== id) return;
        done();
        resolve(m.heapUsed!);
      };
      const onExit = (code: number | null) => {
        done();
        reject(new Error(`the API exited (${code}) before reading its heap: ${stderr.slice(-800)}`));
      };
      const done = () => {
        serve!.off('message', onMessage);
        serve!.off('exit', onExit);
      };
      serve!.on('message', onMessage);
      serve!.once('exit', onExit);
      serve!.send({ heapAfterGc: id });
    });
  }

  beforeAll(async () => {
    db = await createTestDatabase();
    // `--expose-gc` and the preload: heap readings after a full collection, over the IPC channel (fd 3).
    serve = spawn(process.execPath, ['--max-old-space-size=192', '--expose-gc', '--import', HEAP_AFTER_GC, BIN, 'serve', '--port', '0'], {
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      env: { ...process.env, API_TOKEN: TOKEN, DATABASE_URL: db.url, REDIS_URL: '', LOG_LEVEL: 'warn', NODE_ENV: 'production' },
    });
    serve.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    await eventually(async () => listeningUrl(stderr) !== undefined || serve!.exitCode !== null, 120_000, 'serve to listen');
    expect(serve.exitCode, stderr).toBeNull();
    url = listeningUrl(stderr)!;
  }, 300_000);

  afterAll(async () => {
    if (serve && serve.exitCode === null) serve.kill('SIGKILL');
    await db?.release();
  });

  it('answers thousands of distinct padded queries with the heap levelling off, and refuses a longer text with 413', async () => {
    const samples: number[] = [];
    let next = 0;
    const statuses = new Map<number, number>();
    // Four quarters; the heap is read after each (and once before).
    samples.push(await heapUsed());
    for (let q = 1; q <= 4; q++) {
      const until = (QUERIES * q) / 4;
      const workers = Array.from({ length: IN_FLIGHT }, async () => {
        while (next < until) {
          const i = next++;
          const res = await fetch(`${url}/graphql`, { method: 'POST', headers, body: JSON.stringify({ query: paddedQuery(i) }) }).catch((e: Error) => {
            // Before the fix the API ran out of heap around here ("Reached heap limit"): say so, with its last words.
            throw new Error(`query ${i}: ${e.message}; the API ${serve!.exitCode === null ? 'is up' : `exited ${serve!.exitCode}`}: ${stderr.slice(-800)}`);
          });
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
          const body = (await res.json()) as { data?: { scans?: { totalCount: number } } };
          expect(res.status, JSON.stringify(body).slice(0, 300)).toBe(200);
          expect(body.data?.scans?.totalCount).toBe(0);
        }
      });
      await Promise.all(workers);
      samples.push(await heapUsed());
    }
    expect(serve!.exitCode, `the API died: ${stderr.slice(-2000)}`).toBeNull();
    expect(Object.fromEntries(statuses)).toEqual({ 200: QUERIES });
    const mb = samples.map((b) => Math.round(b / 2 ** 20));
    const secondHalf = samples[4] - samples[2];
    // Retaining each query's text as before: at least its length per query (the review saw ~2x plus the AST).
    const retainedBefore = (QUERIES / 2) * QUERY_BYTES;
    console.log(`heap used (MB) before and after each quarter of ${QUERIES} padded queries: ${mb.join(' -> ')}; second half +${(secondHalf / 2 ** 20).toFixed(1)} MB vs ${(retainedBefore / 2 ** 20).toFixed(0)} MB of text`);
    expect(secondHalf).toBeLessThan(retainedBefore / 4);

    const tooLong = await fetch(`${url}/graphql`, { method: 'POST', headers, body: JSON.stringify({ query: `${'#'.repeat(40 * 1024)}\n{ scans(first: 1) { totalCount } }` }) });
    expect(tooLong.status).toBe(413);
    expect(((await tooLong.json()) as { errors: { extensions: { code: string } }[] }).errors[0].extensions.code).toBe('QUERY_TOO_LARGE');
  });
});
