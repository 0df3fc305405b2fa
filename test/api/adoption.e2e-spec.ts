/**
 * Adoption, end to end against the real API app on a real PostgreSQL, with the sample fleet
 * (examples/fleets/sample) scanned twice through libs/audit runScan (as `scan --fleet DIR --database-url` does):
 * - item 2, cluster names: findings (REST and GraphQL), headroom and what-if carry the cluster's name beside its id;
 *   a what-if step names a cluster by id or by name, an unknown one is refused listing the valid ones; the CLI
 *   table and the report show `name (c81faa03…)`.
 * The expected names are read from the sample's own cluster.json files (an oracle independent of the code under test).
 */
/* eslint-disable @typescript-eslint/no-explicit-any -- GraphQL and REST bodies are walked as the queries shaped them */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { load as parseYaml } from 'js-yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UnavailableScanLauncher, createApiApp } from '@app/api';
import { defaultForecastWorkerEntry, runScan } from '@app/audit';
import { Store, type StoredScan } from '@app/store';
import { runCliInProcess, SAMPLE_FLEET } from '../cli/cli-run.util';
import { createTestDatabase, type TestDatabase } from '../store/test-database.util';

const TOKEN = 'adoption-e2e-token-0a1b2c3d4e5f6a7b';
const KEY = 'adoption-e2e-hash-key-0123456789abcdef-0123456789';
const FIRST = new Date('2026-11-09T00:00:00Z');
const SECOND = new Date('2026-11-16T00:00:00Z');

/** Cluster id -> name, from every cluster.json of the sample fleet (accounts/<a>/regions/<r>/clusters/<c>/cluster.json). */
function sampleClusterNames(): Map<string, string> {
  const out = new Map<string, string>();
  const accounts = join(SAMPLE_FLEET, 'accounts');
  for (const a of readdirSync(accounts))
    for (const r of readdirSync(join(accounts, a, 'regions'))) {
      const clusters = join(accounts, a, 'regions', r, 'clusters');
      if (!existsSync(clusters)) continue;
      for (const c of readdirSync(clusters)) {
        const doc = JSON.parse(readFileSync(join(clusters, c, 'cluster.json'), 'utf8')) as { cluster_id: string; name: string };
        out.set(doc.cluster_id, doc.name);
      }
    }
  return out;
}

