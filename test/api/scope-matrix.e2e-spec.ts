/**
 * The randomized scope matrix of issue 11 (item 2, "zero leaks and zero privilege escalations"), on a
 * real PostgreSQL: a seeded fast-check run of at least 1,000 requests, each a random token (every role
 * x account scope, plus expired, revoked, malformed, missing and the bootstrap token) on a random REST
 * route with random targets (objects of every account, absent ids). For every response it asserts:
 *  - the status is the one the policy prescribes (401 without a valid token, 403 below the route's role
 *    or for an action outside the scope, 404 for an object outside the scope exactly as for an absent one,
 *    409 / 2xx by the model's state);
 *  - the body names no account outside the token's scope, nor any object of such an account (every
 *    object of account X carries the marker `acctx` in its ids, owners and messages);
 *  - listings and counts equal the model's expectation over the scope (computed in SQL, not filtered
 *    afterwards, so totals must match too).
 * Mutating routes run against a model (waivers created, revoked; tokens created, revoked) so later
 * expectations follow. Seeded: a failure names the seed and the request, and replays exactly.
 */
import type { INestApplication } from '@nestjs/common';
import fc from 'fast-check';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Finding, FleetGraph, QuotaUsageSample } from '@app/domain';
import { createApiApp, type LaunchScanRequest, type ScanLauncher } from '@app/api';
import { generateToken, Store, type Role, type StoredScan } from '@app/store';
import { makeCoverage, makeFinding } from '../store/finding.factory';
import { createTestDatabase, type TestDatabase } from '../store/test-database.util';

const BOOTSTRAP = 'scope-matrix-e2e-bootstrap-0123456789';
const KEY = 'scope-matrix-e2e-hash-key-0123456789abcdef-0123';
/** Seed of the run (override with SCOPE_MATRIX_SEED to explore). */
const SEED = Number(process.env.SCOPE_MATRIX_SEED ?? 20261124);
const RUNS = 1100;

const ACCOUNTS = { a: '1000000000000001', b: '2000000000000002', c: '3000000000000003' } as const;
type Acct = keyof typeof ACCOUNTS;
const ACCTS = Object.keys(ACCOUNTS) as Acct[];
const ROLE_LIST: Role[] = ['viewer', 'operator', 'admin'];
const ROLE_RANK: Record<Role, number> = { viewer: 0, operator: 1, admin: 2 };
const MISSING_UUID = '00000000-0000-4000-8000-00000000dead';

/** A token of the pool: its secret, role and scope (null: every account), or an invalid one. */
interface PoolToken {
  label: string;
  header: string | null;
  valid: boolean;
  role: Role;
  scope: Acct[] | null;
  id: string | null;
}

/** What the model knows about a waiver. */
interface ModelWaiver {
  id: string;
  acct: Acct;
  ownerToken: string | null;
  revoked: boolean;
}

/** What a route's run returns: the status expected (or several acceptable) and extra checks. */
interface Outcome {
  expected: number | number[];
  check?: (body: unknown, text: string) => void;
  after?: (status: number, body: unknown) => void;
}

/** A route: how to call it for a token with random picks, and what must come back. */
interface Route {
  name: string;
  /** Lowest role (null: public). */
  role: Role | null;
  call(t: PoolToken, pick: number, acct: Acct): { method: 'get' | 'post' | 'patch' | 'delete'; path: string; body?: unknown; echo?: string[]; outcome: Outcome };
}

const inScope = (t: PoolToken, a: Acct) => t.scope === null || t.scope.includes(a);
const covers = (t: PoolToken, accts: Acct[] | null) => t.scope === null || (accts !== null && accts.every((a) => t.scope!.includes(a)));

/** A finding of account `a`, number i: ids, cluster and message carry the account marker. */
function findingOf(a: Acct, i: number, severity: Finding['severity'] = 'warning'): Finding {
  return makeFinding({
    checkId: i % 2 === 0 ? 'CLB_BACKEND_QUOTA' : 'NODEPORT_OVERLAP',
    severity,
    resource: { id: `lb-acct${a}-${String(i).padStart(3, '0')}`, accountId: ACCOUNTS[a], clusterId: `c-acct${a}`, name: `svc-acct${a}`, namespace: `ns-acct${a}` },
  });
}

