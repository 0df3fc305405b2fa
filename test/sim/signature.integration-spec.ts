/**
 * Signature verification of the simulator: V3 ACS3-HMAC-SHA256 and V1 HMAC-SHA1 (RPC and ROA),
 * each signed by an independent implementation of the algorithm and by the real SDK
 * (openapi-core `signatureAlgorithm: 'v2'` for V1), plus the gateway's error codes.
 */
import * as $Cs from '@alicloud/cs20151215';
import * as $Ecs from '@alicloud/ecs20140526';
import { ClientError } from '@alicloud/openapi-core';
import { readFleetDirectory } from '@app/collectors';
import { startSimulator, type RunningSimulator } from '@app/fleet-sim';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { send, signRoaV1, signRpcV1, signV3 } from './independent-signers.util';
import { callRpc, csClient, ecsClient } from './sim-clients.util';
import { SIM_FLEET_IDS as IDS, writeSimFleet } from './sim-fleet.factory';

const AK = 'sim-access-key';
const SK = 'sim-access-secret';
let sim: RunningSimulator;

beforeAll(async () => {
  sim = await startSimulator({ fleet: readFleetDirectory(writeSimFleet()) });
});
afterAll(async () => {
  await sim.close();
});

describe('V3 ACS3-HMAC-SHA256 (independent signer)', () => {
  const rpc = (over: Partial<Parameters<typeof signV3>[3]> = {}) =>
    signV3(sim.endpoint, AK, SK, {
      method: 'POST',
      path: '/',
      query: { RegionId: IDS.regionId, MaxResults: '10' },
      action: 'DescribeInstances',
      version: '2014-05-26',
      ...over,
    });

  it('accepts a correctly signed RPC request (query parameters, empty body)', async () => {
    const r = await send(sim.endpoint, rpc());
    expect(r.status).toBe(200);
    expect((r.body['Instances'] as { Instance: unknown[] }).Instance).toHaveLength(10);
  });

  it('accepts a signed form body (Quota Center style) and a signed ROA GET', async () => {
    const form = signV3(sim.endpoint, AK, SK, {
      method: 'POST',
      path: '/',
      query: {},
      action: 'ListProductQuotas',
      version: '2020-05-10',
      body: 'ProductCode=slb&Dimensions.1.Key=regionId&Dimensions.1.Value=cn-hangzhou',
      contentType: 'application/x-www-form-urlencoded',
    });
    const q = await send(sim.endpoint, form);
    expect(q.status).toBe(200);
    expect(q.body['Quotas']).toHaveLength(4);
    const roa = signV3(sim.endpoint, AK, SK, {
      method: 'GET',
      path: '/api/v1/clusters',
      query: { region_id: IDS.regionId },
      action: 'DescribeClustersV1',
      version: '2015-12-15',
    });
    const c = await send(sim.endpoint, roa);
    expect(c.status).toBe(200);
    expect(c.body['page_info']).toMatchObject({ total_count: 1 });
  });

  it('400 SignatureDoesNotMatch for a wrong secret or a tampered query or body', async () => {
    const wrong = signV3(sim.endpoint, AK, 'not-the-secret', {
      method: 'POST',
      path: '/',
      query: { RegionId: IDS.regionId },
      action: 'DescribeInstances',
      version: '2014-05-26',
    });
    expect(await send(sim.endpoint, wrong)).toMatchObject({
      status: 400,
      body: { Code: 'SignatureDoesNotMatch' },
    });
    const tampered = rpc();
    tampered.query['RegionId'] = 'cn-beijing';
    expect(await send(sim.endpoint, tampered)).toMatchObject({
      status: 400,
      body: { Code: 'SignatureDoesNotMatch' },
    });
    const body = signV3(sim.endpoint, AK, SK, {
      method: 'POST',
      path: '/',
      query: {},
      action: 'ListProductQuotas',
      version: '2020-05-10',
      body: 'ProductCode=slb',
      contentType: 'application/x-www-form-urlencoded',
    });
    body.body = 'ProductCode=ecs';
    expect(await send(sim.endpoint, body)).toMatchObject({
      status: 400,
      body: { Code: 'SignatureDoesNotMatch' },
    });
  });

  it('404 InvalidAccessKeyId.NotFound for an unknown key', async () => {
    const r = signV3(sim.endpoint, 'who-is-this', SK, {
      method: 'POST',
      path: '/',
      query: { RegionId: IDS.regionId },
      action: 'DescribeInstances',
      version: '2014-05-26',
    });
    expect(await send(sim.endpoint, r)).toMatchObject({
      status: 404,
      body: { Code: 'InvalidAccessKeyId.NotFound' },
    });
  });

  it('400 IncompleteSignature when unsigned or when an x-acs header is left out of SignedHeaders', async () => {
    const unsigned = rpc();
    delete unsigned.headers['authorization'];
    expect(await send(sim.endpoint, unsigned)).toMatchObject({
      status: 400,
      body: { Code: 'IncompleteSignature' },
    });
    const extra = rpc();
    extra.headers['x-acs-extra'] = 'not signed';
    expect(await send(sim.endpoint, extra)).toMatchObject({
      status: 400,
      body: { Code: 'IncompleteSignature' },
    });
  });

  it('400 InvalidTimeStamp.Expired for a date more than 15 minutes off', async () => {
    const old = rpc({ date: new Date(Date.now() - 20 * 60_000) });
    expect(await send(sim.endpoint, old)).toMatchObject({
      status: 400,
      body: { Code: 'InvalidTimeStamp.Expired' },
    });
  });
});

