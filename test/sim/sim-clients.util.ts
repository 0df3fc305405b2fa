/**
 * Official SDK clients pointed at a running simulator (plain HTTP, the sim's test AccessKey).
 */
import Cs from '@alicloud/cs20151215';
import Ecs from '@alicloud/ecs20140526';
import OpenApi, { $OpenApiUtil, OpenApiUtil } from '@alicloud/openapi-core';
import Ram from '@alicloud/ram20150501';
import Sts from '@alicloud/sts20150401';
import * as $dara from '@darabonba/typescript';
import type { RunningSimulator } from '@app/fleet-sim';

/** SDK config for the simulator. */
export function simConfig(
  sim: Pick<RunningSimulator, 'endpoint'>,
  overrides: Record<string, unknown> = {},
): $OpenApiUtil.Config {
  return new $OpenApiUtil.Config({
    accessKeyId: 'sim-access-key',
    accessKeySecret: 'sim-access-secret',
    endpoint: sim.endpoint,
    protocol: 'http',
    regionId: 'cn-hangzhou',
    readTimeout: 10_000,
    connectTimeout: 5_000,
    ...overrides,
  });
}

/** Product clients. */
export const ecsClient = (sim: RunningSimulator, o?: Record<string, unknown>) => new Ecs(simConfig(sim, o));
export const csClient = (sim: RunningSimulator, o?: Record<string, unknown>) => new Cs(simConfig(sim, o));
export const ramClient = (sim: RunningSimulator, o?: Record<string, unknown>) => new Ram(simConfig(sim, o));
export const stsClient = (sim: RunningSimulator, o?: Record<string, unknown>) => new Sts(simConfig(sim, o));

/** Generic RPC call (SLB, Quota Center: no npm SDK; research 1.6). */
export async function callRpc(
  sim: RunningSimulator,
  action: string,
  version: string,
  params: Record<string, unknown>,
  opts: { inBody?: boolean; config?: Record<string, unknown> } = {},
): Promise<Record<string, unknown>> {
  const client = new OpenApi(simConfig(sim, opts.config));
  const p = new $OpenApiUtil.Params({
    action,
    version,
    protocol: 'HTTPS',
    pathname: '/',
    method: 'POST',
    authType: 'AK',
    style: 'RPC',
    reqBodyType: 'formData',
    bodyType: 'json',
  });
  const req = new $OpenApiUtil.OpenApiRequest(
    opts.inBody ? { body: params } : { query: OpenApiUtil.query(params) },
  );
  const resp = await client.callApi(p, req, new $dara.RuntimeOptions({}));
  return resp['body'] as Record<string, unknown>;
}

/** Generic ROA GET (CS). */
export async function callRoa(
  sim: RunningSimulator,
  action: string,
  pathname: string,
  query: Record<string, string> = {},
  config?: Record<string, unknown>,
): Promise<unknown> {
  const client = new OpenApi(simConfig(sim, config));
  const p = new $OpenApiUtil.Params({
    action,
    version: '2015-12-15',
    protocol: 'HTTPS',
    pathname,
    method: 'GET',
    authType: 'AK',
    style: 'ROA',
    reqBodyType: 'json',
    bodyType: 'json',
  });
  const resp = await client.callApi(
    p,
    new $OpenApiUtil.OpenApiRequest({ query }),
    new $dara.RuntimeOptions({}),
  );
  return resp['body'];
}