function sampleOf(a: Acct, i: number): QuotaUsageSample {
  return {
    checkId: 'CLB_BACKEND_QUOTA',
    resource: { kind: 'LoadBalancer', id: `lb-acct${a}-${String(i).padStart(3, '0')}`, accountId: ACCOUNTS[a], regionId: 'cn-hangzhou', clusterId: `c-acct${a}` },
    used: 150 + i,
    limit: 200,
    ratio: (150 + i) / 200,
  };
}

/** A small stored fleet graph: per account one region, cluster, Service, CLB (with a vServer group) and ECS instance. */
function graphOf(): FleetGraph {
  const g: FleetGraph = { regions: [], clusters: [], services: [], loadBalancers: [], serverGroups: [], ecsInstances: [] };
  for (const x of ACCTS) {
    const base = { accountId: ACCOUNTS[x], regionId: 'cn-hangzhou' };
    const lb = `lb-acct${x}-000`;
    g.regions.push({ ...base, accountName: `name-acct${x}`, clusterCount: 1, loadBalancerCount: 1, ecsInstanceCount: 1 });
    g.clusters.push({ ...base, clusterId: `c-acct${x}`, name: `cluster-acct${x}`, clusterType: 'ManagedKubernetes', clusterSpec: null, state: 'running', currentVersion: null, ccmVersion: null, networkPlugin: 'terway', vpcId: null, apiServerLoadBalancerId: null, nodeCount: 1, serviceCount: 1 });
    g.services.push({ ...base, clusterId: `c-acct${x}`, namespace: `ns-acct${x}`, name: `svc-acct${x}`, uid: `uid-acct${x}`, loadBalancerClass: null, mode: 'local', externalTrafficPolicy: 'Local', ports: [{ name: null, protocol: 'TCP', port: 80, nodePort: 30080, targetPort: '8080' }], ingress: [], loadBalancerId: lb, loadBalancerMatch: 'annotation' });
    g.loadBalancers.push({ ...base, loadBalancerId: lb, name: `k8s-acct${x}`, addressType: 'intranet', address: null, vpcId: null, spec: null, status: 'active', createTime: null, owner: 'ccm', apiServerClusterId: null, listeners: [], listenerCount: 0, vServerGroupCount: 1, backendEntries: 1, distinctBackends: 1, serviceCount: 1, clusterIds: [`c-acct${x}`] });
    g.serverGroups.push({ ...base, loadBalancerId: lb, vServerGroupId: `rsp-acct${x}`, isDefault: false, name: `sg-acct${x}`, backends: [{ serverId: `i-acct${x}`, serverIp: null, port: 30080, weight: 100, type: 'ecs' }] });
    g.ecsInstances.push({ ...base, instanceId: `i-acct${x}`, name: null, zoneId: null, status: 'Running', instanceType: null, vpcId: null, privateIps: [], clusterId: `c-acct${x}`, nodeName: `node-acct${x}`, loadBalancerIds: [lb], serverGroupCount: 1 });
  }
  return g;
}