describe('V1 HMAC-SHA1 RPC (independent signer)', () => {
  it('accepts a signed GET with every parameter in the query', async () => {
    const r = signRpcV1(AK, SK, {
      method: 'GET',
      action: 'DescribeLoadBalancers',
      version: '2014-05-15',
      params: { RegionId: IDS.regionId, PageSize: '50', PageNumber: '1' },
    });
    const res = await send(sim.endpoint, r);
    expect(res.status).toBe(200);
    expect(res.body['TotalCount']).toBe(2);
  });

  it('rejects a wrong signature, an unknown key and a missing signature', async () => {
    const bad = signRpcV1(AK, 'wrong', {
      method: 'GET',
      action: 'DescribeLoadBalancers',
      version: '2014-05-15',
      params: { RegionId: IDS.regionId },
    });
    expect(await send(sim.endpoint, bad)).toMatchObject({
      status: 400,
      body: { Code: 'SignatureDoesNotMatch' },
    });
    const unknown = signRpcV1('nobody', SK, {
      method: 'GET',
      action: 'DescribeLoadBalancers',
      version: '2014-05-15',
      params: { RegionId: IDS.regionId },
    });
    expect(await send(sim.endpoint, unknown)).toMatchObject({
      status: 404,
      body: { Code: 'InvalidAccessKeyId.NotFound' },
    });
    const missing = signRpcV1(AK, SK, {
      method: 'GET',
      action: 'DescribeLoadBalancers',
      version: '2014-05-15',
      params: { RegionId: IDS.regionId },
    });
    delete missing.query['Signature'];
    expect(await send(sim.endpoint, missing)).toMatchObject({
      status: 400,
      body: { Code: 'IncompleteSignature' },
    });
  });
});

describe('V1 HMAC-SHA1 ROA (independent signer)', () => {
  it('accepts `acs AK:sig` on a CS path and rejects a wrong one with the ROA error shape', async () => {
    const ok = signRoaV1(sim.endpoint, AK, SK, {
      method: 'GET',
      path: '/api/v1/clusters',
      query: { page_number: '1', page_size: '10' },
      action: 'DescribeClustersV1',
    });
    const res = await send(sim.endpoint, ok);
    expect(res.status).toBe(200);
    expect((res.body['clusters'] as unknown[]).length).toBe(1);
    const bad = signRoaV1(sim.endpoint, AK, 'wrong', {
      method: 'GET',
      path: `/clusters/${IDS.clusterId}`,
      query: {},
      action: 'DescribeClusterDetail',
    });
    expect(await send(sim.endpoint, bad)).toMatchObject({
      status: 400,
      body: { code: 'SignatureDoesNotMatch', requestId: expect.any(String) },
    });
  });
});

describe('V1 through the real SDK (openapi-core signatureAlgorithm v2)', () => {
  const v2 = { signatureAlgorithm: 'v2' };

  it('ECS describeInstances (doRPCRequest) pages to the end', async () => {
    const ecs = ecsClient(sim, v2);
    let token: string | undefined;
    let count = 0;
    do {
      const r = await ecs.describeInstances(
        new $Ecs.DescribeInstancesRequest({
          regionId: IDS.regionId,
          maxResults: 10,
          ...(token ? { nextToken: token } : {}),
        }),
      );
      count += r.body?.instances?.instance?.length ?? 0;
      token = r.body?.nextToken || undefined;
    } while (token);
    expect(count).toBe(25);
  });

  it('Quota Center with a form body (doRPCRequest) and CS describeClustersV1 (doROARequest)', async () => {
    const q = await callRpc(
      sim,
      'ListProductQuotas',
      '2020-05-10',
      { ProductCode: 'slb', Dimensions: [{ Key: 'regionId', Value: IDS.regionId }] },
      { inBody: true, config: v2 },
    );
    expect(q['Quotas']).toHaveLength(4);
    const c = await csClient(sim, v2).describeClustersV1(
      new $Cs.DescribeClustersV1Request({ regionId: IDS.regionId }),
    );
    expect(c.body?.clusters?.[0]?.clusterId).toBe(IDS.clusterId);
    const d = await csClient(sim, v2).describeClusterDetail(IDS.clusterId);
    expect(d.body?.name).toBe('sim-cluster');
  });

  it('wrong secret and unknown key surface as ClientError with the gateway codes', async () => {
    const wrong = await ecsClient(sim, { ...v2, accessKeySecret: 'wrong' })
      .describeInstances(new $Ecs.DescribeInstancesRequest({ regionId: IDS.regionId }))
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(wrong).toBeInstanceOf(ClientError);
    expect(wrong).toMatchObject({ code: 'SignatureDoesNotMatch', statusCode: 400 });
    const unknown = await csClient(sim, { ...v2, accessKeyId: 'nobody' })
      .describeClustersV1(new $Cs.DescribeClustersV1Request({}))
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(unknown).toBeInstanceOf(ClientError);
    expect(unknown).toMatchObject({ code: 'InvalidAccessKeyId.NotFound', statusCode: 404 });
  });

  it('V3 SDK calls with a wrong secret fail the same way', async () => {
    await expect(
      ecsClient(sim, { accessKeySecret: 'wrong' }).describeInstances(
        new $Ecs.DescribeInstancesRequest({ regionId: IDS.regionId }),
      ),
    ).rejects.toMatchObject({
      name: 'ClientError',
      code: 'SignatureDoesNotMatch',
      statusCode: 400,
    });
  });
});