describe('adoption (e2e)', () => {
  let db: TestDatabase;
  let store: Store;
  let app: INestApplication;
  let first: StoredScan;
  let second: StoredScan;
  const names = sampleClusterNames();
  const storefront = [...names].find(([, n]) => n === 'storefront')![0];
  const payments = [...names].find(([, n]) => n === 'payments-legacy')![0];
  const http = () => request(app.getHttpServer());
  const auth = { Authorization: `Bearer ${TOKEN}` };
  const gql = async (query: string, variables: Record<string, unknown> = {}) => {
    const res = await http().post('/graphql').set(auth).send({ query, variables });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body as { data?: any; errors?: { message: string }[] };
  };

  beforeAll(async () => {
    db = await createTestDatabase();
    store = await Store.open({ connectionString: db.url, tokenHashKey: KEY });
    const a = await runScan({ source: { kind: 'offline', fleetDir: SAMPLE_FLEET }, now: FIRST, observedAt: FIRST }, store);
    const b = await runScan({ source: { kind: 'offline', fleetDir: SAMPLE_FLEET }, now: SECOND, observedAt: SECOND }, store);
    first = (await store.scans.get(a.scan.id))!;
    second = (await store.scans.get(b.scan.id))!;
    app = await createApiApp({
      store,
      token: TOKEN,
      scanLauncher: new UnavailableScanLauncher(),
      logger: false,
      auth: { maxFailures: 10_000 },
      // The forecast worker of the suite's build (test/global-setup.ts), i.e. of the sources under test.
      forecasts: { workerEntry: defaultForecastWorkerEntry(process.env.FLEET_AUDIT_DIST) },
    });
    await app.init();
  }, 300_000);

  afterAll(async () => {
    await app?.close();
    await store?.close();
    await db?.release();
  });

  describe('cluster names (item 2)', () => {
    it('GET /v1/findings: every finding in a cluster carries that cluster name; the others null', async () => {
      const res = await http().get('/v1/findings').query({ scanId: second.id, limit: 1000 }).set(auth).expect(200);
      const items = res.body.items as { resource: { clusterId: string | null; clusterName: string | null } }[];
      expect(items.length).toBe(res.body.total);
      const inCluster = items.filter((f) => f.resource.clusterId !== null);
      expect(inCluster.length).toBeGreaterThan(10);
      for (const f of items) expect(f.resource.clusterName).toBe(f.resource.clusterId === null ? null : names.get(f.resource.clusterId));
      expect(inCluster.some((f) => f.resource.clusterName === 'storefront')).toBe(true);
    });

    it('GraphQL findings and the scan diff carry clusterName as REST does', async () => {
      const body = await gql(`query($scan: ID) { findings(scanId: $scan, first: 100) { nodes { fingerprint resource { clusterId clusterName } } } }`, { scan: second.id });
      expect(body.errors).toBeUndefined();
      const nodes = body.data.findings.nodes as { resource: { clusterId: string | null; clusterName: string | null } }[];
      expect(nodes.length).toBeGreaterThan(0);
      for (const n of nodes) expect(n.resource.clusterName).toBe(n.resource.clusterId === null ? null : names.get(n.resource.clusterId));
      const diff = await http().get(`/v1/scans/${second.id}/diff`).query({ against: first.id, limit: 500 }).set(auth).expect(200);
      const persisting = (diff.body.items as { change: string; resource: { clusterId: string | null; clusterName: string | null } }[]).filter((i) => i.resource.clusterId);
      expect(persisting.length).toBeGreaterThan(0);
      for (const i of persisting) expect(i.resource.clusterName).toBe(names.get(i.resource.clusterId!));
    });

    it('headroom names each cluster (REST), and takes a cluster name as its filter (CLI)', async () => {
      const res = await http().get('/v1/forecasts/headroom').set(auth).expect(200);
      const entries = res.body.headroom as { clusterId: string; clusterName: string }[];
      expect(entries.length).toBeGreaterThan(0);
      for (const e of entries) expect(e.clusterName).toBe(names.get(e.clusterId));
      const byName = await runCliInProcess(['forecast', 'headroom', '--fleet', SAMPLE_FLEET, '--cluster', 'storefront', '--format', 'json']);
      expect(byName.status, byName.stderr).toBe(0);
      expect((JSON.parse(byName.stdout) as { headroom: { clusterId: string }[] }).headroom.map((h) => h.clusterId)).toEqual([storefront]);
      // The cluster cell wraps its name and id over two lines (the table has team and shared-quota columns too).
      const table = await runCliInProcess(['forecast', 'headroom', '--fleet', SAMPLE_FLEET, '--cluster', storefront]);
      expect(table.stdout).toMatch(new RegExp(`│ storefront\\s[^\\n]*\\n│ \\(${storefront.slice(0, 8)}…\\)`));
    }, 120_000);

    it('POST /v1/forecasts/whatif: a step names its cluster by id or by name with one answer; an unknown one lists the clusters', async () => {
      const scenario = (cluster: string) => ({ apiVersion: 'fleet-audit/v1', kind: 'Scenario', name: 'peak', steps: [{ addNodes: { cluster, count: 5 } }] });
      const byId = await http().post('/v1/forecasts/whatif').set(auth).send(scenario(payments)).expect(200);
      const byName = await http().post('/v1/forecasts/whatif').set(auth).send(scenario('payments-legacy')).expect(200);
      expect(byName.body).toEqual(byId.body);
      expect(byId.body.steps[0].headroom.map((h: { clusterName: string }) => h.clusterName)).toEqual(['payments-legacy']);
      const unknown = await http().post('/v1/forecasts/whatif').set(auth).send(scenario('store-front')).expect(400);
      const listed = [...names].map(([id, n]) => `${n} (${id.slice(0, 8)}…)`).sort();
      expect(unknown.body.message).toBe(`step 1 (addNodes) field addNodes.cluster: unknown cluster 'store-front'; clusters: ${listed.join(', ')}`);
    });

    it('the CLI table and the Markdown report show "name (id…)" for a cluster', async () => {
      const scan = await runCliInProcess(['scan', '--fleet', SAMPLE_FLEET, '--now', SECOND.toISOString(), '--no-progress'], { COLUMNS: '200' });
      expect(scan.stdout).toContain(`storefront (${storefront.slice(0, 8)}…)`);
      const report = await runCliInProcess(['report', '--database-url', db.url, '--format', 'markdown', '--until', SECOND.toISOString(), '--now', SECOND.toISOString()]);
      expect(report.status, report.stderr).toBe(0);
      const byCluster = report.stdout.slice(report.stdout.indexOf('### By cluster'));
      expect(byCluster).toContain(`| storefront (${storefront.slice(0, 8)}…) |`);
    }, 120_000);
  });

  describe('one paging style on every REST list (item 6): limit + after, nextCursor; old parameters deprecated', () => {
    /** Every item of a list, following nextCursor as `after`; the pages' sizes. */
    async function walk(path: string, limit: number): Promise<{ ids: string[]; pages: number; total: number }> {
      const ids: string[] = [];
      let after: string | null = null;
      let pages = 0;
      let total: number;
      do {
        const res = await http().get(path).query({ limit, ...(after ? { after } : {}) }).set(auth);
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        expect(res.headers.deprecation).toBeUndefined();
        expect((res.body.items as unknown[]).length).toBeLessThanOrEqual(limit);
        ids.push(...(res.body.items as { id: string }[]).map((i) => i.id));
        total = res.body.total as number;
        after = res.body.nextCursor as string | null;
        pages += 1;
      } while (after !== null && pages < 50);
      return { ids, pages, total };
    }

    beforeAll(async () => {
      for (let i = 0; i < 3; i++) {
        await http().post('/v1/tokens').set(auth).send({ role: 'viewer', name: `paging-${i}` }).expect(201);
        await http()
          .post('/v1/waivers')
          .set(auth)
          .send({ checkId: 'CLB_BACKEND_QUOTA', accountId: '1234567890123456', resource: `lb-paging-${i}*`, owner: 'team-net', reason: 'accepted until the CLB split lands', category: 'accepted-risk' })
          .expect(201);
        const id = await store.reports.claim(`2026-11-0${i + 1}T06:00`, 'all', new Date(Date.UTC(2026, 10, i + 1, 6)));
        await store.reports.complete(id!, { document: {}, summary: { findings: i }, periodStart: '2026-10-25T00:00:00Z', periodEnd: '2026-11-01T00:00:00Z', scanId: null });
      }
    });

    it.each(['/v1/scans', '/v1/reports', '/v1/tokens', '/v1/waivers'])('%s pages by after with nextCursor, each item once, in the unpaged order', async (path) => {
      const whole = await http().get(path).query({ limit: 1000 }).set(auth).expect(200);
      const all = (whole.body.items as { id: string }[]).map((i) => i.id);
      expect(all.length).toBeGreaterThanOrEqual(2);
      expect(whole.body).toMatchObject({ total: all.length, limit: 1000, nextCursor: null });
      const paged = await walk(path, 1);
      expect(paged.ids).toEqual(all);
      expect(paged.pages).toBe(all.length);
      expect(paged.total).toBe(all.length);
      const bad = await http().get(path).query({ after: 'not a cursor!' }).set(auth).expect(400);
      expect(bad.body.message).toMatch(/after/);
    });

    it('the old offset of /v1/scans and /v1/reports still pages, with a Deprecation header (RFC 9745); not together with after', async () => {
      for (const path of ['/v1/scans', '/v1/reports']) {
        const all = ((await http().get(path).set(auth).expect(200)).body.items as { id: string }[]).map((i) => i.id);
        const res = await http().get(path).query({ offset: 1, limit: 1 }).set(auth).expect(200);
        expect(res.headers.deprecation).toMatch(/^@\d+$/);
        expect(res.headers.link).toContain('rel="deprecation"');
        expect((res.body.items as { id: string }[]).map((i) => i.id)).toEqual(all.slice(1, 2));
        expect(res.body.offset).toBe(1);
        // Its nextCursor continues by `after` from there.
        if (all.length > 2) {
          const next = await http().get(path).query({ after: res.body.nextCursor as string, limit: 1 }).set(auth).expect(200);
          expect((next.body.items as { id: string }[]).map((i) => i.id)).toEqual(all.slice(2, 3));
        }
        const both = await http().get(path).query({ offset: 1, after: 'WyJ4Il0' }).set(auth).expect(400);
        expect(both.body.message).toContain('query.offset: give after or the deprecated offset, not both');
      }
    });

    it('/v1/findings: `cursor` (the deprecated alias of after) and offset answer with a Deprecation header, after does not', async () => {
      const first = await http().get('/v1/findings').query({ limit: 5 }).set(auth).expect(200);
      expect(first.headers.deprecation).toBeUndefined();
      const byAfter = await http().get('/v1/findings').query({ limit: 5, after: first.body.nextCursor as string }).set(auth).expect(200);
      expect(byAfter.headers.deprecation).toBeUndefined();
      const byCursor = await http().get('/v1/findings').query({ limit: 5, cursor: first.body.nextCursor as string }).set(auth).expect(200);
      expect(byCursor.headers.deprecation).toMatch(/^@\d+$/);
      expect(byCursor.body.items).toEqual(byAfter.body.items);
      const byOffset = await http().get('/v1/findings').query({ limit: 5, offset: 5 }).set(auth).expect(200);
      expect(byOffset.headers.deprecation).toMatch(/^@\d+$/);
      expect(byOffset.body.items).toEqual(byAfter.body.items);
    });
  });

  describe('POST /v1/forecasts/whatif takes YAML (item 6)', () => {
    const yamlOf = (text: string) => http().post('/v1/forecasts/whatif').set(auth).set('Content-Type', 'application/yaml').send(text);

    it('the shipped example scenario, as YAML (application/yaml and text/yaml), answers as its JSON does', async () => {
      const text = readFileSync(join(SAMPLE_FLEET, '..', '..', 'scenarios', 'black-friday.yaml'), 'utf8');
      const asYaml = await yamlOf(text).expect(200);
      const asJson = await http().post('/v1/forecasts/whatif').set(auth).send(parseYaml(text) as object).expect(200);
      expect(asYaml.body).toEqual(asJson.body);
      expect(asYaml.body.scenario).toBe('black-friday');
      const textYaml = await http().post('/v1/forecasts/whatif').set(auth).set('Content-Type', 'text/yaml').send(text).expect(200);
      expect(textYaml.body).toEqual(asJson.body);
    });

    it('a YAML body is checked by the scenario schema; one that does not parse is a 400 naming the line; the size limit holds', async () => {
      const invalid = await yamlOf('apiVersion: fleet-audit/v1\nkind: Scenario\nname: x\nsteps:\n  - addNodes: { cluster: storefront, count: many }\n').expect(400);
      expect(invalid.body.message).toMatch(/step 1 \(addNodes\) field addNodes\.count/);
      const broken = await yamlOf('apiVersion: fleet-audit/v1\nkind: Scenario\nname: x\nsteps:\n  - addNodes: { cluster: storefront, count: 2\n').expect(400);
      expect(broken.body.message).toMatch(/^body: not valid YAML: .*line \d+, column \d+/);
      expect(broken.body.message).not.toContain('\n');
      const huge = `apiVersion: fleet-audit/v1\nkind: Scenario\nname: x\n# ${'x'.repeat(200_000)}\nsteps: []\n`;
      await yamlOf(huge).expect(413);
    });
  });

  describe('GraphQL scanDiff defaults `against` to the previous succeeded scan, as REST (item 6)', () => {
    it('answers the same counts as REST without against, and names the missing baseline when there is none', async () => {
      const rest = await http().get(`/v1/scans/${second.id}/diff`).query({ limit: 1 }).set(auth).expect(200);
      const body = await gql(`query($id: ID!) { scanDiff(scanId: $id) { againstScanId counts { new resolved persisting severityChanged } } }`, { id: second.id });
      expect(body.errors).toBeUndefined();
      expect(body.data.scanDiff.againstScanId).toBe(first.id);
      expect(body.data.scanDiff.counts).toEqual(rest.body.counts);
      const none = await gql(`query($id: ID!) { scanDiff(scanId: $id) { againstScanId } }`, { id: first.id });
      expect(none.errors?.[0]?.message).toContain(`scan ${first.id} has no earlier succeeded scan`);
    });
  });

  describe('REST waiver creation validates the check id (item 7)', () => {
    it('a check id not in the catalogue is a 400 naming the nearest one; nothing is stored', async () => {
      const before = (await http().get('/v1/waivers').query({ limit: 1000 }).set(auth).expect(200)).body.total as number;
      const res = await http()
        .post('/v1/waivers')
        .set(auth)
        .send({ checkId: 'CLB_BACKEND_QOTA', accountId: '1234567890123456', resource: 'lb-*', owner: 'team-net', reason: 'accepted until the CLB split lands', category: 'accepted-risk' })
        .expect(400);
      expect(res.body.message).toContain('unknown check id "CLB_BACKEND_QOTA"; did you mean "CLB_BACKEND_QUOTA"?');
      expect(res.body.issues).toEqual([expect.objectContaining({ path: 'body.checkId' })]);
      expect((await http().get('/v1/waivers').query({ limit: 1000 }).set(auth).expect(200)).body.total).toBe(before);
    });
  });
});