describe('randomized scope matrix: every REST route x every kind of token (e2e)', () => {
  let db: TestDatabase;
  let store: Store;
  let app: INestApplication;
  const http = () => request(app.getHttpServer());
  const pool: PoolToken[] = [];
  const waivers: ModelWaiver[] = [];
  const reports: { id: string; accts: Acct[] | null }[] = [];
  const victims: { id: string; accts: Acct[] | null }[] = [];
  const scans: { older?: StoredScan; latest?: StoredScan; failed?: StoredScan } = {};
  /** Findings per account in the latest scan (model of /v1/findings totals). */
  const latestFindings: Record<Acct, number> = { a: 0, b: 0, c: 0 };
  let requests = 0;
  const statusTally = new Map<number, number>();
  /** Statuses the bootstrap token gets on data-dependent routes (the reference for all-accounts tokens). */
  const reference: Record<string, number> = {};

  class RecordingLauncher implements ScanLauncher {
    async launch(_r: LaunchScanRequest): Promise<{ scanId: string }> {
      return { scanId: (await store.scans.create({ source: 'offline' })).id };
    }
  }

  beforeAll(async () => {
    db = await createTestDatabase();
    store = await Store.open({ connectionString: db.url, migrate: true, tokenHashKey: KEY });
    const coverage = ACCTS.map((a) => makeCoverage({ accountId: ACCOUNTS[a] }));
    const counts: Record<Acct, number> = { a: 7, b: 5, c: 3 };
    scans.older = await store.scans.create({ source: 'offline', startedAt: new Date(Date.now() - 8 * 86_400_000) });
    scans.older = await store.scans.complete(scans.older.id, {
      findings: ACCTS.flatMap((x) => Array.from({ length: counts[x] + 1 }, (_, i) => findingOf(x, i))),
      coverage,
      quotaUsage: ACCTS.flatMap((x) => [sampleOf(x, 0), sampleOf(x, 1)]),
    });
    scans.latest = await store.scans.create({ source: 'offline', startedAt: new Date(Date.now() - 86_400_000) });
    const latest = ACCTS.flatMap((x) => Array.from({ length: counts[x] }, (_, i) => findingOf(x, i + 1, i % 3 === 0 ? 'critical' : 'warning')));
    for (const x of ACCTS) latestFindings[x] = counts[x];
    scans.latest = await store.scans.complete(scans.latest.id, { findings: latest, coverage, quotaUsage: ACCTS.flatMap((x) => [sampleOf(x, 1), sampleOf(x, 2)]), graph: graphOf() });
    scans.failed = await store.scans.create({ source: 'offline', startedAt: new Date(Date.now() - 3_600_000) });
    scans.failed = await store.scans.fail(scans.failed.id, `AccessDenied on account ${ACCOUNTS.b} (role acctb-auditor)`);

    for (const x of ACCTS) {
      const w = await store.waiverService.create(
        { checkId: 'CLB_BACKEND_QUOTA', accountId: ACCOUNTS[x], resource: `lb-acct${x}-00*`, owner: `team-acct${x}`, reason: `accepted for acct${x} until the migration`, category: 'accepted-risk' },
        `admin-acct${x}`,
      );
      waivers.push({ id: w.id, acct: x, ownerToken: null, revoked: false });
    }
    for (const accts of [null, ['a'], ['b'], ['c'], ['a', 'b']] as (Acct[] | null)[]) {
      const key = accts === null ? 'all' : accts.map((x) => ACCOUNTS[x]).sort().join(',');
      const id = (await store.reports.claim('2026-11-23T06:00', key))!;
      const label = accts === null ? 'all' : accts.map((x) => `acct${x}`).join('+');
      await store.reports.complete(id, { document: { title: `report ${label}`, accounts: key }, summary: { findings: 1 }, periodStart: '2026-11-16T06:00:00.000Z', periodEnd: '2026-11-23T06:00:00.000Z', scanId: null });
      reports.push({ id, accts });
    }

    const scopes: (Acct[] | null)[] = [['a'], ['b'], ['a', 'b'], ['c'], null];
    for (const role of ROLE_LIST) {
      for (const scope of scopes) {
        const made = await store.apiTokens.create({ role, accounts: scope?.map((x) => ACCOUNTS[x]) ?? null, createdBy: 'test', name: `pool-${role}-${scope?.join('') ?? 'all'}` });
        pool.push({ label: `${role}:${scope?.join('+') ?? 'all'}`, header: `Bearer ${made.token}`, valid: true, role, scope, id: made.stored.id });
      }
    }
    const expired = await store.apiTokens.create({ role: 'admin', ttlMs: 60_000, createdBy: 'test', now: new Date(Date.now() - 120_000) });
    pool.push({ label: 'expired-admin', header: `Bearer ${expired.token}`, valid: false, role: 'admin', scope: null, id: expired.stored.id });
    const revoked = await store.apiTokens.create({ role: 'admin', createdBy: 'test' });
    await store.apiTokens.revoke(revoked.stored.id, 'test');
    pool.push({ label: 'revoked-admin', header: `Bearer ${revoked.token}`, valid: false, role: 'admin', scope: null, id: revoked.stored.id });
    pool.push({ label: 'unknown-well-formed', header: `Bearer ${generateToken().token}`, valid: false, role: 'admin', scope: null, id: null });
    pool.push({ label: 'malformed', header: 'Bearer fa_notatoken_x', valid: false, role: 'admin', scope: null, id: null });
    pool.push({ label: 'missing', header: null, valid: false, role: 'admin', scope: null, id: null });
    pool.push({ label: 'bootstrap', header: `Bearer ${BOOTSTRAP}`, valid: true, role: 'admin', scope: null, id: null });
    // Tokens the matrix may try to revoke (never used to authenticate).
    for (const accts of [['a'], ['b'], ['a', 'b'], ['c'], null] as (Acct[] | null)[]) {
      const v = await store.apiTokens.create({ role: 'viewer', accounts: accts?.map((x) => ACCOUNTS[x]) ?? null, createdBy: 'test', name: 'victim' });
      victims.push({ id: v.stored.id, accts });
    }

    app = await createApiApp({ store, token: BOOTSTRAP, scanLauncher: new RecordingLauncher(), logger: false, auth: { maxFailures: 1_000_000 } });
    await app.init();
    const boot = { Authorization: `Bearer ${BOOTSTRAP}` };
    reference.headroom = (await http().get('/v1/forecasts/headroom').set(boot)).status;
    reference.whatif = (await http().post('/v1/forecasts/whatif').set(boot).send(WHATIF)).status;
    reference.readyz = (await http().get('/readyz')).status;
  });

  afterAll(async () => {
    await app?.close();
    await store?.close();
    await db?.drop();
  });

  const WHATIF = { apiVersion: 'fleet-audit/v1', kind: 'Scenario', name: 'matrix', steps: [{ addNodes: { count: 1 } }] };

  /** The status a route's authorization prescribes before the route's own logic (null: passes). */
  function gate(t: PoolToken, route: Route): number | null {
    if (route.role === null) return null;
    if (!t.valid) return 401;
    if (ROLE_RANK[t.role] < ROLE_RANK[route.role]) return 403;
    return null;
  }

  const items = (body: unknown) => (body as { items: Record<string, unknown>[] }).items;
  const ROUTES: Route[] = [
    { name: 'GET /healthz', role: null, call: () => ({ method: 'get', path: '/healthz', outcome: { expected: 200 } }) },
    { name: 'GET /readyz', role: null, call: () => ({ method: 'get', path: '/readyz', outcome: { expected: reference.readyz } }) },
    { name: 'GET /metrics', role: 'viewer', call: () => ({ method: 'get', path: '/metrics', outcome: { expected: 200 } }) },
    {
      name: 'GET /v1/scans',
      role: 'viewer',
      call: (t) => ({
        method: 'get',
        path: '/v1/scans?limit=1000',
        outcome: {
          expected: 200,
          check: (body) => {
            const latest = items(body).find((s) => s.id === scans.latest!.id) as { summary: { findings: number } };
            expect(latest.summary.findings).toBe(ACCTS.filter((x) => inScope(t, x)).reduce((n, x) => n + latestFindings[x], 0));
          },
        },
      }),
    },
    {
      name: 'GET /v1/scans/{id}',
      role: 'viewer',
      call: (t, pick) => {
        const ids = [scans.older!.id, scans.latest!.id, scans.failed!.id, MISSING_UUID];
        const id = ids[pick % ids.length];
        return { method: 'get', path: `/v1/scans/${id}`, outcome: { expected: id === MISSING_UUID ? 404 : 200 } };
      },
    },
    {
      name: 'GET /v1/scans/{id}/diff',
      role: 'viewer',
      call: (t, pick) => {
        const missing = pick % 5 === 0;
        return {
          method: 'get',
          path: `/v1/scans/${scans.latest!.id}/diff?against=${missing ? MISSING_UUID : scans.older!.id}&limit=1000`,
          outcome: {
            expected: missing ? 404 : 200,
            check: (body) => {
              if (missing) return;
              // Per account in scope: 1 resolved (finding 0), the rest persisting or severityChanged, none new.
              const c = (body as { counts: Record<string, number> }).counts;
              const n = ACCTS.filter((x) => inScope(t, x));
              expect(c.resolved).toBe(n.length);
              expect(c.new).toBe(0);
              expect(c.persisting + c.severityChanged).toBe(n.reduce((s, x) => s + latestFindings[x], 0));
            },
          },
        };
      },
    },
    {
      name: 'POST /v1/scans',
      role: 'operator',
      call: () => ({ method: 'post', path: '/v1/scans', body: {}, outcome: { expected: 202 } }),
    },
    {
      name: 'GET /v1/findings',
      role: 'viewer',
      call: (t, pick, acct) => {
        const filtered = pick % 2 === 0;
        const expectedTotal = ACCTS.filter((x) => inScope(t, x) && (!filtered || x === acct)).reduce((n, x) => n + latestFindings[x], 0);
        return {
          method: 'get',
          path: `/v1/findings?limit=1000${filtered ? `&accountId=${ACCOUNTS[acct]}` : ''}`,
          echo: filtered ? [ACCOUNTS[acct]] : [],
          outcome: { expected: 200, check: (body) => expect((body as { total: number }).total).toBe(expectedTotal) },
        };
      },
    },
    {
      name: 'GET /v1/quotas',
      role: 'viewer',
      call: (t, pick, acct) => {
        const filtered = pick % 2 === 0;
        // Latest scan: 2 samples per account.
        const expectedTotal = 2 * ACCTS.filter((x) => inScope(t, x) && (!filtered || x === acct)).length;
        return {
          method: 'get',
          path: `/v1/quotas?limit=1000${filtered ? `&accountId=${ACCOUNTS[acct]}` : ''}`,
          echo: filtered ? [ACCOUNTS[acct]] : [],
          outcome: {
            expected: 200,
            check: (body) => {
              expect((body as { total: number }).total).toBe(expectedTotal);
              expect(items(body)).toHaveLength(expectedTotal);
            },
          },
        };
      },
    },
    {
      name: 'GET /v1/clusters',
      role: 'viewer',
      call: (t) => ({
        method: 'get',
        path: '/v1/clusters?limit=1000',
        outcome: {
          expected: 200,
          check: (body) => {
            const want = ACCTS.filter((x) => inScope(t, x)).map((x) => `c-acct${x}`);
            expect(items(body).map((c) => c.clusterId)).toEqual(want);
            expect((body as { total: number }).total).toBe(want.length);
          },
        },
      }),
    },
    ...(
      [
        ['load-balancers', (x: Acct) => `lb-acct${x}-000`, 'load balancer'],
        ['ecs-instances', (x: Acct) => `i-acct${x}`, 'ECS instance'],
      ] as const
    ).map(
      ([path, idOf, noun]): Route => ({
        name: `GET /v1/${path}/{id}`,
        role: 'viewer',
        call: (t, pick, acct) => {
          const missing = pick % 4 === 0;
          const id = missing ? `${idOf(acct)}-gone` : idOf(acct);
          const visible = !missing && inScope(t, acct);
          return {
            method: 'get',
            path: `/v1/${path}/${id}`,
            echo: [id],
            outcome: {
              expected: visible ? 200 : 404,
              check: (body) => (visible ? expect(JSON.stringify(body)).toContain(idOf(acct)) : expect((body as { message: string }).message).toBe(`${noun} ${id} not found`)),
            },
          };
        },
      }),
    ),
    { name: 'GET /v1/forecasts/trends', role: 'viewer', call: () => ({ method: 'get', path: '/v1/forecasts/trends', outcome: { expected: 200 } }) },
    {
      name: 'GET /v1/forecasts/headroom',
      role: 'viewer',
      call: (t) => ({ method: 'get', path: '/v1/forecasts/headroom', outcome: { expected: t.scope === null ? reference.headroom : 403 } }),
    },
    {
      name: 'POST /v1/forecasts/whatif',
      role: 'operator',
      call: (t) => ({ method: 'post', path: '/v1/forecasts/whatif', body: WHATIF, outcome: { expected: t.scope === null ? reference.whatif : 403 } }),
    },
    {
      name: 'GET /v1/reports',
      role: 'viewer',
      call: (t) => ({
        method: 'get',
        path: '/v1/reports',
        outcome: {
          expected: 200,
          check: (body) => {
            const want = reports.filter((r) => covers(t, r.accts)).map((r) => r.id).sort();
            expect(items(body).map((r) => r.id as string).sort()).toEqual(want);
            expect((body as { total: number }).total).toBe(want.length);
          },
        },
      }),
    },
    {
      name: 'GET /v1/reports/{id}',
      role: 'viewer',
      call: (t, pick) => {
        const r = pick % (reports.length + 1) === reports.length ? { id: MISSING_UUID, accts: null } : reports[pick % reports.length];
        const visible = r.id !== MISSING_UUID && covers(t, r.accts);
        return {
          method: 'get',
          path: `/v1/reports/${r.id}`,
          outcome: { expected: visible ? 200 : 404, check: (body) => (visible ? undefined : expect((body as { message: string }).message).toBe(`report ${r.id} not found`)) },
        };
      },
    },
    {
      name: 'GET /v1/waivers',
      role: 'viewer',
      call: (t) => ({
        method: 'get',
        path: '/v1/waivers?includeRevoked=true',
        outcome: {
          expected: 200,
          check: (body) => {
            const want = waivers.filter((w) => inScope(t, w.acct)).map((w) => w.id).sort();
            expect(items(body).map((w) => w.id as string).sort()).toEqual(want);
          },
        },
      }),
    },
    {
      name: 'GET /v1/waivers/{id}',
      role: 'viewer',
      call: (t, pick) => {
        const w = pick % (waivers.length + 1) === waivers.length ? null : waivers[pick % waivers.length];
        const id = w?.id ?? MISSING_UUID;
        const visible = w !== null && inScope(t, w.acct);
        return {
          method: 'get',
          path: `/v1/waivers/${id}`,
          outcome: { expected: visible ? 200 : 404, check: (body) => (visible ? undefined : expect((body as { message: string }).message).toBe(`waiver ${id} not found`)) },
        };
      },
    },
    {
      name: 'POST /v1/waivers',
      role: 'operator',
      call: (t, pick, acct) => ({
        method: 'post',
        path: '/v1/waivers',
        body: { checkId: 'NODEPORT_OVERLAP', accountId: ACCOUNTS[acct], resource: `lb-acct${acct}-${pick % 10}*`, owner: `team-acct${acct}`, reason: `matrix waiver for acct${acct} resources`, category: 'mitigated' },
        echo: [ACCOUNTS[acct]],
        outcome: {
          expected: inScope(t, acct) ? 201 : 403,
          after: (status, body) => {
            if (status === 201) waivers.push({ id: (body as { id: string }).id, acct, ownerToken: t.id, revoked: false });
          },
        },
      }),
    },
    ...(['patch', 'delete'] as const).map(
      (method): Route => ({
        name: `${method.toUpperCase()} /v1/waivers/{id}`,
        role: 'operator',
        call: (t, pick) => {
          const w = pick % (waivers.length + 1) === waivers.length ? null : waivers[pick % waivers.length];
          const id = w?.id ?? MISSING_UUID;
          let expected: number;
          if (w === null || !inScope(t, w.acct)) expected = 404;
          else if (t.role !== 'admin' && (t.id === null || t.id !== w.ownerToken)) expected = 403;
          else expected = w.revoked ? 409 : 200;
          return {
            method,
            path: method === 'delete' ? `/v1/waivers/${id}?by=matrix` : `/v1/waivers/${id}`,
            ...(method === 'patch' ? { body: { ticket: `T-${pick}` } } : {}),
            outcome: {
              expected,
              after: (status) => {
                if (method === 'delete' && status === 200 && w) w.revoked = true;
              },
            },
          };
        },
      }),
    ),
    {
      name: 'GET /v1/tokens',
      role: 'admin',
      call: (t) => ({
        method: 'get',
        path: '/v1/tokens',
        outcome: {
          expected: 200,
          check: (body) => {
            const mine: string[] | null = t.scope?.map((x) => ACCOUNTS[x]) ?? null;
            for (const tok of items(body)) {
              const accounts = tok.accounts as string[] | null;
              if (mine !== null) expect(accounts !== null && accounts.every((a) => mine.includes(a)), JSON.stringify(tok)).toBe(true);
            }
          },
        },
      }),
    },
    {
      name: 'POST /v1/tokens',
      role: 'admin',
      call: (t, pick, acct) => {
        const accts: Acct[] | null = pick % 3 === 0 ? null : pick % 3 === 1 ? [acct] : ['a', 'b'];
        const role = ROLE_LIST[pick % 3];
        return {
          method: 'post',
          path: '/v1/tokens',
          body: { role, ...(accts ? { accounts: accts.map((x) => ACCOUNTS[x]) } : {}), expiresInDays: 1, name: 'matrix' },
          echo: accts?.map((x) => ACCOUNTS[x]) ?? [],
          outcome: { expected: covers(t, accts) ? 201 : 403 },
        };
      },
    },
    {
      name: 'DELETE /v1/tokens/{id}',
      role: 'admin',
      call: (t, pick) => {
        const v = pick % (victims.length + 1) === victims.length ? { id: 'zzzzzzzzzzzz', accts: null } : victims[pick % victims.length];
        return { method: 'delete', path: `/v1/tokens/${v.id}`, outcome: { expected: v.id !== 'zzzzzzzzzzzz' && covers(t, v.accts) ? 200 : 404 } };
      },
    },
  ];

  /** Account markers the token must never see (ids and `acctx` markers of accounts outside its scope). */
  function forbidden(t: PoolToken): string[] {
    if (t.valid && t.scope === null) return [];
    return ACCTS.filter((x) => !(t.valid && inScope(t, x))).flatMap((x) => [ACCOUNTS[x], `acct${x}`]);
  }

  async function run(t: PoolToken, route: Route, pick: number, acct: Acct): Promise<void> {
    const c = route.call(t, pick, acct);
    let req = http()[c.method](c.path);
    if (t.header !== null) req = req.set('Authorization', t.header);
    const res = c.body === undefined ? await req : await req.send(c.body as object);
    requests += 1;
    statusTally.set(res.status, (statusTally.get(res.status) ?? 0) + 1);
    const where = `${t.label} ${c.method.toUpperCase()} ${c.path} -> ${res.status} ${res.text.slice(0, 300)}`;
    const gated = gate(t, route);
    const expected = gated ?? c.outcome.expected;
    expect(Array.isArray(expected) ? expected : [expected], where).toContain(res.status);
    // No other account's data: strip what the request itself sent (an error may echo it), then search.
    let text = res.text.toLowerCase();
    for (const e of c.echo ?? []) text = text.split(e.toLowerCase()).join('');
    for (const marker of forbidden(t)) expect(text.includes(marker), `${where}: leaks ${marker}`).toBe(false);
    if (gated === null && res.status < 300) c.outcome.check?.(res.body, res.text);
    c.outcome.after?.(res.status, res.body);
  }

  it(`answers ${RUNS} random (token, route, target) requests with the prescribed status and no other account's data (seed ${SEED})`, async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.nat(pool.length - 1),
        fc.nat(ROUTES.length - 1),
        fc.nat(1000),
        fc.constantFrom(...ACCTS),
        async (ti, ri, pick, acct) => run(pool[ti], ROUTES[ri], pick, acct),
      ),
      { seed: SEED, numRuns: RUNS, endOnFailure: true },
    );
    expect(requests).toBeGreaterThanOrEqual(1000);
    // The run exercised every outcome class (a matrix that only ever saw 200s proves nothing).
    for (const status of [200, 201, 202, 401, 403, 404, 409]) expect(statusTally.get(status) ?? 0, `status ${status} seen`).toBeGreaterThan(0);
  }, 600_000);

  it('covers every (token kind x route) pair once, deterministically, on top of the random run', async () => {
    for (const t of pool) for (const route of ROUTES) await run(t, route, 1, 'a');
    expect(requests).toBeGreaterThanOrEqual(pool.length * ROUTES.length);
  }, 600_000);
});
