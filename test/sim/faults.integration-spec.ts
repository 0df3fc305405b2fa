/**
 * Injected faults (`startSimulator({ faults, seed })`) as the SDKs and raw HTTP clients see them:
 * each kind at probability 1, the Kubernetes variants, determinism per seed, and a held
 * (`timeout`) request released by `close()`.
 */
import { request } from 'node:http';
import * as $Cs from '@alicloud/cs20151215';
import * as $Ecs from '@alicloud/ecs20140526';
import { ServerError, ThrottlingError } from '@alicloud/openapi-core';
import { readFleetDirectory } from '@app/collectors';
import type { WireFleet } from '@app/domain';
import { FaultSpecError, startSimulator, type RunningSimulator, type SimulatorOptions } from '@app/fleet-sim';
import { afterEach, describe, expect, it } from 'vitest';
import { callRpc, csClient, ecsClient } from './sim-clients.util';
import { SIM_FLEET_IDS as IDS, writeSimFleet } from './sim-fleet.factory';

const fleet: WireFleet = readFleetDirectory(writeSimFleet({ nodes: 7 }));
const started: RunningSimulator[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((s) => s.close()));
});

async function start(options: Omit<SimulatorOptions, 'fleet'>): Promise<RunningSimulator> {
  const s = await startSimulator({ fleet, ...options });
  started.push(s);
  return s;
}

async function rejection(p: Promise<unknown>): Promise<unknown> {
  return p.then(
    () => {
      throw new Error('expected a rejection');
    },
    (e: unknown) => e,
  );
}

const describeInstances = (s: RunningSimulator, config?: Record<string, unknown>) =>
  ecsClient(s, config).describeInstances(new $Ecs.DescribeInstancesRequest({ regionId: IDS.regionId }));

/** One raw GET; resolves with what arrived, or the transport error. */
function rawGet(
  s: RunningSimulator,
  path: string,
  headers: Record<string, string> = {},
): Promise<{ status?: number; headers?: Record<string, unknown>; body: string; error?: string }> {
  const [host, port] = s.endpoint.split(':') as [string, string];
  return new Promise((resolve) => {
    let body = '';
    const req = request({ host, port: Number(port), path, headers }, (res) => {
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body }));
      res.on('error', (e) =>
        resolve({ status: res.statusCode, headers: res.headers, body, error: e.message }),
      );
      res.on('aborted', () =>
        resolve({ status: res.statusCode, headers: res.headers, body, error: 'aborted' }),
      );
    });
    req.on('error', (e) => resolve({ body, error: e.message }));
    req.end();
  });
}

async function kubeToken(s: RunningSimulator): Promise<string> {
  const kc = await csClient(s).describeClusterUserKubeconfig(
    IDS.clusterId,
    new $Cs.DescribeClusterUserKubeconfigRequest({}),
  );
  const token = /token: (\S+)/.exec(kc.body?.config ?? '')?.[1];
  if (!token) throw new Error('no token in the kubeconfig');
  return token;
}

describe('OpenAPI faults', () => {
  it('throttle: Throttling.User with a retry hint (429 with throttlingStatus: 429)', async () => {
    const s = await start({ faults: 'throttle=1' });
    const e = await rejection(describeInstances(s));
    expect(e).toBeInstanceOf(ThrottlingError);
    expect(e).toMatchObject({ code: 'Throttling.User', statusCode: 400, retryAfter: 1000 });
    const s429 = await start({ faults: 'throttle=1', throttlingStatus: 429 });
    expect(await rejection(describeInstances(s429))).toMatchObject({
      statusCode: 429,
      code: 'Throttling.User',
    });
    expect(s.stats()).toMatchObject({ throttled: 1, faults: { throttle: 1 } });
  });

  it('server-error: 503 ServiceUnavailable JSON (RPC and CS shapes)', async () => {
    const s = await start({ faults: { 'server-error': 1 } });
    const e = await rejection(describeInstances(s));
    expect(e).toBeInstanceOf(ServerError);
    expect(e).toMatchObject({ statusCode: 503, code: 'ServiceUnavailable' });
    const cs = await rejection(csClient(s).describeClusterDetail(IDS.clusterId));
    expect(cs).toMatchObject({ statusCode: 503, code: 'ServiceUnavailable' });
  });

  it('non-json: 502 with an HTML body, which the SDK cannot parse', async () => {
    const s = await start({ faults: 'non-json=1' });
    const e = await rejection(describeInstances(s));
    expect(e).not.toBeInstanceOf(ServerError);
    expect(String((e as Error).message)).toMatch(/JSON|Unexpected token/i);
    const raw = await rawGet(s, '/clusters', {});
    // unauthenticated calls get no fault: the signature error comes first
    expect(raw.status).toBe(400);
  });

  it('timeout: no answer (the SDK read timeout fires); the hold ends in a dropped connection', async () => {
    const s = await start({ faults: 'timeout=1', timeoutHoldMs: 300 });
    const e = await rejection(describeInstances(s, { readTimeout: 100 }));
    expect(String((e as Error).name) + String((e as Error).message)).toMatch(/timeout/i);
    expect(s.stats().faults).toEqual({ timeout: 1 });
  });

  it('truncate: half the JSON body, then the connection closes', async () => {
    const s = await start({ faults: 'truncate=1' });
    const e = await rejection(describeInstances(s));
    expect(e).not.toBeInstanceOf(ServerError);
    expect(e).not.toBeInstanceOf(ThrottlingError);
  });

  it('slow: the answer still arrives, complete', async () => {
    const s = await start({ faults: 'slow=1', slowDelayMs: { min: 20, max: 40 } });
    const r = await describeInstances(s);
    expect(r.body?.instances?.instance).toHaveLength(10);
    expect(s.stats().faults).toEqual({ slow: 1 });
  });

  it('the same seed gives the same faults for the same calls; another seed others', async () => {
    const outcomes = async (seed: number): Promise<string[]> => {
      const s = await start({ faults: 'throttle=0.3,server-error=0.2', seed });
      const out: string[] = [];
      for (let i = 0; i < 30; i++) {
        const action = i % 3 === 0 ? 'DescribeVSwitches' : 'DescribeLoadBalancers';
        const version = action === 'DescribeVSwitches' ? '2016-04-28' : '2014-05-15';
        out.push(
          await callRpc(s, action, version, { RegionId: IDS.regionId }).then(
            () => 'ok',
            (e: unknown) => String((e as { code?: string }).code),
          ),
        );
      }
      return out;
    };
    const a = await outcomes(7);
    expect(a).toEqual(await outcomes(7));
    expect(a).toContain('ok');
    expect(a).toContain('Throttling.User');
    expect(a).toContain('ServiceUnavailable');
    expect(await outcomes(8)).not.toEqual(a);
  });

  it('rejects an invalid spec with a clear error', async () => {
    await expect(startSimulator({ fleet, faults: 'throttle=0.1,explode=0.2' })).rejects.toThrow(
      FaultSpecError,
    );
    await expect(startSimulator({ fleet, faults: 'throttle=0.1,explode=0.2' })).rejects.toThrow(
      'unknown fault "explode"; known faults: throttle, server-error, timeout, truncate, slow, non-json, expire-continue',
    );
  });

  it('close() releases a held request at once', async () => {
    const s = await startSimulator({ fleet, faults: 'timeout=1' });
    const pending = describeInstances(s, { readTimeout: 60_000 }).then(
      () => 'answered',
      () => 'dropped',
    );
    for (let i = 0; i < 200 && s.stats().faults.timeout !== 1; i++)
      await new Promise((r) => setTimeout(r, 10));
    expect(s.stats().faults.timeout).toBe(1);
    await s.close();
    expect(await pending).toBe('dropped');
  });
});

