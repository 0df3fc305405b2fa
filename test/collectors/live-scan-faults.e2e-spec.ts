/**
 * Live collectors against the simulator when things go wrong: throttling and 5xx on every first
 * attempt (retried), data the fleet does not hold (the simulator answers 403 as a missing
 * permission), cancellation, and progress reporting.
 */
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  loadFleetDirectory,
  loadScanConfig,
  readFleetDirectory,
  scanLive,
  ScanAbortedError,
  type ScanConfig,
  REGION_DATASETS,
} from '@app/collectors';
import type { CoverageEntry, FleetSnapshot } from '@app/domain';
import { startSimulator, type RunningSimulator } from '@app/fleet-sim';
import { writeFleet, type AccountSpec } from './fleet-builder.util';
import { testConfig } from './scan-config.util';
import { expectLiveEqualsOffline } from './snapshot-compare.util';

const fastRetries = (c: ScanConfig, endpoint?: string): ScanConfig =>
  testConfig(c, { ...(endpoint ? { endpoint } : {}), pageSizes: { ecs: 10, slb: 5, kubernetes: 5 } });

const key = (c: CoverageEntry) => [c.accountId, c.regionId ?? '', c.clusterId ?? '', c.api].join('|');
const withoutCoverage = (s: FleetSnapshot) => ({ ...s, coverage: [] });

const account = (id: string, extra: Partial<AccountSpec> = {}): AccountSpec => ({
  accountId: id,
  name: 'faults',
  roles: 5,
  regions: [
    {
      regionId: 'cn-hangzhou',
      ecsInstances: 25,
      loadBalancers: 12,
      groupsPerLb: 2,
      quotas: 4,
      clusters: [{ nodes: 12, services: 4, podsPerNode: 1, events: 6 }],
    },
  ],
  ...extra,
});

/**
 * A proxy in front of the simulator's Alibaba Cloud endpoint that answers the first attempt of
 * every distinct request with a transient error: RPC `Throttling.User` (400, with
 * `x-acs-retry-after`), CS ROA `ServiceUnavailable` (503). Retries (new nonce, same request)
 * are forwarded unchanged, host header included, so signatures still verify. STS AssumeRole is
 * forwarded at once (its failure would fail every dataset with one code, hiding the others).
 */
async function startFlakyProxy(
  target: string,
): Promise<{ endpoint: string; injected: () => number; close: () => Promise<void> }> {
  const seen = new Set<string>();
  let injected = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const id = `${req.method} ${String(req.headers['x-acs-action'])} ${req.url} ${body.toString()}`;
      if (!seen.has(id) && req.headers['x-acs-action'] !== 'AssumeRole') {
        seen.add(id);
        injected++;
        const rpc = (req.url ?? '/').split('?')[0] === '/';
        res.writeHead(rpc ? 400 : 503, {
          'content-type': 'application/json',
          ...(rpc ? { 'x-acs-retry-after': '3' } : {}),
        });
        res.end(
          JSON.stringify(
            rpc
              ? {
                  RequestId: 'INJECTED',
                  Code: 'Throttling.User',
                  Message: 'Request was denied due to user flow control.',
                }
              : {
                  requestId: 'INJECTED',
                  code: 'ServiceUnavailable',
                  message: 'The request has failed due to a temporary failure of the server.',
                },
          ),
        );
        return;
      }
      const [host, port] = target.split(':');
      const up = request(
        { host, port: Number(port), method: req.method, path: req.url, headers: req.headers },
        (ur) => {
          res.writeHead(ur.statusCode ?? 502, ur.headers);
          ur.pipe(res);
        },
      );
      up.on('error', () => {
        res.writeHead(502);
        res.end();
      });
      up.end(body);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    endpoint: `127.0.0.1:${(server.address() as AddressInfo).port}`,
    injected: () => injected,
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}

