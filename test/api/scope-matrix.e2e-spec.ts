/**
 * The randomized scope matrix ("zero leaks and zero privilege escalations"), on a
 * real PostgreSQL: a seeded fast-check run of random requests, each a random token (every role x account
 * scope, plus expired, revoked, malformed, missing and the bootstrap token) on a random endpoint: a REST
 * route, or a GraphQL root field (every Query and Mutation field of the served schema, with random
 * arguments, paging, and nested selections down the graph: accounts -> regions -> clusters -> services ->
 * loadBalancer -> vServerGroups -> backends -> ecsInstance, CLBs with the Services and clusters sharing
 * them and their quotas, ECS instances with their CLBs and cluster). For every response it asserts:
 *  - REST: the status is the one the policy prescribes (401 without a valid token, 403 below the route's
 *    role or for an action outside the scope, 404 for an object outside the scope exactly as for an
 *    absent one, 409 / 2xx by the model's state);
 *  - GraphQL: UNAUTHENTICATED (401) without a valid token, FORBIDDEN below the field's role or for an
 *    action outside the scope (and no side effect: no scan launched), an object outside the scope null
 *    exactly like a missing one, the cost / paging refusals where the query asks for them, else data
 *    without errors;
 *  - the body names no account outside the token's scope, nor any object of such an account (every
 *    object of account X carries the marker `acctx` in its ids, owners and messages), and every
 *    `accountId` in a GraphQL answer is within the scope;
 *  - listings, counts and totalCounts equal the model's expectation over the scope (computed in SQL,
 *    not filtered afterwards, so totals must match too), at every level of a nested GraphQL selection.
 * Mutating routes run against a model (waivers created, revoked; tokens created, revoked; scans
 * launched) so later expectations follow. Seeded: a failure names the seed and the request, and
 * replays exactly.
 *
 * Coverage enforces itself: the run fails when the served schema has a Query / Mutation field without
 * a generator here, or when some field of a type reachable from them was never selected by an
 * executed query (test/api/graphql-coverage.util.ts). A new field therefore needs a generator (and
 * an oracle) before this passes.
 */
/* eslint-disable @typescript-eslint/no-explicit-any -- GraphQL response bodies are walked as the query shaped them */
import { Agent } from 'node:http';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import { GraphQLSchemaHost } from '@nestjs/graphql';
import fc from 'fast-check';
import type { GraphQLSchema } from 'graphql/index.js';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildFleetGraph } from '@app/checks';
import { loadFleetDirectory } from '@app/collectors';
import type { Finding, FleetGraph, QuotaUsageSample } from '@app/domain';
import { createApiApp, type LaunchScanRequest, type ScanLauncher } from '@app/api';
import { defaultForecastWorkerEntry } from '@app/audit';
import { generateToken, Store, type Role, type StoredScan } from '@app/store';
import { makeCoverage, makeFinding } from '../store/finding.factory';
import { createTestDatabase, type TestDatabase } from '../store/test-database.util';
import { FieldCoverage, fullSelection, leafSelection, rootFields } from './graphql-coverage.util';

const BOOTSTRAP = 'scope-matrix-e2e-bootstrap-0123456789';
const KEY = 'scope-matrix-e2e-hash-key-0123456789abcdef-0123';
/** Seed of the run (override with SCOPE_MATRIX_SEED to explore). */
const SEED = Number(process.env.SCOPE_MATRIX_SEED ?? 20261124);
/**
 * Random requests of the run. 1,000 (was 1,500): with the default seed the random run alone has selected every
 * reachable schema field by its 1,000th request (the last ones near the 975th; the outcome classes are complete
 * with the pair run); the 500 more repeated the same kinds of requests, each forecast among them a new worker
 * thread. Every (token kind x endpoint) pair runs once anyway, deterministically, in the next test.
 */
const RUNS = 1000;
const SAMPLE = join(__dirname, '..', '..', 'examples', 'fleets', 'sample');
/** A cluster of the sample fleet (what-if steps). */
const SAMPLE_CLUSTER = 'c75849719d4432e7378507410f099fa74';

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
  /** The route may launch a scan (when it succeeds). */
  launches?: boolean;
  call(t: PoolToken, pick: number, acct: Acct): { method: 'get' | 'post' | 'patch' | 'delete'; path: string; body?: unknown; echo?: string[]; outcome: Outcome };
}

const inScope = (t: PoolToken, a: Acct) => t.scope === null || t.scope.includes(a);
const covers = (t: PoolToken, accts: Acct[] | null) => t.scope === null || (accts !== null && accts.every((a) => t.scope!.includes(a)));

