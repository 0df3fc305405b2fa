/**
 * Paging that scales, on real PostgreSQL:
 * - every page of `findings.list` is ONE SQL statement (counted on the store's real pool by
 *   wrapping `pg.Client#query`, which every pooled query goes through), the first page included
 *   (scan, rows and count), with or without an explicit scan id;
 * - paging by cursor over the latest scan while new scans are stored (and become "the latest")
 *   visits every finding of the first scan exactly once, in the listing order;
 * - one check's pages visit its findings in order, also from another check's cursor, each a range of
 *   findings_scan_check_keyset_idx (EXPLAIN);
 * - the cursor page is served by findings_scan_keyset_idx as an index range (EXPLAIN), and a
 *   stored scan's follow-up (`scans.refreshAfterStore`) leaves fresh statistics (ANALYZE) on the tables it wrote;
 * - bad cursors are refused (INVALID_ARGUMENT).
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Finding, Severity } from '@app/domain';
import { scanPartition, Store, StoreError, SYSTEM_PRINCIPAL } from '@app/store';
import { makeCoverage, makeFindings } from './finding.factory';
import { createTestDatabase, type TestDatabase } from './test-database.util';

const SEVERITIES: Severity[] = ['info', 'warning', 'critical'];

/** `n` findings over three severities and four checks (so the order has ties on its first keys). */
function findings(n: number, tag: string): Finding[] {
  return makeFindings(n, (i) => ({
    severity: SEVERITIES[i % 3],
    checkId: `check-${(i * 7) % 4}`,
    resource: { id: `lb-${tag}-${String(i).padStart(5, '0')}` },
  }));
}