describe('scanLive with throttling and 5xx on every first attempt', () => {
  let root: string;
  let sim: RunningSimulator;
  let proxy: Awaited<ReturnType<typeof startFlakyProxy>>;

  beforeAll(async () => {
    root = writeFleet('flaky', [account('1000000000000003')]);
    sim = await startSimulator({ fleet: readFleetDirectory(root) });
    proxy = await startFlakyProxy(sim.endpoint);
  });
  afterAll(async () => {
    await proxy?.close();
    await sim?.close();
  });

  it('retries each call and still equals the offline snapshot', async () => {
    const live = await scanLive(fastRetries(loadScanConfig(sim.configPath), proxy.endpoint));
    expect(proxy.injected()).toBeGreaterThan(20);
    expect(live.coverage.filter((c) => c.status === 'failed')).toEqual([]);
    expectLiveEqualsOffline(live, loadFleetDirectory(root));
  });

  it('records failed coverage (not a crash) when retries are exhausted', async () => {
    const fresh = await startFlakyProxy(sim.endpoint);
    const config = fastRetries(loadScanConfig(sim.configPath), fresh.endpoint);
    const live = await scanLive({ ...config, collector: { ...config.collector, maxAttempts: 1 } }).finally(
      () => fresh.close(),
    );
    const failed = live.coverage.filter((c) => c.status === 'failed');
    expect(failed.map((c) => c.api).sort()).toEqual(['ram', ...REGION_DATASETS].sort()); // cs, ecs, nlb, quota-applications, quotas, ram, slb, vpc
    expect(failed.find((c) => c.api === 'cs')).toMatchObject({ errorCode: 'ServiceUnavailable' });
    expect(failed.find((c) => c.api === 'slb')).toMatchObject({ errorCode: 'Throttling.User' });
    expect(failed.find((c) => c.api === 'slb')?.message).toMatch(
      /^DescribeLoadBalancers 1000000000000003\/cn-hangzhou: Throttling\.User \(HTTP 400\)/,
    );
  });
});