/** A finding of account `a`, number i: ids, cluster and message carry the account marker. */
function findingOf(a: Acct, i: number, severity: Finding['severity'] = 'warning'): Finding {
  return makeFinding({
    checkId: i % 2 === 0 ? 'CLB_BACKEND_QUOTA' : 'NODEPORT_EPHEMERAL_OVERLAP',
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

/**
 * A small stored fleet graph: per account one region and cluster with three Services; CLB `lb-acctx-000` (CCM's,
 * one Service, a vServer group with the ECS instance) and `lb-acctx-001` (reused, shared by two Services, a vServer
 * group with the ECS instance and an ENI); one ECS instance backing both.
 */
function graphOf(): FleetGraph {
  const g: FleetGraph = { regions: [], clusters: [], services: [], loadBalancers: [], serverGroups: [], ecsInstances: [], nlbs: [] };
  for (const x of ACCTS) {
    const base = { accountId: ACCOUNTS[x], regionId: 'cn-hangzhou' };
    const [lb0, lb1] = [`lb-acct${x}-000`, `lb-acct${x}-001`];
    const cluster = `c-acct${x}`;
    // One NLB server group no NLB uses (left by a deleted NLB Service) beside the NLB's own.
    const leaked = { serverGroupId: `sgp-acct${x}-gone`, name: `k8s.30099.TCP.gone.ns-acct${x}.c-acct${x}`, type: 'Instance', protocol: 'TCP', status: 'Available', ownerTag: `agone${x}`, serverCount: 0, servers: [] };
    g.regions.push({ ...base, accountName: `name-acct${x}`, clusterCount: 1, loadBalancerCount: 2, ecsInstanceCount: 1, nlbServerGroupCount: 2, unusedNlbServerGroups: [leaked] });
    g.clusters.push({ ...base, clusterId: cluster, name: `cluster-acct${x}`, clusterType: 'ManagedKubernetes', clusterSpec: null, state: 'running', currentVersion: '1.30.1-aliyun.1', ccmVersion: 'v2.10.0', networkPlugin: 'terway', vpcId: `vpc-acct${x}`, apiServerLoadBalancerId: null, nodeCount: 1, serviceCount: 4, team: null });
    const svc = (name: string, lb: string, mode: 'local' | 'cluster', port: number) => ({
      ...base,
      clusterId: cluster,
      namespace: `ns-acct${x}`,
      name,
      uid: `uid-${name}`,
      loadBalancerClass: null,
      mode,
      externalTrafficPolicy: mode === 'local' ? 'Local' : 'Cluster',
      ports: [{ name: `p-acct${x}`, protocol: 'TCP', port, nodePort: 30000 + port, targetPort: '8080' }],
      ingress: [`10.0.${ACCTS.indexOf(x)}.${port}`],
      loadBalancerId: lb,
      loadBalancerMatch: 'annotation' as const,
      loadBalancerKind: 'clb' as const,
      nlbId: null,
      nlbMatch: null,
    });
    g.services.push(svc(`svc-acct${x}`, lb0, 'local', 80), svc(`svc-acct${x}-a`, lb1, 'cluster', 81), svc(`svc-acct${x}-b`, lb1, 'cluster', 82));
    // An NLB Service and its NLB `nlb-acctx-000` (CCM's: owner tag), one listener to one server group with the ECS instance.
    const nlb0 = `nlb-acct${x}-000`;
    g.services.push({
      ...svc(`svc-acct${x}-n`, lb0, 'cluster', 83),
      loadBalancerClass: 'alibabacloud.com/nlb',
      mode: null,
      loadBalancerId: null,
      loadBalancerMatch: null,
      loadBalancerKind: 'nlb',
      nlbId: nlb0,
      nlbMatch: 'tag',
      ingress: [`${nlb0}.cn-hangzhou.nlb.aliyuncs.com`],
    });
    g.nlbs.push({
      ...base,
      nlbId: nlb0,
      name: `k8s-${nlb0}`,
      addressType: 'Intranet',
      addressIpVersion: 'ipv4',
      vpcId: `vpc-acct${x}`,
      dnsName: `${nlb0}.cn-hangzhou.nlb.aliyuncs.com`,
      zoneIds: ['cn-hangzhou-h', 'cn-hangzhou-i'],
      status: 'Active',
      createTime: '2026-01-01T00:00:00Z',
      owner: 'ccm',
      listeners: [{ listenerId: `lsn-acct${x}`, protocol: 'TCP', port: 83, startPort: null, endPort: null, serverGroupId: `sgp-acct${x}`, description: `k8s.83.TCP.svc-acct${x}-n.ns-acct${x}.${cluster}`, status: 'Running' }],
      listenerCount: 1,
      serverGroups: [
        {
          serverGroupId: `sgp-acct${x}`,
          name: `k8s.83.TCP.svc-acct${x}-n.ns-acct${x}.${cluster}`,
          type: 'Instance',
          protocol: 'TCP',
          status: 'Available',
          ownerTag: null,
          serverCount: 1,
          servers: [{ serverId: `i-acct${x}`, serverIp: '10.0.0.9', type: 'Ecs', port: 30083, weight: 100, status: 'Available', zoneId: 'cn-hangzhou-h' }],
        },
      ],
      serverGroupCount: 1,
      serverEntries: 1,
      distinctServers: 1,
      serviceCount: 1,
      clusterIds: [cluster],
    });
    const lb = (id: string, owner: 'ccm' | 'reused', serviceCount: number, backends: number) => ({
      ...base,
      loadBalancerId: id,
      name: `k8s-${id}`,
      addressType: 'intranet',
      address: '10.1.0.1',
      vpcId: `vpc-acct${x}`,
      spec: 'slb.s1.small',
      status: 'active',
      createTime: '2026-01-01T00:00:00Z',
      owner,
      apiServerClusterId: null,
      listeners: [{ port: 80, protocol: 'tcp', vServerGroupId: `rsp-${id}`, forwardPort: null, description: `listener of acct${x}` }],
      listenerCount: 1,
      vServerGroupCount: 1,
      backendEntries: backends,
      distinctBackends: backends,
      serviceCount,
      clusterIds: [cluster],
    });
    g.loadBalancers.push(lb(lb0, 'ccm', 1, 1), lb(lb1, 'reused', 2, 2));
    const ecs = { serverId: `i-acct${x}`, serverIp: '10.0.0.9', port: 30080, weight: 100, type: 'ecs' };
    g.serverGroups.push(
      { ...base, loadBalancerId: lb0, vServerGroupId: `rsp-${lb0}`, isDefault: false, name: `sg-acct${x}-0`, backends: [ecs] },
      { ...base, loadBalancerId: lb1, vServerGroupId: `rsp-${lb1}`, isDefault: false, name: `sg-acct${x}-1`, backends: [ecs, { serverId: `eni-acct${x}`, serverIp: '10.0.0.10', port: 8080, weight: 50, type: 'eni' }] },
    );
    g.ecsInstances.push({ ...base, instanceId: `i-acct${x}`, name: `node-acct${x}`, zoneId: 'cn-hangzhou-h', status: 'Running', instanceType: 'ecs.g7.large', vpcId: `vpc-acct${x}`, privateIps: ['10.0.0.9'], clusterId: cluster, nodeName: `node-acct${x}`, loadBalancerIds: [lb0, lb1], serverGroupCount: 2, nlbServerGroupIds: [`sgp-acct${x}`], nlbIds: [nlb0] });
  }
  // References across accounts (not possible in Alibaba Cloud; probes of the nested reads' scoping): a CLB of
  // account a lists as a backend an ECS instance of account b whose id carries no marker. A token without b must
  // see the backend entry but a null ecsInstance; every field of the instance names b.
  const shared = g.serverGroups.find((sg) => sg.loadBalancerId === 'lb-accta-001')!;
  shared.backends.push({ serverId: SHARED_ECS, serverIp: '10.0.1.9', port: 30080, weight: 100, type: 'ecs' });
  // ... and names a cluster of account b among the clusters of its Services.
  Object.assign(g.loadBalancers.find((l) => l.loadBalancerId === 'lb-accta-001')!, { backendEntries: 3, distinctBackends: 3, clusterIds: ['c-accta', 'c-acctb'] });
  // ... and an NLB of account a names a cluster of account b too (a scoped token must not see it in `clusters`).
  Object.assign(g.nlbs.find((n) => n.nlbId === 'nlb-accta-000')!, { clusterIds: ['c-accta', 'c-acctb'] });
  g.ecsInstances.push({ accountId: ACCOUNTS.b, regionId: 'cn-hangzhou', instanceId: SHARED_ECS, name: 'node-acctb-shared', zoneId: 'cn-hangzhou-h', status: 'Running', instanceType: 'ecs.g7.large', vpcId: 'vpc-acctb', privateIps: ['10.0.1.9'], clusterId: 'c-acctb', nodeName: 'node-acctb-shared', loadBalancerIds: ['lb-accta-001'], serverGroupCount: 1, nlbServerGroupIds: [], nlbIds: [] });
  return g;
}

/** The ECS instance of account b that a CLB of account a lists (see graphOf). */
const SHARED_ECS = 'i-0shared0001';

/** The model of the stored findings: per scan, account and index (`findingOf(acct, idx, severity)`). */
interface ModelFinding {
  scan: 'older' | 'latest';
  acct: Acct;
  idx: number;
  checkId: string;
  severity: Finding['severity'];
}

/** The model of the stored quota samples (`sampleOf(acct, idx)`). */
interface ModelQuota {
  scan: 'older' | 'latest';
  acct: Acct;
  idx: number;
  ratio: number;
}

/** The API's default GraphQL cost limit (GRAPHQL_MAX_COST). */
const MAX_COST = 1000;

/** Random choices of one request, drawn from fast-check's values in order (replays with the seed). */
class Rolls {
  private i = 0;
  constructor(private readonly xs: readonly number[]) {}
  /** A value in 0..n-1. */
  next(n: number): number {
    return this.xs[this.i++ % this.xs.length]! % n;
  }
  pick<T>(xs: readonly T[]): T {
    return xs[this.next(xs.length)]!;
  }
  /** True one time in `k`. */
  chance(k: number): boolean {
    return this.next(k) === 0;
  }
}

/** Relay paging arguments of a connection and what they ask for. */
interface Page {
  args: string[];
  /** Items asked for (0 when invalid). */
  n: number;
  forward: boolean;
  /** Refused by the paging rule (exactly one of first / last, 1..100). */
  invalid: boolean;
  /** The page size the cost model charges (out-of-range and missing sizes count as 100). */
  costSize: number;
}

/** Random paging: `first` or `last` of 1..max; with `allowInvalid`, sometimes a combination the API must refuse. */
function pageOf(r: Rolls, opts: { max?: number; allowInvalid?: boolean } = {}): Page {
  if (opts.allowInvalid && r.chance(12)) {
    const args = r.pick([[], ['first: 0'], ['first: 101'], ['last: 0'], ['last: 101'], ['first: 1', 'last: 1']]);
    return { args, n: 0, forward: true, invalid: true, costSize: args.length === 2 ? 1 : 100 };
  }
  const max = opts.max ?? 100;
  const n = Math.min(max, r.pick([1, 2, 3, max, 1 + r.next(max)]));
  const forward = !r.chance(4);
  return { args: [`${forward ? 'first' : 'last'}: ${n}`], n, forward, invalid: false, costSize: n };
}

/** A GraphQL argument value: a string or number literal, an enum value, or absent. */
type Lit = string | number | { enum: string } | undefined;

/** `(a: 1, b: "x")` from paging arguments and named values (absent ones left out); empty without any. */
function argList(page: readonly string[], named: Record<string, Lit>): string {
  const parts = [...page];
  for (const [k, v] of Object.entries(named)) if (v !== undefined) parts.push(`${k}: ${typeof v === 'object' ? v.enum : JSON.stringify(v)}`);
  return parts.length > 0 ? `(${parts.join(', ')})` : '';
}

/** The string values a request sends (an error may echo them back). */
const echoOf = (named: Record<string, Lit>): string[] => Object.values(named).filter((v): v is string => typeof v === 'string');

/** One GraphQL request of the matrix and the model's answer. */
interface GqlCall {
  query: string;
  variables?: Record<string, unknown>;
  /** Strings the request sends (stripped before the leak search). */
  echo?: string[];
  /** The error code expected for a token with the field's role (null: data without errors). */
  error?: string | null;
  /** Checks of the data against the model (when no error is expected). */
  check?: (data: any) => void;
}

/** The generator of one GraphQL root field. */
interface GqlField {
  /** `Query.x` / `Mutation.y`. */
  field: string;
  /** Lowest role. */
  role: Role;
  /** The field may launch a scan (when it succeeds). */
  launches?: boolean;
  call(t: PoolToken, r: Rolls, acct: Acct): GqlCall;
}

describe('randomized scope matrix: every REST route and GraphQL field x every kind of token (e2e)', () => {
  let db: TestDatabase;
  let store: Store;
  let app: INestApplication;
  let schema: GraphQLSchema;
  let coverage: FieldCoverage;
  /**
   * One keep-alive connection to the app, which listens once for the whole file: some 2,000 requests run one after
   * the other, and supertest on a server that is not listening starts and closes it around every request, each
   * over a new TCP connection (a 200 from /healthz took 3.7 ms). What is requested and checked is unchanged.
   */
  const keepAlive = new Agent({ keepAlive: true, maxSockets: 1 });
  const http = () => {
    const server = request(app.getHttpServer());
    return {
      get: (path: string) => server.get(path).agent(keepAlive),
      post: (path: string) => server.post(path).agent(keepAlive),
      patch: (path: string) => server.patch(path).agent(keepAlive),
      delete: (path: string) => server.delete(path).agent(keepAlive),
    };
  };
  const pool: PoolToken[] = [];
  const waivers: ModelWaiver[] = [];
  const reports: { id: string; accts: Acct[] | null }[] = [];
  const victims: { id: string; accts: Acct[] | null }[] = [];
  /** Every token stored (the model of token listings): its account scope. */
  const tokenModel: { id: string; accts: Acct[] | null }[] = [];
  const scans: { older?: StoredScan; latest?: StoredScan; failed?: StoredScan } = {};
  const graph = graphOf();
  /** Clusters of the stored sample snapshot (headroom answers one entry per cluster). */
  let sampleClusters = 0;
  const modelFindings: ModelFinding[] = [];
  const modelQuotas: ModelQuota[] = [];
  /** Findings per account in the latest scan (model of /v1/findings totals). */
  const latestFindings: Record<Acct, number> = { a: 0, b: 0, c: 0 };
  let requests = 0;
  let gqlRequests = 0;
  const statusTally = new Map<number, number>();
  /** GraphQL outcomes seen: error code (or `data`) -> HTTP statuses. */
  const gqlTally = new Map<string, Map<number, number>>();
  /** Statuses the bootstrap token gets on data-dependent routes (the reference for all-accounts tokens). */
  const reference: Record<string, number> = {};

  /** Launches scans as rows of the store (status running); counts them (the model of scan totals and of side effects). */
  class RecordingLauncher implements ScanLauncher {
    launched = 0;
    sourceNames(): string[] {
      return ['offline', 'alibaba'];
    }
    async launch(_r: LaunchScanRequest): Promise<{ scanId: string }> {
      this.launched += 1;
      return { scanId: (await store.scans.create({ source: 'offline' })).id };
    }
  }
  const launcher = new RecordingLauncher();

  beforeAll(async () => {
    db = await createTestDatabase();
    store = await Store.open({ connectionString: db.url, migrate: true, tokenHashKey: KEY });
    const scanCoverage = ACCTS.map((a) => makeCoverage({ accountId: ACCOUNTS[a] }));
    const counts: Record<Acct, number> = { a: 7, b: 5, c: 3 };
    const older = ACCTS.flatMap((x) => Array.from({ length: counts[x] + 1 }, (_, i) => ({ scan: 'older' as const, acct: x, idx: i, severity: 'warning' as const })));
    const latest = ACCTS.flatMap((x) => Array.from({ length: counts[x] }, (_, i) => ({ scan: 'latest' as const, acct: x, idx: i + 1, severity: i % 3 === 0 ? ('critical' as const) : ('warning' as const) })));
    const olderQuotas = ACCTS.flatMap((x) => [0, 1].map((idx) => ({ scan: 'older' as const, acct: x, idx })));
    const latestQuotas = ACCTS.flatMap((x) => [1, 2].map((idx) => ({ scan: 'latest' as const, acct: x, idx })));
    for (const f of [...older, ...latest]) modelFindings.push({ ...f, checkId: findingOf(f.acct, f.idx).checkId });
    for (const q of [...olderQuotas, ...latestQuotas]) modelQuotas.push({ ...q, ratio: sampleOf(q.acct, q.idx).ratio });
    scans.older = await store.scans.create({ source: 'offline', startedAt: new Date(Date.now() - 8 * 86_400_000) });
    scans.older = await store.scans.complete(scans.older.id, {
      findings: older.map((f) => findingOf(f.acct, f.idx, f.severity)),
      coverage: scanCoverage,
      quotaUsage: olderQuotas.map((q) => sampleOf(q.acct, q.idx)),
    });
    scans.latest = await store.scans.create({ source: 'offline', startedAt: new Date(Date.now() - 86_400_000) });
    const snapshot = loadFleetDirectory(SAMPLE);
    sampleClusters = buildFleetGraph(snapshot).clusters.length;
    for (const x of ACCTS) latestFindings[x] = counts[x];
    // The latest scan also keeps a fleet snapshot (the bundled sample), so headroom and what-ifs answer for all-accounts tokens.
    scans.latest = await store.scans.complete(scans.latest.id, {
      findings: latest.map((f) => findingOf(f.acct, f.idx, f.severity)),
      coverage: scanCoverage,
      quotaUsage: latestQuotas.map((q) => sampleOf(q.acct, q.idx)),
      graph,
      snapshot,
    });
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
        tokenModel.push({ id: made.stored.id, accts: scope });
      }
    }
    const expired = await store.apiTokens.create({ role: 'admin', ttlMs: 60_000, createdBy: 'test', now: new Date(Date.now() - 120_000) });
    pool.push({ label: 'expired-admin', header: `Bearer ${expired.token}`, valid: false, role: 'admin', scope: null, id: expired.stored.id });
    tokenModel.push({ id: expired.stored.id, accts: null });
    const revoked = await store.apiTokens.create({ role: 'admin', createdBy: 'test' });
    await store.apiTokens.revoke(revoked.stored.id, 'test');
    pool.push({ label: 'revoked-admin', header: `Bearer ${revoked.token}`, valid: false, role: 'admin', scope: null, id: revoked.stored.id });
    tokenModel.push({ id: revoked.stored.id, accts: null });
    pool.push({ label: 'unknown-well-formed', header: `Bearer ${generateToken().token}`, valid: false, role: 'admin', scope: null, id: null });
    pool.push({ label: 'malformed', header: 'Bearer fa_notatoken_x', valid: false, role: 'admin', scope: null, id: null });
    pool.push({ label: 'missing', header: null, valid: false, role: 'admin', scope: null, id: null });
    pool.push({ label: 'bootstrap', header: `Bearer ${BOOTSTRAP}`, valid: true, role: 'admin', scope: null, id: null });
    // Tokens the matrix may try to revoke (never used to authenticate).
    for (const accts of [['a'], ['b'], ['a', 'b'], ['c'], null] as (Acct[] | null)[]) {
      const v = await store.apiTokens.create({ role: 'viewer', accounts: accts?.map((x) => ACCOUNTS[x]) ?? null, createdBy: 'test', name: 'victim' });
      victims.push({ id: v.stored.id, accts });
      tokenModel.push({ id: v.stored.id, accts });
    }

    // The forecast worker of the suite's build (test/global-setup.ts): the sources under test, not a stale dist/.
    app = await createApiApp({
      store,
      token: BOOTSTRAP,
      scanLauncher: launcher,
      logger: false,
      auth: { maxFailures: 1_000_000 },
      // The random run launches hundreds of scans a minute with a few tokens: no launch budget in the way.
      scanLaunchesPerMinute: 100_000,
      forecasts: { workerEntry: defaultForecastWorkerEntry(process.env.FLEET_AUDIT_DIST) },
    });
    await app.listen(0, '127.0.0.1');
    schema = app.get(GraphQLSchemaHost).schema;
    coverage = new FieldCoverage(schema);
    reference.readyz = (await http().get('/readyz')).status;
  });

  afterAll(async () => {
    keepAlive.destroy();
    await app?.close();
    await store?.close();
    await db?.release();
  });

  /** A what-if on the stored sample snapshot (one node more in a cluster of the sample fleet). */
  const WHATIF = { apiVersion: 'fleet-audit/v1', kind: 'Scenario', name: 'matrix', steps: [{ addNodes: { cluster: SAMPLE_CLUSTER, count: 1 } }] };
  const PLAN_MANIFESTS = 'apiVersion: v1\nkind: Service\nmetadata: {name: matrix, namespace: default}\nspec: {type: LoadBalancer, ports: [{port: 80}]}\n';
  const PLAN = { cluster: SAMPLE_CLUSTER, manifests: PLAN_MANIFESTS };

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
      launches: true,
      // The default source does not list its accounts before it is read: only an all-accounts token may start it.
      call: (t) => ({ method: 'post', path: '/v1/scans', body: {}, outcome: { expected: t.scope === null ? 202 : 403 } }),
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
    {
      name: 'GET /v1/nlb-server-groups/unused',
      role: 'viewer',
      call: (t, pick, acct) => {
        const filtered = pick % 2 === 0;
        const want = ACCTS.filter((x) => inScope(t, x) && (!filtered || x === acct)).map((x) => `sgp-acct${x}-gone`);
        return {
          method: 'get',
          path: `/v1/nlb-server-groups/unused${filtered ? `?accountId=${ACCOUNTS[acct]}` : ''}`,
          echo: filtered ? [ACCOUNTS[acct]] : [],
          outcome: {
            expected: 200,
            check: (body) => {
              const b = body as { regions: { unusedNlbServerGroups: { serverGroupId: string }[] }[]; total: number };
              expect(b.regions.flatMap((r) => r.unusedNlbServerGroups.map((g) => g.serverGroupId))).toEqual(want);
              expect(b.total).toBe(want.length);
            },
          },
        };
      },
    },
    {
      name: 'GET /v1/nlbs',
      role: 'viewer',
      call: (t, pick, acct) => {
        const filtered = pick % 2 === 0;
        const want = ACCTS.filter((x) => inScope(t, x) && (!filtered || x === acct)).map((x) => `nlb-acct${x}-000`);
        return {
          method: 'get',
          path: `/v1/nlbs?limit=1000${filtered ? `&accountId=${ACCOUNTS[acct]}` : ''}`,
          echo: filtered ? [ACCOUNTS[acct]] : [],
          outcome: {
            expected: 200,
            check: (body) => {
              expect(items(body).map((n) => n.nlbId)).toEqual(want);
              expect((body as { total: number }).total).toBe(want.length);
              // clusterIds narrowed to the token's clusters (nlb-accta-000 also names c-acctb).
              for (const n of items(body)) for (const c of n.clusterIds as string[]) expect(inScope(t, c.slice('c-acct'.length) as Acct), `clusterId ${c} in scope`).toBe(true);
            },
          },
        };
      },
    },
    ...(
      [
        ['load-balancers', (x: Acct, pick: number) => `lb-acct${x}-00${pick % 2}`, 'load balancer'],
        ['nlbs', (x: Acct) => `nlb-acct${x}-000`, 'NLB'],
        // Sometimes account b's instance that a CLB of account a lists (its CLBs must stay within the scope).
        ['ecs-instances', (x: Acct, pick: number) => (x === 'b' && pick % 3 === 0 ? SHARED_ECS : `i-acct${x}`), 'ECS instance'],
      ] as const
    ).map(
      ([path, idOf, noun]): Route => ({
        name: `GET /v1/${path}/{id}`,
        role: 'viewer',
        call: (t, pick, acct) => {
          const missing = pick % 4 === 0;
          const id = missing ? `${idOf(acct, pick)}-gone` : idOf(acct, pick);
          const visible = !missing && inScope(t, acct);
          return {
            method: 'get',
            path: `/v1/${path}/${id}`,
            echo: [id],
            outcome: {
              expected: visible ? 200 : 404,
              check: (body) => (visible ? expect(JSON.stringify(body)).toContain(id) : expect((body as { message: string }).message).toBe(`${noun} ${id} not found`)),
            },
          };
        },
      }),
    ),
    { name: 'GET /v1/forecasts/trends', role: 'viewer', call: () => ({ method: 'get', path: '/v1/forecasts/trends', outcome: { expected: 200 } }) },
    {
      name: 'GET /v1/forecasts/headroom',
      role: 'viewer',
      // Headroom answers within the scope: the sample snapshot's clusters are in none of the scoped tokens' accounts.
      call: (t) => ({
        method: 'get',
        path: '/v1/forecasts/headroom',
        outcome: { expected: 200, check: (body) => expect((body as { headroom: unknown[] }).headroom).toHaveLength(t.scope === null ? sampleClusters : 0) },
      }),
    },
    {
      name: 'POST /v1/forecasts/whatif',
      role: 'operator',
      // A what-if may change only clusters within the scope: the sample cluster is outside every scoped token's.
      call: (t) => ({ method: 'post', path: '/v1/forecasts/whatif', body: WHATIF, outcome: { expected: t.scope === null ? 200 : 403 } }),
    },
    {
      name: 'GET /v1/quota-plan',
      role: 'viewer',
      // Rows of the token's accounts only (a team token: where its teams own a cluster).
      call: (t) => ({
        method: 'get',
        path: '/v1/quota-plan',
        outcome: {
          expected: 200,
          check: (body) => {
            for (const r of (body as { rows: { accountId: string }[] }).rows) expect(t.scope === null || t.scope.some((x) => ACCOUNTS[x] === r.accountId), `row of ${r.accountId} in scope`).toBe(true);
          },
        },
      }),
    },
    {
      name: 'POST /v1/plans',
      role: 'operator',
      // A plan targets one cluster within the scope: the sample cluster is outside every scoped token's.
      call: (t) => ({ method: 'post', path: '/v1/plans', body: PLAN, outcome: { expected: t.scope === null ? 200 : 403 } }),
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
        body: { checkId: 'NODEPORT_EPHEMERAL_OVERLAP', accountId: ACCOUNTS[acct], resource: `lb-acct${acct}-${pick % 10}*`, owner: `team-acct${acct}`, reason: `matrix waiver for acct${acct} resources`, category: 'mitigated' },
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
      name: 'GET /v1/whoami',
      role: 'viewer',
      call: (t) => ({
        method: 'get',
        path: '/v1/whoami',
        outcome: {
          expected: 200,
          check: (body) => {
            const me = body as { role: string; kind: string; tokenId: string | null; accounts: string[] | null; teams: string[] | null };
            expect(me).toEqual({
              role: t.role,
              kind: t.id === null ? 'bootstrap' : 'token',
              tokenId: t.id,
              tokenName: t.id === null ? null : expect.any(String),
              accounts: t.scope === null ? null : t.scope.map((x) => ACCOUNTS[x]).sort(),
              teams: null,
            });
          },
        },
      }),
    },
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
          outcome: {
            expected: covers(t, accts) ? 201 : 403,
            after: (status, body) => {
              if (status === 201) tokenModel.push({ id: (body as { id: string }).id, accts });
            },
          },
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

  // ---------------------------------------------------------------------------------------------------
  // GraphQL: one generator per root field, each a random operation with the model's expected answer.
  // ---------------------------------------------------------------------------------------------------

  /** Scans a GraphQL argument may name: by the model's key (default: the field's default, the latest succeeded). */
  type ScanKey = 'latest' | 'older' | 'failed' | 'missing' | 'garbage';
  const scanIdOf = (k: ScanKey): string => ({ latest: scans.latest!.id, older: scans.older!.id, failed: scans.failed!.id, missing: MISSING_UUID, garbage: 'not-a-scan-id' })[k];
  function scanPick(r: Rolls): { key: ScanKey; id: string | undefined } {
    const k = r.pick(['default', 'default', 'latest', 'older', 'failed', 'missing', 'garbage'] as const);
    return k === 'default' ? { key: 'latest', id: undefined } : { key: k, id: scanIdOf(k) };
  }
  /** A filter value: absent, the picked account's own value, or one matching nothing. */
  const optional = <T>(r: Rolls, own: T, none: T): T | undefined => r.pick([undefined, undefined, own, none]);

  const leaf = (type: string) => leafSelection(schema, type);
  const full = (type: string, page = 'first: 3') => fullSelection(schema, type, page);
  const acctOfId = (accountId: string) => ACCTS.find((x) => ACCOUNTS[x] === accountId)!;
  const inScopeId = (t: PoolToken, accountId: string) => t.scope === null || t.scope.some((x) => ACCOUNTS[x] === accountId);

  /** Every `accountId` anywhere in a GraphQL answer is within the token's scope. */
  function expectAccountsInScope(t: PoolToken, v: unknown, where: string): void {
    if (Array.isArray(v)) v.forEach((x) => expectAccountsInScope(t, x, where));
    else if (v !== null && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) {
        if (k === 'accountId' && typeof x === 'string') expect(inScopeId(t, x), `${where}: accountId ${x} outside the scope`).toBe(true);
        else expectAccountsInScope(t, x, where);
      }
    }
  }

  /**
   * A node selection: its text, its cost (the server's model: a connection costs 1 + n x max(1,
   * node), a root field 1 + its selection, other fields their selection) and its oracle.
   */
  interface NodeSel {
    text: string;
    cost: number;
    check(node: any, where: string): void;
  }
  const CONN = (nodes: string) => `totalCount pageInfo { hasNextPage hasPreviousPage startCursor endCursor } edges { cursor node { __typename } } nodes { ${nodes} }`;

  /** Check a connection against the model's total for a page `p`. */
  function expectConn(c: any, total: number, p: Page, where: string): void {
    expect(c.totalCount, `${where}.totalCount`).toBe(total);
    const len = Math.min(p.n, total);
    expect(c.nodes, `${where}.nodes`).toHaveLength(len);
    expect(c.edges, `${where}.edges`).toHaveLength(len);
    expect(p.forward ? c.pageInfo.hasNextPage : c.pageInfo.hasPreviousPage, `${where}: more pages`).toBe(total > p.n);
    expect(c.pageInfo.startCursor, `${where}.startCursor`).toBe(len > 0 ? c.edges[0].cursor : null);
  }

  /** A nested connection field of a node. */
  function connField(name: string, p: Page, node: NodeSel, total: (parent: any) => number): NodeSel {
    return {
      text: `${name}${argList(p.args, {})} { ${CONN(node.text)} }`,
      cost: 1 + p.costSize * Math.max(1, node.cost),
      check(parent, where) {
        const c = parent[name];
        expectConn(c, total(parent), p, `${where}.${name}`);
        c.nodes.forEach((n: any, i: number) => node.check(n, `${where}.${name}[${i}]`));
      },
    };
  }

  /** A nested object field of a node: null exactly when `isNull(parent)`. */
  function objField(name: string, node: NodeSel, isNull: (parent: any) => boolean): NodeSel {
    return {
      text: `${name} { ${node.text} }`,
      cost: node.cost,
      check(parent, where) {
        if (isNull(parent)) expect(parent[name], `${where}.${name}`).toBeNull();
        else {
          expect(parent[name], `${where}.${name}`).not.toBeNull();
          node.check(parent[name], `${where}.${name}`);
        }
      },
    };
  }

  /** The leaves of `type`, its nested fields, and the model's check of one node of it. */
  function nodeOf(type: string, check: (node: any, where: string) => void, fields: NodeSel[] = []): NodeSel {
    return {
      text: [leaf(type), ...fields.map((f) => f.text)].join(' '),
      cost: fields.reduce((n, f) => n + f.cost, 0),
      check(node, where) {
        check(node, where);
        for (const f of fields) f.check(node, where);
      },
    };
  }

  const small = (r: Rolls) => pageOf(r, { max: 3 });
  const model = {
    cluster: (id: string) => graph.clusters.find((c) => c.clusterId === id),
    lb: (id: string) => graph.loadBalancers.find((l) => l.loadBalancerId === id),
    nlb: (id: string) => graph.nlbs.find((n) => n.nlbId === id),
    ecs: (id: string) => graph.ecsInstances.find((e) => e.instanceId === id),
    groups: (lbId: string) => graph.serverGroups.filter((g) => g.loadBalancerId === lbId),
    /** Quota samples of the latest scan on a resource id. */
    quotasOf: (id: string) => modelQuotas.filter((q) => q.scan === 'latest' && `lb-acct${q.acct}-${String(q.idx).padStart(3, '0')}` === id),
  };

  /** The CLBs of an ECS instance the token sees (an instance of one account may be listed by another's CLB). */
  const lbsOfEcs = (t: PoolToken, id: string) => model.ecs(id)!.loadBalancerIds.filter((l) => inScopeId(t, model.lb(l)!.accountId)).length;

  /** Node checks against the model graph (in scope, same counts). */
  const checks = {
    cluster: (t: PoolToken) => (n: any, where: string) => {
      const m = model.cluster(n.clusterId);
      expect(m, `${where}: cluster ${n.clusterId} in the model`).toBeDefined();
      expect(inScopeId(t, n.accountId), `${where}: in scope`).toBe(true);
      expect([n.accountId, n.serviceCount, n.nodeCount], where).toEqual([m!.accountId, m!.serviceCount, m!.nodeCount]);
    },
    service: (t: PoolToken) => (n: any, where: string) => {
      const m = graph.services.find((s) => s.clusterId === n.clusterId && s.namespace === n.namespace && s.name === n.name);
      expect(m, `${where}: Service ${n.name} in the model`).toBeDefined();
      expect(inScopeId(t, n.accountId), `${where}: in scope`).toBe(true);
      expect([n.loadBalancerId, n.mode, n.ports.length, n.loadBalancerKind, n.nlbId], where).toEqual([m!.loadBalancerId, m!.mode, m!.ports.length, m!.loadBalancerKind, m!.nlbId]);
    },
    nlb: (t: PoolToken) => (n: any, where: string) => {
      const m = model.nlb(n.nlbId);
      expect(m, `${where}: NLB ${n.nlbId} in the model`).toBeDefined();
      expect(inScopeId(t, n.accountId), `${where}: in scope`).toBe(true);
      expect([n.owner, n.serviceCount, n.serverEntries, n.listeners.length], where).toEqual([m!.owner, m!.serviceCount, m!.serverEntries, m!.listeners.length]);
      if (n.serverGroups) expect(n.serverGroups.map((g: any) => g.servers.length), where).toEqual(m!.serverGroups.map((g) => g.servers.length));
    },
    lb: (t: PoolToken) => (n: any, where: string) => {
      const m = model.lb(n.loadBalancerId);
      expect(m, `${where}: CLB ${n.loadBalancerId} in the model`).toBeDefined();
      expect(inScopeId(t, n.accountId), `${where}: in scope`).toBe(true);
      expect([n.owner, n.serviceCount, n.backendEntries, n.listenerCount, n.listeners.length], where).toEqual([m!.owner, m!.serviceCount, m!.backendEntries, m!.listenerCount, m!.listeners.length]);
    },
    group: () => (n: any, where: string) => {
      const m = graph.serverGroups.find((g) => g.loadBalancerId === n.loadBalancerId && g.vServerGroupId === n.vServerGroupId);
      expect(m, `${where}: server group ${n.vServerGroupId} in the model`).toBeDefined();
      expect(n.backendCount, where).toBe(m!.backends.length);
    },
    backend: () => (n: any, where: string) => expect(['ecs', 'eni', 'eci'], where).toContain(n.type),
    ecs: (t: PoolToken) => (n: any, where: string) => {
      const m = model.ecs(n.instanceId);
      expect(m, `${where}: ECS ${n.instanceId} in the model`).toBeDefined();
      expect(inScopeId(t, n.accountId), `${where}: in scope`).toBe(true);
      expect([n.clusterId, n.serverGroupCount, n.nlbServerGroupIds], where).toEqual([m!.clusterId, m!.serverGroupCount, m!.nlbServerGroupIds]);
    },
    quota: (t: PoolToken) => (n: any, where: string) => expect(inScopeId(t, n.resource.accountId), `${where}: in scope`).toBe(true),
    none: () => () => undefined,
  };

  /** Nested selections shared by the graph generators (each takes its random pages from `r`). */
  const sel = {
    /** ServerGroup -> backends -> ecsInstance (-> `ecsFields`). */
    group: (t: PoolToken, r: Rolls, ecsFields: NodeSel[] = []) =>
      nodeOf('ServerGroup', checks.group(), [
        connField(
          'backends',
          small(r),
          nodeOf('Backend', checks.backend(), [objField('ecsInstance', nodeOf('EcsInstance', checks.ecs(t), ecsFields), (b) => b.type !== 'ecs' || !inScopeId(t, model.ecs(b.serverId)!.accountId))]),
          (g) => g.backendCount,
        ),
      ]),
    /** LoadBalancer with its Services, clusters, quotas and server groups (down to `ecsFields` of the backends' ECS). */
    lb: (t: PoolToken, r: Rolls, opts: { ecsFields?: NodeSel[]; serviceFields?: NodeSel[]; clusterFields?: NodeSel[] } = {}) =>
      nodeOf('LoadBalancer', checks.lb(t), [
        connField('services', small(r), nodeOf('Service', checks.service(t), opts.serviceFields ?? []), (l) => model.lb(l.loadBalancerId)!.serviceCount),
        connField('clusters', small(r), nodeOf('Cluster', checks.cluster(t), opts.clusterFields ?? []), (l) => model.lb(l.loadBalancerId)!.clusterIds.filter((c) => inScopeId(t, model.cluster(c)!.accountId)).length),
        connField('quotas', small(r), nodeOf('Quota', checks.quota(t)), (l) => model.quotasOf(l.loadBalancerId).length),
        connField('vServerGroups', small(r), sel.group(t, r, opts.ecsFields), (l) => model.groups(l.loadBalancerId).length),
      ]),
    /** Nlb with its server groups (and servers), Services, clusters and quotas. */
    nlb: (t: PoolToken, r: Rolls, serviceFields: NodeSel[] = []) =>
      nodeOf('Nlb', checks.nlb(t), [
        { text: `serverGroups { ${leaf('NlbServerGroup')} }`, cost: 0, check: () => undefined },
        connField('services', small(r), nodeOf('Service', checks.service(t), serviceFields), (n) => model.nlb(n.nlbId)!.serviceCount),
        connField('clusters', small(r), nodeOf('Cluster', checks.cluster(t)), (n) => model.nlb(n.nlbId)!.clusterIds.filter((c) => inScopeId(t, model.cluster(c)!.accountId)).length),
        connField('quotas', small(r), nodeOf('Quota', checks.quota(t)), () => 0),
      ]),
    /** Service -> cluster, loadBalancer (-> `lb`). */
    service: (t: PoolToken, lb: NodeSel) =>
      nodeOf('Service', checks.service(t), [objField('cluster', nodeOf('Cluster', checks.cluster(t)), () => false), objField('loadBalancer', lb, (s) => s.loadBalancerId === null)]),
  };

  /** Expected answer of a paged top-level connection: its error (cost, paging) or null. */
  function pagedError(p: Page, cost: number): string | null {
    if (cost > MAX_COST) return 'QUERY_TOO_COSTLY';
    return p.invalid ? 'BAD_USER_INPUT' : null;
  }

  /** A top-level graph connection: the page, the scan, filters in `named`, a node selection; total from the model. */
  function graphConn(
    field: string,
    t: PoolToken,
    r: Rolls,
    named: Record<string, Lit>,
    node: NodeSel,
    total: (scan: ScanKey) => number,
    scan: { key: ScanKey; id: string | undefined },
    p: Page,
  ): GqlCall {
    const cost = 1 + p.costSize * Math.max(1, node.cost);
    const error = pagedError(p, cost);
    return {
      query: `{ ${field}${argList(p.args, { scanId: scan.id, ...named })} { ${CONN(node.text)} } }`,
      echo: echoOf({ scanId: scan.id, ...named }),
      error,
      check: (data) => {
        const c = data[field];
        const n = scan.key === 'latest' ? total(scan.key) : 0;
        expectConn(c, n, p, field);
        c.nodes.forEach((x: any, i: number) => node.check(x, `${field}[${i}]`));
      },
    };
  }

  const inScopeAccts = (t: PoolToken) => ACCTS.filter((x) => inScope(t, x));
  const findingsOf = (t: PoolToken, scan: 'older' | 'latest', f: { accountId?: string; checkId?: string; severity?: string; clusterId?: string }) =>
    modelFindings.filter(
      (m) =>
        m.scan === scan &&
        inScope(t, m.acct) &&
        (f.accountId === undefined || ACCOUNTS[m.acct] === f.accountId) &&
        (f.checkId === undefined || m.checkId === f.checkId) &&
        (f.severity === undefined || m.severity === f.severity) &&
        (f.clusterId === undefined || `c-acct${m.acct}` === f.clusterId),
    );
  const expectSummary = (t: PoolToken, node: any, where: string) => {
    if (node.id === scans.latest!.id || node.id === scans.older!.id) {
      const k = node.id === scans.latest!.id ? 'latest' : 'older';
      expect(node.summary.findings, `${where}: summary over the scope`).toBe(findingsOf(t, k, {}).length);
    }
  };

  const GQL: GqlField[] = [
    {
      field: 'Query.scans',
      role: 'viewer',
      call: (t, r) => {
        const p = pageOf(r, { allowInvalid: true });
        return {
          query: `{ scans${argList(p.args, {})} { ${CONN(leaf('Scan'))} } }`,
          error: p.invalid ? 'BAD_USER_INPUT' : null,
          check: (data) => {
            expectConn(data.scans, 3 + launcher.launched, p, 'scans');
            data.scans.nodes.forEach((n: any, i: number) => expectSummary(t, n, `scans[${i}]`));
          },
        };
      },
    },
    {
      field: 'Query.scan',
      role: 'viewer',
      call: (t, r) => {
        const k = r.pick(['latest', 'older', 'failed', 'missing', 'garbage'] as const);
        return {
          query: `{ scan${argList([], { id: scanIdOf(k) })} { ${leaf('Scan')} } }`,
          echo: [scanIdOf(k)],
          check: (data) => {
            if (k === 'missing' || k === 'garbage') expect(data.scan, 'scan of a missing id').toBeNull();
            else {
              expect(data.scan.id).toBe(scanIdOf(k));
              expectSummary(t, data.scan, 'scan');
            }
          },
        };
      },
    },
    {
      field: 'Query.findings',
      role: 'viewer',
      call: (t, r, acct) => {
        const p = pageOf(r, { allowInvalid: true });
        const scan = scanPick(r);
        const f = {
          accountId: optional(r, ACCOUNTS[acct], '9999999999999999'),
          checkId: optional(r, r.pick(['CLB_BACKEND_QUOTA', 'NODEPORT_EPHEMERAL_OVERLAP']), 'NO_SUCH_CHECK'),
          severity: optional(r, r.pick(['critical', 'warning']), 'info'),
          clusterId: optional(r, `c-acct${acct}`, 'c-none'),
        };
        const named: Record<string, Lit> = { scanId: scan.id, accountId: f.accountId, checkId: f.checkId, severity: f.severity === undefined ? undefined : { enum: f.severity }, clusterId: f.clusterId };
        const missing = scan.key === 'missing' || scan.key === 'garbage';
        return {
          query: `{ findings${argList(p.args, named)} { ${CONN(leaf('Finding'))} } }`,
          echo: echoOf(named),
          error: p.invalid ? 'BAD_USER_INPUT' : missing ? 'NOT_FOUND' : null,
          check: (data) => {
            const want = scan.key === 'failed' ? [] : findingsOf(t, scan.key as 'older' | 'latest', f);
            expectConn(data.findings, want.length, p, 'findings');
            for (const n of data.findings.nodes) {
              expect(inScopeId(t, n.resource.accountId), 'finding in scope').toBe(true);
              if (f.severity) expect(n.severity).toBe(f.severity);
              if (f.checkId) expect(n.checkId).toBe(f.checkId);
            }
          },
        };
      },
    },
    {
      field: 'Query.accounts',
      role: 'viewer',
      call: (t, r) => {
        const p = pageOf(r, { allowInvalid: true, max: r.chance(5) ? 100 : 5 });
        const lb = nodeOf('LoadBalancer', checks.lb(t), [connField('vServerGroups', small(r), sel.group(t, r), (l) => model.groups(l.loadBalancerId).length)]);
        const cluster = nodeOf('Cluster', checks.cluster(t), [connField('services', small(r), sel.service(t, lb), (c) => model.cluster(c.clusterId)!.serviceCount!)]);
        const region = nodeOf(
          'Region',
          (n, where) => {
            expect(inScopeId(t, n.accountId), where).toBe(true);
            const m = graph.regions.find((x) => x.accountId === n.accountId && x.regionId === n.regionId);
            expect(n.nlbServerGroupCount, where).toBe(m!.nlbServerGroupCount);
          },
          [
            connField('clusters', small(r), cluster, () => 1),
            {
              text: `unusedNlbServerGroups { ${leaf('NlbServerGroup')} }`,
              cost: 0,
              check: (n: any, where: string) => {
                const m = graph.regions.find((x) => x.accountId === n.accountId && x.regionId === n.regionId);
                expect(n.unusedNlbServerGroups.map((g: any) => [g.serverGroupId, g.ownerTag, g.servers.length]), where).toEqual(m!.unusedNlbServerGroups.map((g) => [g.serverGroupId, g.ownerTag, g.servers.length]));
              },
            },
          ],
        );
        const account = nodeOf(
          'Account',
          (n, where) => {
            expect(inScopeId(t, n.accountId), `${where}: in scope`).toBe(true);
            expect(n.regionCount, where).toBe(1);
          },
          [connField('regions', small(r), region, () => 1)],
        );
        return graphConn('accounts', t, r, {}, account, () => inScopeAccts(t).length, scanPick(r), p);
      },
    },
    {
      field: 'Query.clusters',
      role: 'viewer',
      call: (t, r, acct) => {
        const p = pageOf(r, { allowInvalid: true, max: r.chance(5) ? 100 : 5 });
        const scan = scanPick(r);
        const named = { accountId: optional(r, ACCOUNTS[acct], '9999999999999999'), regionId: optional(r, 'cn-hangzhou', 'cn-beijing') };
        const ecsFields = [
          connField('loadBalancers', small(r), nodeOf('LoadBalancer', checks.lb(t)), (e) => lbsOfEcs(t, e.instanceId)),
          objField('cluster', nodeOf('Cluster', checks.cluster(t)), (e) => e.clusterId === null),
        ];
        const cluster = nodeOf('Cluster', checks.cluster(t), [connField('services', small(r), sel.service(t, sel.lb(t, r, { ecsFields })), (c) => model.cluster(c.clusterId)!.serviceCount!)]);
        const total = () => (named.regionId === 'cn-beijing' || named.accountId === '9999999999999999' ? 0 : inScopeAccts(t).filter((x) => !named.accountId || ACCOUNTS[x] === named.accountId).length);
        return graphConn('clusters', t, r, named, cluster, total, scan, p);
      },
    },
    {
      field: 'Query.loadBalancers',
      role: 'viewer',
      call: (t, r, acct) => {
        const p = pageOf(r, { allowInvalid: true, max: r.chance(5) ? 100 : 5 });
        const scan = scanPick(r);
        const named = { accountId: optional(r, ACCOUNTS[acct], '9999999999999999'), regionId: optional(r, 'cn-hangzhou', 'cn-beijing'), owner: optional(r, r.pick(['ccm', 'reused']), 'console') };
        const lb = sel.lb(t, r, {
          serviceFields: [objField('cluster', nodeOf('Cluster', checks.cluster(t)), () => false), objField('loadBalancer', nodeOf('LoadBalancer', checks.lb(t)), () => false)],
          clusterFields: [connField('services', small(r), nodeOf('Service', checks.service(t)), (c) => model.cluster(c.clusterId)!.serviceCount!)],
        });
        const total = () =>
          graph.loadBalancers.filter(
            (l) => inScopeId(t, l.accountId) && (!named.accountId || l.accountId === named.accountId) && (!named.regionId || l.regionId === named.regionId) && (!named.owner || l.owner === named.owner),
          ).length;
        return graphConn('loadBalancers', t, r, named, lb, total, scan, p);
      },
    },
    {
      field: 'Query.loadBalancer',
      role: 'viewer',
      call: (t, r, acct) => {
        const id = r.pick([`lb-acct${acct}-000`, `lb-acct${acct}-001`, `lb-acct${acct}-000-gone`]);
        const scan = scanPick(r);
        const lb = sel.lb(t, r, {
          ecsFields: [connField('loadBalancers', small(r), nodeOf('LoadBalancer', checks.lb(t)), (e) => lbsOfEcs(t, e.instanceId))],
          serviceFields: [objField('loadBalancer', nodeOf('LoadBalancer', checks.lb(t)), () => false)],
        });
        // Outside the scope, missing, or in a scan without this CLB: null, the same answer.
        const visible = !id.endsWith('-gone') && inScope(t, acct) && scan.key === 'latest';
        return {
          query: `{ loadBalancer${argList([], { id, scanId: scan.id })} { ${lb.text} } }`,
          echo: echoOf({ id, scanId: scan.id }),
          error: 1 + lb.cost > MAX_COST ? 'QUERY_TOO_COSTLY' : null,
          check: (data) => {
            if (!visible) expect(data.loadBalancer, `loadBalancer ${id} is null like a missing one`).toBeNull();
            else lb.check(data.loadBalancer, 'loadBalancer');
          },
        };
      },
    },
    {
      field: 'Query.nlbs',
      role: 'viewer',
      call: (t, r, acct) => {
        const p = pageOf(r, { allowInvalid: true, max: r.chance(5) ? 100 : 5 });
        const scan = scanPick(r);
        const named = { accountId: optional(r, ACCOUNTS[acct], '9999999999999999'), regionId: optional(r, 'cn-hangzhou', 'cn-beijing'), owner: optional(r, 'ccm', 'console') };
        const nlb = sel.nlb(t, r, [objField('nlb', nodeOf('Nlb', checks.nlb(t)), (s) => s.nlbId === null), objField('cluster', nodeOf('Cluster', checks.cluster(t)), () => false)]);
        const total = () =>
          graph.nlbs.filter(
            (n) => inScopeId(t, n.accountId) && (!named.accountId || n.accountId === named.accountId) && (!named.regionId || n.regionId === named.regionId) && (!named.owner || n.owner === named.owner),
          ).length;
        return graphConn('nlbs', t, r, named, nlb, total, scan, p);
      },
    },
    {
      field: 'Query.nlb',
      role: 'viewer',
      call: (t, r, acct) => {
        const id = r.pick([`nlb-acct${acct}-000`, `nlb-acct${acct}-000-gone`]);
        const scan = scanPick(r);
        const nlb = sel.nlb(t, r, [objField('nlb', nodeOf('Nlb', checks.nlb(t)), (s) => s.nlbId === null)]);
        // Outside the scope, missing, or in a scan without this NLB: null, the same answer.
        const visible = !id.endsWith('-gone') && inScope(t, acct) && scan.key === 'latest';
        return {
          query: `{ nlb${argList([], { id, scanId: scan.id })} { ${nlb.text} } }`,
          echo: echoOf({ id, scanId: scan.id }),
          error: 1 + nlb.cost > MAX_COST ? 'QUERY_TOO_COSTLY' : null,
          check: (data) => {
            if (!visible) expect(data.nlb, `nlb ${id} is null like a missing one`).toBeNull();
            else nlb.check(data.nlb, 'nlb');
          },
        };
      },
    },
    {
      field: 'Query.ecsInstances',
      role: 'viewer',
      call: (t, r, acct) => {
        const p = pageOf(r, { allowInvalid: true, max: r.chance(5) ? 100 : 5 });
        const scan = scanPick(r);
        const named = { accountId: optional(r, ACCOUNTS[acct], '9999999999999999'), regionId: optional(r, 'cn-hangzhou', 'cn-beijing'), clusterId: optional(r, `c-acct${acct}`, 'c-none') };
        const lb = nodeOf('LoadBalancer', checks.lb(t), [
          connField('services', small(r), nodeOf('Service', checks.service(t)), (l) => model.lb(l.loadBalancerId)!.serviceCount),
          connField('vServerGroups', small(r), nodeOf('ServerGroup', checks.group(), [connField('backends', small(r), nodeOf('Backend', checks.backend()), (g) => g.backendCount)]), (l) => model.groups(l.loadBalancerId).length),
        ]);
        const ecs = nodeOf('EcsInstance', checks.ecs(t), [
          objField('cluster', nodeOf('Cluster', checks.cluster(t), [connField('services', small(r), nodeOf('Service', checks.service(t)), (c) => model.cluster(c.clusterId)!.serviceCount!)]), (e) => e.clusterId === null),
          connField('loadBalancers', small(r), lb, (e) => lbsOfEcs(t, e.instanceId)),
          connField('nlbs', small(r), nodeOf('Nlb', checks.nlb(t)), (e) => model.ecs(e.instanceId)!.nlbIds.filter((n) => inScopeId(t, model.nlb(n)!.accountId)).length),
        ]);
        const total = () =>
          graph.ecsInstances.filter(
            (e) => inScopeId(t, e.accountId) && (!named.accountId || e.accountId === named.accountId) && (!named.regionId || e.regionId === named.regionId) && (!named.clusterId || e.clusterId === named.clusterId),
          ).length;
        return graphConn('ecsInstances', t, r, named, ecs, total, scan, p);
      },
    },
    {
      field: 'Query.quotas',
      role: 'viewer',
      call: (t, r, acct) => {
        const p = pageOf(r, { allowInvalid: true });
        const scan = scanPick(r);
        const named = {
          checkId: optional(r, 'CLB_BACKEND_QUOTA', 'NODEPORT_EPHEMERAL_OVERLAP'),
          accountId: optional(r, ACCOUNTS[acct], '9999999999999999'),
          regionId: optional(r, 'cn-hangzhou', 'cn-beijing'),
          resourceKind: optional(r, 'LoadBalancer', 'EcsInstance'),
          minRatio: optional(r, r.pick([0.755, 0.76]), 0.9),
        };
        const node = nodeOf('Quota', checks.quota(t));
        const total = (k: ScanKey) =>
          modelQuotas.filter(
            (q) =>
              q.scan === k &&
              inScope(t, q.acct) &&
              (!named.checkId || named.checkId === 'CLB_BACKEND_QUOTA') &&
              (!named.accountId || ACCOUNTS[q.acct] === named.accountId) &&
              (!named.regionId || named.regionId === 'cn-hangzhou') &&
              (!named.resourceKind || named.resourceKind === 'LoadBalancer') &&
              (named.minRatio === undefined || q.ratio >= named.minRatio),
          ).length;
        // Quotas are stored per scan (not only with the graph): the older scan has its own.
        const call = graphConn('quotas', t, r, named, node, total, scan, p);
        return {
          ...call,
          check: (data) => {
            expectConn(data.quotas, scan.key === 'latest' || scan.key === 'older' ? total(scan.key) : 0, p, 'quotas');
            data.quotas.nodes.forEach((x: any, i: number) => node.check(x, `quotas[${i}]`));
          },
        };
      },
    },
    {
      field: 'Query.scanDiff',
      role: 'viewer',
      call: (t, r, acct) => {
        const from = r.pick(['latest', 'latest', 'older', 'failed', 'missing', 'garbage'] as const);
        const against = r.pick(['older', 'older', 'latest', 'failed', 'missing'] as const);
        const named = { scanId: scanIdOf(from), against: scanIdOf(against), accountId: optional(r, ACCOUNTS[acct], '9999999999999999'), checkId: optional(r, r.pick(['CLB_BACKEND_QUOTA', 'NODEPORT_EPHEMERAL_OVERLAP']), 'NO_SUCH_CHECK'), clusterId: optional(r, `c-acct${acct}`, 'c-none') };
        const change = r.pick([undefined, undefined, 'new', 'resolved', 'persisting', 'severityChanged'] as const);
        const p = r.chance(8) ? { ...pageOf(r), forward: false, args: ['last: 2'], n: 2, costSize: 2 } : pageOf(r);
        const missing = [from, against].some((k) => k === 'missing' || k === 'garbage');
        // The model: per fingerprint (account, index) its severity in each scan; the filters and the scope first.
        const side = (k: ScanKey) => new Map((k === 'latest' || k === 'older' ? findingsOf(t, k, named) : []).map((f) => [`${f.acct}/${f.idx}`, f.severity]));
        const [a, b] = [side(from), side(against)];
        const counts = { new: 0, resolved: 0, persisting: 0, severityChanged: 0 };
        for (const [k, sev] of a) counts[!b.has(k) ? 'new' : b.get(k) === sev ? 'persisting' : 'severityChanged'] += 1;
        for (const k of b.keys()) if (!a.has(k)) counts.resolved += 1;
        const items = change ? counts[change] : Object.values(counts).reduce((x, y) => x + y, 0);
        return {
          query: `{ scanDiff${argList([], named)} { scanId againstScanId counts { ${leaf('DiffCounts')} } items${argList(p.args, { change: change && { enum: change } })} { ${CONN(`${leaf('DiffItem')}`)} } } }`,
          echo: echoOf(named),
          // Both scans must exist (NOT_FOUND) and have succeeded (CONFLICT); items page forward only.
          error: missing ? 'NOT_FOUND' : from === 'failed' || against === 'failed' ? 'CONFLICT' : !p.forward ? 'BAD_USER_INPUT' : null,
          check: (data) => {
            expect(data.scanDiff.counts, 'scanDiff counts over the scope').toEqual(counts);
            expectConn(data.scanDiff.items, items, p, 'scanDiff.items');
            for (const n of data.scanDiff.items.nodes) {
              expect(inScopeId(t, n.resource.accountId), 'diff item in scope').toBe(true);
              if (change) expect(n.change).toBe(change);
            }
          },
        };
      },
    },
    {
      field: 'Query.quotaTrends',
      role: 'viewer',
      call: (t, r, acct) => {
        const p = pageOf(r, { allowInvalid: true });
        const status = r.pick([undefined, undefined, 'insufficient_data', 'ok'] as const);
        const named = {
          accountId: optional(r, ACCOUNTS[acct], '9999999999999999'),
          checkId: optional(r, 'CLB_BACKEND_QUOTA', 'NODEPORT_EPHEMERAL_OVERLAP'),
          clusterId: optional(r, `c-acct${acct}`, 'c-none'),
          windowDays: r.pick([undefined, 2, 30]),
          status: status && { enum: status },
        };
        // Series: one per (account, CLB) sampled in the window; the older scan is 8 days old, the latest 1 day.
        // Each has at most 2 samples: insufficient_data.
        const resources = (x: Acct) => new Set(modelQuotas.filter((q) => q.acct === x && (q.scan === 'latest' || named.windowDays !== 2)).map((q) => q.idx)).size;
        const want =
          named.checkId === 'NODEPORT_EPHEMERAL_OVERLAP' || named.clusterId === 'c-none' || named.accountId === '9999999999999999' || status === 'ok'
            ? 0
            : inScopeAccts(t)
                .filter((x) => (!named.accountId || ACCOUNTS[x] === named.accountId) && (!named.clusterId || named.clusterId === `c-acct${x}`))
                .reduce((n, x) => n + resources(x), 0);
        return {
          query: `{ quotaTrends${argList(p.args, named)} { ${CONN(full('QuotaTrend'))} } }`,
          echo: echoOf(named),
          error: p.invalid ? 'BAD_USER_INPUT' : null,
          check: (data) => {
            expectConn(data.quotaTrends, want, p, 'quotaTrends');
            for (const e of data.quotaTrends.nodes) expect(e.status).toBe('insufficient_data');
          },
        };
      },
    },
    {
      field: 'Query.headroom',
      role: 'viewer',
      call: (t, r) => {
        const named = { ports: r.pick([undefined, 2]) };
        const p = pageOf(r);
        return {
          query: `{ headroom${argList([], named)} { scanId clusters${argList(p.args, {})} { ${CONN(full('ClusterHeadroom'))} } } }`,
          // Headroom answers within the scope: the sample snapshot's clusters are in none of the scoped tokens' accounts.
          error: null,
          check: (data) => {
            expect(data.headroom.scanId).toBe(scans.latest!.id);
            expectConn(data.headroom.clusters, t.scope === null ? sampleClusters : 0, p, 'headroom.clusters');
          },
        };
      },
    },
    {
      field: 'Query.quotaPlan',
      role: 'viewer',
      call: (t, r) => {
        const named = { horizonDays: r.pick([undefined, 60]) };
        return {
          query: `{ quotaPlan${argList([], named)} { ${full('QuotaPlanReport')} } }`,
          error: null,
          // Rows of the token's accounts only.
          check: (data) => {
            expect(data.quotaPlan.horizonDays).toBe(named.horizonDays ?? 30);
            for (const row of data.quotaPlan.rows) expect(t.scope === null || t.scope.some((x) => ACCOUNTS[x] === row.accountId), `row of ${row.accountId} in scope`).toBe(true);
          },
        };
      },
    },
    {
      field: 'Mutation.startScan',
      role: 'operator',
      launches: true,
      call: (t, r) => {
        const source = r.pick([undefined, 'offline', 'no-such-source']);
        return {
          query: `mutation { startScan${argList([], { source })} { scanId } }`,
          echo: echoOf({ source }),
          // An unknown source is refused first; a scoped token may not start a source whose accounts are not listed.
          error: source === 'no-such-source' ? 'BAD_USER_INPUT' : t.scope !== null ? 'FORBIDDEN' : null,
          check: (data) => expect(data.startScan.scanId).toMatch(/^[0-9a-f-]{36}$/),
        };
      },
    },
    {
      field: 'Mutation.whatIf',
      role: 'operator',
      call: (t, r) => {
        const bad = r.chance(5);
        const steps = 1 + r.next(2);
        const step = { addNodes: { cluster: SAMPLE_CLUSTER, count: bad ? -1 : 1 } };
        return {
          query: `mutation($s: ScenarioInput!) { whatIf(input: $s) { ${full('WhatIfResult', `first: ${1 + r.next(3)}`)} } }`,
          variables: { s: { ...WHATIF, steps: Array.from({ length: steps }, () => step) } },
          // The scenario is read first; then every step must change a cluster within the scope (the sample cluster is
          // outside every scoped token's accounts).
          error: bad ? 'BAD_USER_INPUT' : t.scope !== null ? 'FORBIDDEN' : null,
          check: (data) => {
            expect(data.whatIf.scanId).toBe(scans.latest!.id);
            expect(data.whatIf.steps).toHaveLength(steps);
          },
        };
      },
    },
    {
      field: 'Mutation.plan',
      role: 'operator',
      call: (t, r) => {
        const bad = r.chance(5);
        return {
          query: `mutation($c: String!, $m: String!) { plan(cluster: $c, manifests: $m) { ${full('PlanResult', `first: ${1 + r.next(3)}`)} } }`,
          variables: { c: SAMPLE_CLUSTER, m: bad ? 'kind: Service\nmetadata: {name: x}\nspec: {ports: [{port: "x"}]}\n' : PLAN_MANIFESTS },
          // The manifests are read first; then the cluster must be within the scope (the sample cluster is outside
          // every scoped token's accounts).
          error: bad ? 'BAD_USER_INPUT' : t.scope !== null ? 'FORBIDDEN' : null,
          check: (data) => {
            expect(data.plan.scanId).toBe(scans.latest!.id);
            expect(data.plan.clusterId).toBe(SAMPLE_CLUSTER);
            expect(data.plan.services).toEqual([{ service: 'default/matrix', action: 'create', source: 'manifests', pods: 0, workloads: [] }]);
          },
        };
      },
    },
    {
      field: 'Query.tokens',
      role: 'admin',
      call: (t, r) => {
        const p = pageOf(r, { allowInvalid: true });
        return {
          query: `{ tokens${argList(p.args, {})} { ${CONN(full('ApiToken'))} } }`,
          error: p.invalid ? 'BAD_USER_INPUT' : null,
          check: (data) => {
            // Tokens over accounts within the scope (a scoped admin never sees an all-accounts token).
            expectConn(data.tokens, tokenModel.filter((m) => covers(t, m.accts)).length, p, 'tokens');
            for (const n of data.tokens.nodes) expect(covers(t, (n.accounts as string[] | null)?.map(acctOfId) ?? null), `token ${n.id} within the scope`).toBe(true);
          },
        };
      },
    },
    {
      field: 'Mutation.createToken',
      role: 'admin',
      call: (t, r, acct) => {
        const accts = r.pick([null, [acct], ['a', 'b']] as (Acct[] | null)[]);
        const role = r.pick(ROLE_LIST);
        const expiresIn = r.pick(['1d', '12h', '400d']);
        const accounts = accts?.map((x) => ACCOUNTS[x]);
        return {
          query: `mutation($i: CreateTokenInput!) { createToken(input: $i) { token apiToken { ${full('ApiToken')} } } }`,
          variables: { i: { role, expiresIn, name: 'matrix-gql', ...(accounts ? { accounts } : {}) } },
          echo: accounts ?? [],
          // Validated first (at most 365 days), then the scoped-admin rule: only within its scope, never all accounts.
          error: expiresIn === '400d' ? 'BAD_USER_INPUT' : covers(t, accts) ? null : 'FORBIDDEN',
          check: (data) => {
            expect(data.createToken.token).toMatch(/^fa_/);
            expect([data.createToken.apiToken.role, data.createToken.apiToken.accounts]).toEqual([role, accounts ?? null]);
            tokenModel.push({ id: data.createToken.apiToken.id as string, accts });
          },
        };
      },
    },
    {
      field: 'Mutation.revokeToken',
      role: 'admin',
      call: (t, r) => {
        const v = r.pick([...victims, { id: 'zzzzzzzzzzzz', accts: null }, { id: 'Not-An-Id', accts: null }]);
        const visible = victims.includes(v) && covers(t, v.accts);
        return {
          query: `mutation { revokeToken${argList([], { id: v.id })} { ${full('ApiToken')} } }`,
          echo: [v.id],
          // Outside the scope: NOT_FOUND exactly like an unknown id.
          error: v.id === 'Not-An-Id' ? 'BAD_USER_INPUT' : visible ? null : 'NOT_FOUND',
          check: (data) => {
            expect(data.revokeToken.id).toBe(v.id);
            expect(data.revokeToken.revokedAt).not.toBeNull();
          },
        };
      },
    },
  ];

  /** Account markers the token must never see (ids and `acctx` markers of accounts outside its scope). */
  function forbidden(t: PoolToken): string[] {
    if (t.valid && t.scope === null) return [];
    return ACCTS.filter((x) => !(t.valid && inScope(t, x))).flatMap((x) => [ACCOUNTS[x], `acct${x}`]);
  }

  /** Search a response for other accounts' markers, after removing what the request itself sent (an error may echo it). */
  function expectNoLeak(t: PoolToken, responseText: string, echo: readonly string[], where: string): void {
    let text = responseText.toLowerCase();
    for (const e of echo) text = text.split(e.toLowerCase()).join('');
    for (const marker of forbidden(t)) expect(text.includes(marker), `${where}: leaks ${marker}`).toBe(false);
  }

  async function run(t: PoolToken, route: Route, pick: number, acct: Acct): Promise<void> {
    const c = route.call(t, pick, acct);
    const launchedBefore = launcher.launched;
    let req = http()[c.method](c.path);
    if (t.header !== null) req = req.set('Authorization', t.header);
    const res = c.body === undefined ? await req : await req.send(c.body as object);
    requests += 1;
    statusTally.set(res.status, (statusTally.get(res.status) ?? 0) + 1);
    const where = `${t.label} ${c.method.toUpperCase()} ${c.path} -> ${res.status} ${res.text.slice(0, 300)}`;
    const gated = gate(t, route);
    const expected = gated ?? c.outcome.expected;
    expect(Array.isArray(expected) ? expected : [expected], where).toContain(res.status);
    expectNoLeak(t, res.text, c.echo ?? [], where);
    // No side effect without the right: a scan launches only through a launching route that succeeded.
    if (launcher.launched !== launchedBefore) expect(route.launches === true && res.status < 300, `${where}: launched a scan`).toBe(true);
    if (gated === null && res.status < 300) c.outcome.check?.(res.body, res.text);
    c.outcome.after?.(res.status, res.body);
  }

  /** HTTP status of each GraphQL outcome (errors carry `extensions.code`). */
  const GQL_STATUS: Record<string, number> = { data: 200, UNAUTHENTICATED: 401, FORBIDDEN: 200, BAD_USER_INPUT: 200, NOT_FOUND: 200, CONFLICT: 200, QUERY_TOO_COSTLY: 400 };

  async function runGql(t: PoolToken, gen: GqlField, r: Rolls, acct: Acct): Promise<void> {
    const c = gen.call(t, r, acct);
    const launchedBefore = launcher.launched;
    let req = http().post('/graphql');
    if (t.header !== null) req = req.set('Authorization', t.header);
    const res = await req.send({ query: c.query, ...(c.variables ? { variables: c.variables } : {}) });
    requests += 1;
    gqlRequests += 1;
    const where = `${t.label} GraphQL ${gen.field}: ${c.query} ${JSON.stringify(c.variables ?? {})} -> ${res.status} ${res.text.slice(0, 400)}`;
    const errors = (res.body as { errors?: { extensions?: { code?: string } }[] }).errors;
    const data = (res.body as { data?: Record<string, unknown> | null }).data;
    let expected: string | null;
    // A token below the field's role is refused with HTTP 403 like REST (requireRole sets extensions.http.status);
    // refusals by account scope are field errors of a 200 answer.
    let belowRole = false;
    if (!t.valid) expected = 'UNAUTHENTICATED';
    else if (ROLE_RANK[t.role] < ROLE_RANK[gen.role]) {
      expected = 'FORBIDDEN';
      belowRole = true;
    } else expected = c.error ?? null;
    const outcome = expected ?? 'data';
    const seen = gqlTally.get(outcome) ?? new Map<number, number>();
    gqlTally.set(outcome, seen.set(res.status, (seen.get(res.status) ?? 0) + 1));
    if (expected === null) {
      expect(errors, where).toBeUndefined();
      expect(res.status, where).toBe(200);
      expectAccountsInScope(t, data, where);
      try {
        c.check?.(data);
      } catch (e) {
        throw new Error(`${where}\n${(e as Error).message}`, { cause: e });
      }
      coverage.record(c.query);
    } else {
      // One error of the expected kind, and no data of the refused field.
      expect((errors ?? []).map((e) => e.extensions?.code), where).toEqual([expected]);
      expect(res.status, where).toBe(belowRole ? 403 : GQL_STATUS[expected]);
      if (data) expect(Object.values(data).every((v) => v === null), `${where}: data with a refusal`).toBe(true);
    }
    expectNoLeak(t, res.text, [...(c.echo ?? []), ...Object.values(c.variables ?? {}).filter((v): v is string => typeof v === 'string')], where);
    if (launcher.launched !== launchedBefore) expect(gen.launches === true && expected === null, `${where}: launched a scan`).toBe(true);
  }

  /** Every endpoint of the matrix: the REST routes, then the GraphQL root fields. */
  type Endpoint = { kind: 'rest'; route: Route } | { kind: 'gql'; gen: GqlField };
  const ENDPOINTS: Endpoint[] = [...ROUTES.map((route) => ({ kind: 'rest' as const, route })), ...GQL.map((gen) => ({ kind: 'gql' as const, gen }))];
  const runEndpoint = (t: PoolToken, e: Endpoint, rolls: readonly number[], acct: Acct) =>
    e.kind === 'rest' ? run(t, e.route, rolls[0]!, acct) : runGql(t, e.gen, new Rolls(rolls), acct);

  it('has a GraphQL generator for every Query and Mutation field of the served schema, and none for a field that is gone', () => {
    const served = rootFields(schema);
    const generated = GQL.map((g) => g.field).sort();
    expect(served.filter((f) => !generated.includes(f)), 'root fields without a generator in the scope matrix: add one (with its oracle)').toEqual([]);
    expect(generated.filter((f) => !served.includes(f)), 'generators of fields the schema no longer has').toEqual([]);
  });

  it(`answers ${RUNS} random (token, endpoint, target) requests with the prescribed outcome and no other account's data (seed ${SEED})`, async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.nat(pool.length - 1),
        fc.nat(ENDPOINTS.length - 1),
        fc.array(fc.nat(1000), { minLength: 24, maxLength: 24 }),
        fc.constantFrom(...ACCTS),
        async (ti, ei, rolls, acct) => runEndpoint(pool[ti]!, ENDPOINTS[ei]!, rolls, acct),
      ),
      { seed: SEED, numRuns: RUNS, endOnFailure: true },
    );
    expect(requests).toBeGreaterThanOrEqual(1000);
    expect(gqlRequests).toBeGreaterThanOrEqual(RUNS / 4);
  }, 600_000);

  it('covers every (token kind x endpoint) pair once, deterministically, on top of the random run', async () => {
    const before = requests;
    for (const t of pool) for (const e of ENDPOINTS) await runEndpoint(t, e, Array.from({ length: 24 }, (_, i) => i + 1), 'a');
    expect(requests - before).toBe(pool.length * ENDPOINTS.length);
    // The rare GraphQL outcome by construction, not by the seed (the random run's endpoint picks move whenever an
    // endpoint is added): a scan diff from the failed scan (first roll 3: `failed`) is a CONFLICT.
    const admin = pool.find((t) => t.valid && t.scope === null && t.role === 'admin')!;
    const diff = ENDPOINTS.find((e) => e.kind !== 'rest' && e.gen.field === 'Query.scanDiff')!;
    await runEndpoint(admin, diff, [3, 0, ...Array.from({ length: 22 }, (_, i) => i + 1)], 'a');
  }, 600_000);

  it('exercised every outcome class (a matrix that only ever saw 200s proves nothing)', () => {
    for (const status of [200, 201, 202, 401, 403, 404, 409]) expect(statusTally.get(status) ?? 0, `REST status ${status} seen`).toBeGreaterThan(0);
    for (const outcome of Object.keys(GQL_STATUS)) expect(gqlTally.get(outcome)?.size ?? 0, `GraphQL outcome ${outcome} seen`).toBeGreaterThan(0);
  });

  it('selected every field of every GraphQL type reachable from Query and Mutation in an executed query', () => {
    expect(coverage.missing(), 'schema fields no executed matrix query selected: extend a generator (and its oracle)').toEqual([]);
  });
});