describe('Kubernetes faults', () => {
  const nodes = `/k8s/${IDS.clusterId}/api/v1/nodes`;
  type Raw = Awaited<ReturnType<typeof rawGet>>;

  /** The kubeconfig token; CS calls draw faults too, so retry (each call draws anew). */
  async function tokenDespiteFaults(s: RunningSimulator): Promise<string> {
    for (let i = 0; i < 50; i++) {
      const t = await kubeToken(s).catch(() => '');
      if (t !== '') return t;
    }
    throw new Error('no kubeconfig in 50 attempts');
  }

  it('expire-continue: 410 Expired only for lists carrying a continue token', async () => {
    const s = await start({ faults: 'expire-continue=1' });
    const auth = { authorization: `Bearer ${await kubeToken(s)}` };
    const first = await rawGet(s, `${nodes}?limit=3`, auth);
    expect(first.status).toBe(200);
    const cont = (JSON.parse(first.body) as { metadata: { continue: string } }).metadata.continue;
    const next = await rawGet(s, `${nodes}?limit=3&continue=${encodeURIComponent(cont)}`, auth);
    expect(next.status).toBe(410);
    expect(JSON.parse(next.body)).toMatchObject({ kind: 'Status', reason: 'Expired', code: 410 });
    expect(s.stats().calls[IDS.accountId]).toMatchObject({ 'k8s:list:nodes': 2 });
  });

  it.each([
    [
      'throttle',
      (r: Raw) => {
        expect(r.status).toBe(429);
        expect(r.headers?.['retry-after']).toBe('1');
        expect(JSON.parse(r.body)).toMatchObject({ kind: 'Status', reason: 'TooManyRequests', code: 429 });
      },
    ],
    [
      'server-error',
      (r: Raw) => {
        expect(r.status).toBe(503);
        expect(JSON.parse(r.body)).toMatchObject({ kind: 'Status', reason: 'ServiceUnavailable', code: 503 });
      },
    ],
    [
      'non-json',
      (r: Raw) => {
        expect(r.status).toBe(502);
        expect(r.headers?.['content-type']).toBe('text/html');
        expect(r.body).toContain('502 Bad Gateway');
      },
    ],
    [
      'truncate',
      (r: Raw) => {
        expect(r.status).toBe(200);
        expect(r.error).toBeDefined();
        expect(Buffer.byteLength(r.body)).toBeLessThan(Number(r.headers?.['content-length']));
      },
    ],
  ] as const)('%s on list calls', async (kind, check) => {
    const s = await start({ faults: `${kind}=0.5`, seed: 3 });
    const auth = { authorization: `Bearer ${await tokenDespiteFaults(s)}` };
    const seen: Raw[] = [];
    for (let i = 0; i < 40; i++) seen.push(await rawGet(s, nodes, auth));
    const faulty = seen.filter((r) => r.status !== 200 || r.error !== undefined);
    expect(faulty.length).toBeGreaterThan(0);
    expect(faulty.length).toBeLessThan(seen.length);
    for (const r of faulty) check(r);
    for (const r of seen.filter((x) => !faulty.includes(x)))
      expect((JSON.parse(r.body) as { items: unknown[] }).items).toHaveLength(7);
  });
});