describe('scanLive on a fleet with absent files', () => {
  let root: string;
  let sim: RunningSimulator;

  beforeAll(async () => {
    root = writeFleet('absent', [
      account('1000000000000004', {
        omitRam: true,
        regions: [
          {
            regionId: 'cn-hangzhou',
            ecsInstances: 8,
            loadBalancers: 3,
            groupsPerLb: 1,
            quotas: 2,
            omit: ['quotas', 'load-balancers', 'nlb', 'vswitches'],
            clusters: [
              {
                nodes: 3,
                services: 1,
                podsPerNode: 1,
                events: 1,
                omit: ['addons', 'resources', 'kubernetes'],
                sysctls: false,
              },
              { nodes: 3, services: 1, podsPerNode: 1, events: 1 },
            ],
          },
        ],
      }),
    ]);
    sim = await startSimulator({ fleet: readFleetDirectory(root) });
  });
  afterAll(async () => {
    await sim?.close();
  });

  it('reads the same data, and reports the simulated missing permissions as failed where offline names the missing file', async () => {
    const offline = loadFleetDirectory(root);
    const live = await scanLive(fastRetries(loadScanConfig(sim.configPath)));
    expect(withoutCoverage(live)).toEqual(withoutCoverage(offline));
    const liveByKey = new Map(live.coverage.map((c) => [key(c), c]));
    // Offline: a required file that is missing is a gap (`failed`, ENOENT, naming the file); only
    // quotas.json and quota-applications.json may be absent (docs/fleet-format.md).
    const notRead = offline.coverage
      .filter((c) => c.status !== 'ok')
      .map((c) => [key(c), c.status, c.errorCode])
      .sort((a, b) => (String(a[0]) < String(b[0]) ? -1 : 1));
    expect(notRead).toEqual([
      ['1000000000000004|cn-hangzhou|c00000000000000000000000000000000|addons', 'failed', 'ENOENT'],
      ['1000000000000004|cn-hangzhou|c00000000000000000000000000000000|kubernetes', 'failed', 'ENOENT'],
      ['1000000000000004|cn-hangzhou|c00000000000000000000000000000000|resources', 'failed', 'ENOENT'],
      ['1000000000000004|cn-hangzhou|c00000000000000000000000000000000|sysctls', 'failed', 'ENOENT'],
      ['1000000000000004|cn-hangzhou||nlb', 'failed', 'ENOENT'],
      ['1000000000000004|cn-hangzhou||quota-applications', 'absent', undefined],
      ['1000000000000004|cn-hangzhou||quotas', 'absent', undefined],
      ['1000000000000004|cn-hangzhou||slb', 'failed', 'ENOENT'],
      ['1000000000000004|cn-hangzhou||vpc', 'failed', 'ENOENT'],
      ['1000000000000004|||ram', 'failed', 'ENOENT'],
    ]);
    const offlineByKey = new Map(offline.coverage.map((c) => [key(c), c]));
    expect(offlineByKey.get('1000000000000004|cn-hangzhou||slb')?.message).toBe(
      'accounts/1000000000000004/regions/cn-hangzhou/load-balancers.json: missing, required by the fleet format (ENOENT); ' +
        'accounts/1000000000000004/regions/cn-hangzhou/vserver-groups.json: missing, required by the fleet format (ENOENT)',
    );
    const absent = notRead.map((x) => String(x[0]));
    // The simulator answers data the fleet lacks with 403 (as a live API does without permission),
    // except quotas and their applications (empty lists, as Quota Center answers a region without any); the
    // sysctls of the cluster without nodes are asked on its tagged instances and fail there.
    expect(
      absent.map((k) => [k.split('|').pop(), liveByKey.get(k)?.status, liveByKey.get(k)?.errorCode]),
    ).toEqual([
      ['addons', 'failed', 'StatusForbidden'],
      ['kubernetes', 'failed', 'Forbidden'],
      ['resources', 'failed', 'StatusForbidden'],
      ['sysctls', 'failed', 'CommandFailed'],
      ['nlb', 'failed', 'Forbidden.RAM'],
      ['quota-applications', 'absent', undefined],
      ['quotas', 'absent', undefined],
      ['slb', 'failed', 'Forbidden.RAM'],
      ['vpc', 'failed', 'Forbidden.RAM'],
      ['ram', 'failed', 'NoPermission'],
    ]);
    expect(liveByKey.get('1000000000000004|cn-hangzhou||nlb')?.message).toMatch(/^ListLoadBalancers 1000000000000004\/cn-hangzhou: Forbidden\.RAM/);
    expect(liveByKey.get('1000000000000004|||ram')?.message).toMatch(
      /^ListRoles 1000000000000004: NoPermission \(HTTP 403\)/,
    );
    expectLiveEqualsOffline(live, offline);
  });
});

describe('scanLive progress and cancellation', () => {
  let sim: RunningSimulator;
  let config: ScanConfig;

  beforeAll(async () => {
    sim = await startSimulator({
      fleet: readFleetDirectory(writeFleet('progress', [account('1000000000000005')])),
    });
    config = fastRetries(loadScanConfig(sim.configPath));
  });
  afterAll(async () => {
    await sim?.close();
  });

  it('reports one progress event per dataset, ending at done = total', async () => {
    const events: { done: number; total: number; target: string }[] = [];
    const snap = await scanLive(config, { onProgress: (e) => events.push(e) });
    expect(events).toHaveLength(snap.coverage.length);
    expect(events.map((e) => e.done)).toEqual(events.map((_, i) => i + 1));
    expect(events.every((e) => e.total >= e.done)).toBe(true);
    expect(events.at(-1)).toMatchObject({ done: snap.coverage.length, total: snap.coverage.length });
    expect(events.map((e) => e.target)).toContain('1000000000000005/cn-hangzhou/slb');
  });

  it('rejects with ScanAbortedError when the signal fires', async () => {
    const ac = new AbortController();
    const run = scanLive(config, { signal: ac.signal, onProgress: () => ac.abort() });
    await expect(run).rejects.toBeInstanceOf(ScanAbortedError);
  });

  it('rejects at once for an already aborted signal', async () => {
    await expect(scanLive(config, { signal: AbortSignal.abort() })).rejects.toBeInstanceOf(ScanAbortedError);
  });
});