describe('findings paging (keyset, one statement per page)', () => {
  let db: TestDatabase;
  let store: Store;
  let first: string;
  let firstFindings: Finding[];

  beforeAll(async () => {
    db = await createTestDatabase();
    store = await Store.open({ connectionString: db.url, migrate: true });
    const scan = await store.scans.create({ source: 'offline', fleetName: 'paging', startedAt: new Date('2026-01-01T00:00:00Z') });
    firstFindings = findings(257, 'a');
    await store.scans.complete(scan.id, { findings: firstFindings, coverage: [makeCoverage()] });
    first = scan.id;
    // As after every stored scan: statistics of the scan's own findings table (a partition), which plans read.
    await store.scans.refreshAfterStore();
    // A Store asks the catalogue once, on its first read, for each column a later migration added
    // (schema-probe.util.ts); the pages below are counted after that.
    await store.findings.list({ scanId: first, limit: 1 }, SYSTEM_PRINCIPAL);
  });

  afterAll(async () => {
    vi.restoreAllMocks();
    await store?.close();
    await db?.release();
  });

  /** Run `fn` and count the SQL statements sent on any pg client meanwhile. */
  async function statements<T>(fn: () => Promise<T>): Promise<{ result: T; sql: string[] }> {
    const sql: string[] = [];
    const original = pg.Client.prototype.query;
    const spy = vi.spyOn(pg.Client.prototype, 'query').mockImplementation(function (this: pg.Client, ...args: unknown[]) {
      const q = args[0];
      sql.push(typeof q === 'string' ? q : String((q as { text?: string }).text));
      return (original as (...a: unknown[]) => unknown).apply(this, args);
    } as typeof original);
    try {
      return { result: await fn(), sql };
    } finally {
      spy.mockRestore();
    }
  }

  /** The fingerprints of every Relay page of `query` (`findings.page`), walked forward and walked backward. */
  async function relayWalk(query: { scanId: string; checkId?: string }, size: number): Promise<{ forward: string[]; backward: string[] }> {
    const forward: string[] = [];
    let after: string | undefined;
    for (;;) {
      const { page } = await store.findings.page(query, { first: size, ...(after ? { after } : {}) }, SYSTEM_PRINCIPAL);
      forward.push(...page.edges.map((e) => e.node.fingerprint));
      if (!page.hasNextPage) break;
      after = page.edges.at(-1)!.cursor;
    }
    const backward: string[][] = [];
    let before: string | undefined;
    for (;;) {
      const { page } = await store.findings.page(query, { last: size, ...(before ? { before } : {}) }, SYSTEM_PRINCIPAL);
      backward.unshift(page.edges.map((e) => e.node.fingerprint));
      if (!page.hasPreviousPage) break;
      before = page.edges[0]!.cursor;
    }
    return { forward, backward: backward.flat() };
  }

  /**
   * The plan (EXPLAIN, sequential scans and sorts disabled: a few hundred rows would take them) of the last page
   * statement (one with LIMIT and parameters) `fn` sends.
   */
  async function planOfLastPage(fn: () => Promise<unknown>): Promise<string> {
    let captured: { text: string; values: unknown[] } | undefined;
    const original = pg.Client.prototype.query;
    const spy = vi.spyOn(pg.Client.prototype, 'query').mockImplementation(function (this: pg.Client, ...args: unknown[]) {
      if (typeof args[0] === 'string' && args[0].includes('LIMIT') && Array.isArray(args[1])) captured = { text: args[0], values: args[1] as unknown[] };
      return (original as (...a: unknown[]) => unknown).apply(this, args);
    } as typeof original);
    try {
      await fn();
    } finally {
      spy.mockRestore();
    }
    expect(captured).toBeDefined();
    const c = new pg.Client({ connectionString: db.url });
    await c.connect();
    try {
      await c.query('SET enable_seqscan = off');
      await c.query('SET enable_sort = off');
      const plan = await c.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${captured?.text ?? ''}`, captured?.values);
      // Each scan's findings are a partition (migration 1800800000000) whose indexes PostgreSQL named itself: each is
      // shown under the name of the partitioned index it belongs to.
      const { rows } = await c.query<{ child: string; parent: string }>(
        `SELECT c.relname AS child, p.relname AS parent FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_class p ON p.oid = i.inhparent
          WHERE p.relname LIKE 'findings\\_%' AND p.relkind = 'I'`,
      );
      const parentOf = new Map(rows.map((r) => [r.child, r.parent]));
      return plan.rows.map((r) => r['QUERY PLAN'].replace(/Index Scan( Backward)? using (\S+)/, (m, back: string | undefined, name: string) => `Index Scan${back ?? ''} using ${parentOf.get(name) ?? name}`)).join('\n');
    } finally {
      await c.end();
    }
  }

  it('one statement per page: the first page (scan, rows, count), cursor pages, the default scan', async () => {
    const firstPage = await statements(() => store.findings.list({ scanId: first, limit: 50 }, SYSTEM_PRINCIPAL));
    expect(firstPage.sql).toHaveLength(1);
    expect(firstPage.result.total).toBe(257);
    expect(firstPage.result.items).toHaveLength(50);
    expect(firstPage.result.nextCursor).toEqual(expect.any(String));

    const next = await statements(() =>
      store.findings.list({ limit: 50, cursor: firstPage.result.nextCursor ?? '' }, SYSTEM_PRINCIPAL),
    );
    expect(next.sql).toHaveLength(1);
    expect(next.result.total).toBeNull();
    expect(next.result.scanId).toBe(first);
    expect(next.result.items).toHaveLength(50);

    // The default scan is the request's read generation's latest succeeded scan (the API reads the generation once per
    // request, before the page); without one, `list` asks for it first.
    const generation = await store.generations.current();
    const latest = await statements(() => store.findings.list({ limit: 10, severity: 'critical' }, SYSTEM_PRINCIPAL, generation));
    expect(latest.sql).toHaveLength(1);
    const unversioned = await statements(() => store.findings.list({ limit: 10, severity: 'critical' }, SYSTEM_PRINCIPAL));
    expect(unversioned.sql).toHaveLength(2);
    expect(unversioned.result).toEqual(latest.result);
    expect(latest.result.scanId).toBe(first);
    expect(latest.result.total).toBe(firstFindings.filter((f) => f.severity === 'critical').length);
    expect(latest.result.items.every((f) => f.severity === 'critical')).toBe(true);

    const missing = await statements(() =>
      store.findings.list({ scanId: '00000000-0000-4000-8000-000000000000' }, SYSTEM_PRINCIPAL).catch((e: unknown) => e),
    );
    expect(missing.sql).toHaveLength(1);
    expect(missing.result).toBeInstanceOf(StoreError);
    expect((missing.result as StoreError).code).toBe('NOT_FOUND');
  });

  it('cursor paging over the latest scan while new scans are stored: every finding once, in order', async () => {
    const expected = (await store.findings.forScan(first, SYSTEM_PRINCIPAL)).map((f) => f.fingerprint);
    expect(expected).toHaveLength(257);
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await store.findings.list({ limit: 20, ...(cursor ? { cursor } : {}) }, SYSTEM_PRINCIPAL);
      expect(page.scanId).toBe(first);
      seen.push(...page.items.map((f) => f.fingerprint));
      cursor = page.nextCursor ?? undefined;
      pages += 1;
      if (pages === 3 || pages === 7) {
        // A newer scan succeeds between pages: it becomes the default scan, with findings that
        // sort before and among the first scan's (critical, same checks).
        const newer = await store.scans.create({ source: 'offline', fleetName: 'paging', startedAt: new Date(Date.now() + pages) });
        await store.scans.complete(newer.id, { findings: findings(40 + pages, `n${pages}`), coverage: [makeCoverage()] });
      }
    } while (cursor);
    expect(pages).toBe(13);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toEqual(expected);
    // The default scan did move on meanwhile: without the cursor a first page reads the newest.
    expect((await store.findings.list({ limit: 1 }, SYSTEM_PRINCIPAL)).scanId).not.toBe(first);
  });

  it('a cursor page is one index range scan of findings_scan_keyset_idx, cut to the page before the joins', async () => {
    const page = await store.findings.list({ scanId: first, limit: 100 }, SYSTEM_PRINCIPAL);
    // 257 rows fit in a few pages, where a sequential scan and a sort are cheaper: ask which index path the planner
    // has for the statement `list` sends for the next page (at scale it is the only cheap one).
    const text = await planOfLastPage(() => store.findings.list({ limit: 100, cursor: page.nextCursor ?? '' }, SYSTEM_PRINCIPAL));
    // The cursor condition is part of the index condition (a range start), not a filter.
    expect(text).toMatch(/findings_scan_keyset_idx[^\n]*\n\s*Index Cond: \(\(scan_id = [^)]+\) AND \(ROW\(\(- severity_rank\), check_id, fingerprint\) > ROW\(/);
    // The page's rows are cut (Limit) right above that scan, before the sightings and texts are joined: a join
    // first could lose the index order and read every matching row.
    expect(text).toMatch(/Limit[^\n]*\n\s*->\s*Index Scan using findings_scan_keyset_idx/);
    // Planned for the page's scan alone: its partition, not an Append over every scan's (several are stored by now).
    expect((await store.scans.list({ limit: 100 }, SYSTEM_PRINCIPAL)).items.length).toBeGreaterThan(1);
    expect(text).not.toMatch(/Append/);
    expect(text).toContain(`on ${scanPartition('findings', first)} `);
  });

  it('Relay pages (GraphQL findings) visit the REST order forward and backward, and walk findings_scan_keyset_idx', async () => {
    const expected = (await store.findings.forScan(first, SYSTEM_PRINCIPAL)).map((f) => f.fingerprint);
    const { forward, backward } = await relayWalk({ scanId: first }, 30);
    expect(forward).toEqual(expected);
    expect(backward).toEqual(expected);
    // The page's statement has an index path over findings_scan_keyset_idx: its ORDER BY is the index's expression.
    const text = await planOfLastPage(() => store.findings.page({ scanId: first }, { first: 30 }, SYSTEM_PRINCIPAL));
    expect(text).toContain('findings_scan_keyset_idx');
    expect(text).not.toMatch(/^\s*->\s*Sort\b/m);
  });

  it("one check's pages (REST and GraphQL) visit its findings in the listing order, also from another check's cursor, as a range of findings_scan_check_keyset_idx", async () => {
    const all = await store.findings.forScan(first, SYSTEM_PRINCIPAL);
    const checkOf = new Map(all.map((f) => [f.fingerprint, f.checkId]));
    const order = all.map((f) => f.fingerprint);
    for (const checkId of ['check-0', 'check-2']) {
      const expected = order.filter((fp) => checkOf.get(fp) === checkId);
      const { forward, backward } = await relayWalk({ scanId: first, checkId }, 7);
      expect(forward).toEqual(expected);
      expect(backward).toEqual(expected);
      const rest: string[] = [];
      let cursor: string | undefined;
      for (;;) {
        const p = await store.findings.list({ scanId: first, checkId, limit: 7, ...(cursor ? { cursor } : {}) }, SYSTEM_PRINCIPAL);
        rest.push(...p.items.map((f) => f.fingerprint));
        if (!p.nextCursor) break;
        cursor = p.nextCursor;
      }
      expect(rest).toEqual(expected);
    }
    // Cursors of the unfiltered order at rows of each check and severity, followed with a check filter: the check's
    // findings after (before) that row, whether the cursor's check sorts before, after or equal to the filter's.
    const edges: { cursor: string; fingerprint: string }[] = [];
    let after: string | undefined;
    for (;;) {
      const { page } = await store.findings.page({ scanId: first }, { first: 100, ...(after ? { after } : {}) }, SYSTEM_PRINCIPAL);
      edges.push(...page.edges.map((e) => ({ cursor: e.cursor, fingerprint: e.node.fingerprint })));
      if (!page.hasNextPage) break;
      after = page.edges.at(-1)!.cursor;
    }
    expect(edges.map((e) => e.fingerprint)).toEqual(order);
    for (const at of [0, 3, 40, 85, 86, 128, 170, 171, 256]) {
      for (const checkId of ['check-0', 'check-1', 'check-3']) {
        const later = order.slice(at + 1).filter((fp) => checkOf.get(fp) === checkId);
        const { page: next } = await store.findings.page({ scanId: first, checkId }, { first: 100, after: edges[at]!.cursor }, SYSTEM_PRINCIPAL);
        expect(next.edges.map((e) => e.node.fingerprint)).toEqual(later.slice(0, 100));
        const earlier = order.slice(0, at).filter((fp) => checkOf.get(fp) === checkId);
        const { page: prev } = await store.findings.page({ scanId: first, checkId }, { last: 100, before: edges[at]!.cursor }, SYSTEM_PRINCIPAL);
        expect(prev.edges.map((e) => e.node.fingerprint)).toEqual(earlier.slice(-100));
      }
    }
    // The statement of a check's cursor page: the cursor is a range of findings_scan_check_keyset_idx after its prefix.
    const text = await planOfLastPage(async () => {
      const { page } = await store.findings.page({ scanId: first, checkId: 'check-1' }, { first: 5 }, SYSTEM_PRINCIPAL);
      await store.findings.page({ scanId: first, checkId: 'check-1' }, { first: 5, after: page.edges.at(-1)!.cursor }, SYSTEM_PRINCIPAL);
    });
    expect(text).toMatch(/findings_scan_check_keyset_idx[^\n]*\n\s*Index Cond: \(\(scan_id = [^)]+\) AND \(check_id = [^)]+\) AND \(ROW\(\(- severity_rank\), fingerprint\) > ROW\(/);
    // With an account as well (a filter on that range), the page is cut right above the scan, before the joins: an
    // account holding few of the check's findings must not have every one of them read, joined and sorted per page.
    const accountId = firstFindings[0]!.resource.accountId;
    const withAccount = await planOfLastPage(async () => {
      const { page } = await store.findings.page({ scanId: first, checkId: 'check-1', accountId }, { first: 5 }, SYSTEM_PRINCIPAL);
      await store.findings.page({ scanId: first, checkId: 'check-1', accountId }, { first: 5, after: page.edges.at(-1)!.cursor }, SYSTEM_PRINCIPAL);
    });
    expect(withAccount).toMatch(/Limit[^\n]*\n\s*->\s*Index Scan using findings_scan_check_keyset_idx[^\n]*\n\s*Index Cond: [^\n]*ROW\(\(- severity_rank\), fingerprint\) > ROW\([^\n]*\n\s*Filter: \(account_id = /);
  });

  it("a stored scan's follow-up leaves fresh statistics on the tables it wrote", async () => {
    const c = new pg.Client({ connectionString: db.url });
    await c.connect();
    try {
      // The scan's own findings and quota samples tables (partitions: scan-partition.util.ts) are what gets analysed.
      const scan = await store.scans.create({ source: 'offline', fleetName: 'analyze' });
      const tables = ['finding_fingerprints', scanPartition('findings', scan.id), scanPartition('quota_usage', scan.id)];
      const stats = async () => {
        const { rows } = await c.query<{ relname: string; n: string }>(`SELECT relname, analyze_count::text AS n FROM pg_stat_user_tables WHERE relname = ANY($1)`, [tables]);
        return tables.map((t) => [t, Number(rows.find((r) => r.relname === t)?.n ?? 0)] as const);
      };
      const before = await stats();
      await store.scans.complete(scan.id, { findings: findings(5, 'z'), coverage: [makeCoverage()] });
      await store.scans.refreshAfterStore();
      // The statistics collector reports with a short delay.
      let after = await stats();
      for (let i = 0; i < 50 && after.some(([, n], k) => n <= before[k][1]); i++) {
        await new Promise((r) => setTimeout(r, 100));
        after = await stats();
      }
      for (const [k, [table, n]] of after.entries()) expect(n, table).toBeGreaterThan(before[k][1]);
    } finally {
      await c.end();
    }
  });

  it('refuses malformed cursors, a cursor with an offset, and a cursor of another scan', async () => {
    const page = await store.findings.list({ scanId: first, limit: 5 }, SYSTEM_PRINCIPAL);
    const cursor = page.nextCursor ?? '';
    const code = (p: Promise<unknown>) => p.then(() => 'ok', (e: unknown) => (e instanceof StoreError ? e.code : 'other'));
    expect(await code(store.findings.list({ cursor: 'not-a-cursor' }, SYSTEM_PRINCIPAL))).toBe('INVALID_ARGUMENT');
    expect(await code(store.findings.list({ cursor: Buffer.from('[1,2,3,4]').toString('base64url') }, SYSTEM_PRINCIPAL))).toBe('INVALID_ARGUMENT');
    expect(await code(store.findings.list({ cursor, offset: 5 }, SYSTEM_PRINCIPAL))).toBe('INVALID_ARGUMENT');
    expect(await code(store.findings.list({ cursor, scanId: '00000000-0000-4000-8000-000000000000' }, SYSTEM_PRINCIPAL))).toBe('INVALID_ARGUMENT');
    expect(await code(store.findings.list({ cursor, scanId: first }, SYSTEM_PRINCIPAL))).toBe('ok');
  });

  it('refuses a cursor followed with other filters than its first page, naming them', async () => {
    const all = await store.findings.forScan(first, SYSTEM_PRINCIPAL);
    const severity = all[0]!.severity;
    const filtered = await store.findings.list({ scanId: first, severity, limit: 1 }, SYSTEM_PRINCIPAL);
    expect(filtered.nextCursor, 'the scan needs two findings of one severity').not.toBeNull();
    const cursor = filtered.nextCursor!;
    // Same filters: the next page, still of that severity.
    const next = await store.findings.list({ cursor, severity, limit: 1 }, SYSTEM_PRINCIPAL);
    expect(next.items.every((f) => f.severity === severity)).toBe(true);
    expect(next.items[0]?.fingerprint).not.toBe(filtered.items[0]?.fingerprint);
    // Filters dropped or changed: refused with a message naming the filters sent.
    await expect(store.findings.list({ cursor, limit: 1 }, SYSTEM_PRINCIPAL)).rejects.toThrow(/cursor was returned for other filters than no filters/);
    await expect(store.findings.list({ cursor, severity, checkId: 'OTHER_CHECK', limit: 1 }, SYSTEM_PRINCIPAL)).rejects.toThrow(
      new RegExp(`other filters than checkId=OTHER_CHECK, severity=${severity}`),
    );
    // An unfiltered cursor with a filter added is refused too.
    const plain = (await store.findings.list({ scanId: first, limit: 1 }, SYSTEM_PRINCIPAL)).nextCursor!;
    await expect(store.findings.list({ cursor: plain, severity, limit: 1 }, SYSTEM_PRINCIPAL)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });
});
