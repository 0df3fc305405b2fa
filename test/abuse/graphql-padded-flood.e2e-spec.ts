/**
 * Issue 23 item 2: distinct padded GraphQL queries cannot grow the API's memory without bound. Each query is a
 * cacheable graph read padded with a comment to just under the 32 KiB query limit and made distinct by a counter (the
 * review's flood: 5,000 queries padded to 95 KB took the API from 296 MB to 2.1 GB). Keys are hashed and the answer
 * cache counts them, so after 1,000 and after 3,000 queries (~31 KB each, ~62 MB of text in between) the retained
 * heap after a full GC stays within a bound far below the text sent, and the answer cache holds one small entry per
 * distinct query. GC: `--expose-gc` is refused in vitest workers, so the test turns it on through `v8.setFlagsFromString`
 * and takes `gc` from a fresh context (Node.js docs, v8.setFlagsFromString).
 */
import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiApp, UnavailableScanLauncher } from '@app/api';
import { Store } from '@app/store';
import { GraphAnswerCache, MAX_CACHED_CHARS } from '../../apps/api/src/graphql/graphql-response-cache.plugin';
import { DEFAULT_MAX_QUERY_BYTES } from '../../apps/api/src/graphql/graphql-request-limits.middleware';
import { createTestDatabase, type TestDatabase } from '../store/test-database.util';

const TOKEN = 'padded-flood-token-0123456789abcdef';
const MB = 1024 * 1024;

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** The i-th padded query: a graph read plus a comment up to 1 KiB under the query limit, distinct by `i`. */
function padded(i: number): string {
  const head = `{ clusters(first: 1) { totalCount } } # ${i} `;
  return head + 'x'.repeat(DEFAULT_MAX_QUERY_BYTES - 1024 - head.length);
}

describe('padded-query flood (issue 23 item 2)', () => {
  let db: TestDatabase;
  let store: Store;
  let app: INestApplication;

  beforeAll(async () => {
    db = await createTestDatabase();
    store = await Store.open({ connectionString: db.url });
    const scan = await store.scans.create({ source: 'offline' });
    await store.scans.complete(scan.id, { findings: [], coverage: [], quotaUsage: [] });
    app = await createApiApp({ store, token: TOKEN, scanLauncher: new UnavailableScanLauncher(), logger: false });
    await app.init();
  }, 60_000);
  afterAll(async () => {
    await app?.close();
    await store?.close();
    await db?.drop();
  });

  /** Sends queries [from, to) with 8 in flight; every one must be answered 200. */
  async function flood(from: number, to: number): Promise<void> {
    const server = app.getHttpServer();
    let next = from;
    const lane = async () => {
      while (next < to) {
        const i = next++;
        const r = await request(server).post('/graphql').set('Authorization', `Bearer ${TOKEN}`).send({ query: padded(i) });
        if (r.status !== 200 || r.body.errors) throw new Error(`query ${i}: HTTP ${r.status} ${JSON.stringify(r.body.errors ?? r.body)}`);
      }
    };
    await Promise.all(Array.from({ length: 8 }, lane));
  }
  function settledHeap(): { heapUsedMb: number; rssMb: number } {
    gc();
    gc();
    const m = process.memoryUsage();
    return { heapUsedMb: +(m.heapUsed / MB).toFixed(1), rssMb: +(m.rss / MB).toFixed(1) };
  }

  it('retained heap levels off between 1,000 and 3,000 distinct padded queries; the answer cache counts its keys', async () => {
    const cache = app.get(GraphAnswerCache);
    expect(Buffer.byteLength(padded(2999))).toBeLessThan(DEFAULT_MAX_QUERY_BYTES);
    const before = settledHeap();
    await flood(0, 1000);
    const at1000 = { ...settledHeap(), cache: cache.stats };
    await flood(1000, 3000);
    const at3000 = { ...settledHeap(), cache: cache.stats };
    const sentMbBetween = (2000 * padded(0).length) / MB;
    console.log(JSON.stringify({ queryChars: padded(0).length, before, at1000, at3000, sentMbBetween: +sentMbBetween.toFixed(1) }));
    // Every distinct query got its own small entry (hashed key + answer), far under the cache's bound.
    expect(at3000.cache.entries).toBe(3000);
    expect(at3000.cache.chars).toBeLessThan(3000 * 200);
    expect(at3000.cache.chars).toBeLessThanOrEqual(MAX_CACHED_CHARS);
    // 62 MB of query text went in between the two readings; keeping it would grow the heap by at least that much.
    expect(at3000.heapUsedMb - at1000.heapUsedMb).toBeLessThan(sentMbBetween / 3);
  }, 300_000);
});
