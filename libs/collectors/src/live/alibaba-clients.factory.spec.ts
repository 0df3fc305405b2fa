import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DescribeInstancesRequest } from '@alicloud/ecs20140526';
import { ListRolesRequest } from '@alicloud/ram20150501';
import * as $dara from '@darabonba/typescript';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { NLB_DATA } from '@app/domain';
import { alibabaError } from './collect-error.util';
import {
  callKindProduct,
  callQuotas,
  callSlb,
  createAccountClients,
  CredentialsConfigError,
  resolveBaseCredentials,
} from './alibaba-clients.factory';

interface Seen {
  method: string;
  url: URL;
  headers: IncomingMessage['headers'];
  body: string;
}

let server: Server;
let endpoint: string;
let seen: Seen[] = [];
let reply: (s: Seen) => { status: number; body: unknown } = () => ({ status: 200, body: {} });

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const s: Seen = {
        method: req.method ?? '',
        url: new URL(req.url ?? '/', 'http://x'),
        headers: req.headers,
        body: Buffer.concat(chunks).toString(),
      };
      seen.push(s);
      const r = reply(s);
      res.writeHead(r.status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(r.body));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  endpoint = `127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));
beforeEach(() => {
  seen = [];
});

const creds = { kind: 'static' as const, accessKeyId: 'LTAItestkey0001', accessKeySecret: 'testsecret0001' };
const settings = () => ({ endpoint, protocol: 'http' as const, readTimeoutMs: 5000, connectTimeoutMs: 2000 });

describe('createAccountClients', () => {
  it('sends ECS calls to the overridden endpoint over http, V3-signed, and toMap() gives wire names back', async () => {
    reply = () => ({
      status: 200,
      body: {
        RequestId: 'R',
        NextToken: '',
        Instances: { Instance: [{ InstanceId: 'i-1', VpcAttributes: { VpcId: 'vpc-1' } }] },
      },
    });
    const rc = createAccountClients(settings(), creds).region('cn-hangzhou');
    const resp = await rc.ecs.describeInstancesWithOptions(
      new DescribeInstancesRequest({ regionId: 'cn-hangzhou', maxResults: 100 }),
      new $dara.RuntimeOptions({}),
    );
    expect(resp.body?.toMap()).toMatchObject({
      Instances: { Instance: [{ InstanceId: 'i-1', VpcAttributes: { VpcId: 'vpc-1' } }] },
    });
    expect(seen[0].headers['x-acs-action']).toBe('DescribeInstances');
    expect(seen[0].headers['x-acs-version']).toBe('2014-05-26');
    expect(seen[0].headers.host).toBe(endpoint);
    expect(seen[0].headers.authorization).toMatch(/^ACS3-HMAC-SHA256 Credential=LTAItestkey0001,/);
    expect(seen[0].url.searchParams.get('MaxResults')).toBe('100');
    expect(seen[0].url.searchParams.get('RegionId')).toBe('cn-hangzhou');
  });

  it('calls SLB 2014-05-15 through the generic client with parameters in the query', async () => {
    reply = () => ({
      status: 200,
      body: { RequestId: 'R', TotalCount: 0, LoadBalancers: { LoadBalancer: [] } },
    });
    const rc = createAccountClients(settings(), creds).region('cn-beijing');
    const body = await callSlb(rc.slb, 'DescribeLoadBalancers', {
      RegionId: 'cn-beijing',
      PageNumber: 2,
      PageSize: 100,
    });
    expect(body).toEqual({ RequestId: 'R', TotalCount: 0, LoadBalancers: { LoadBalancer: [] } });
    expect(seen[0]).toMatchObject({ method: 'POST', body: '' });
    expect(seen[0].headers['x-acs-action']).toBe('DescribeLoadBalancers');
    expect(seen[0].headers['x-acs-version']).toBe('2014-05-15');
    expect(Object.fromEntries(seen[0].url.searchParams)).toEqual({
      RegionId: 'cn-beijing',
      PageNumber: '2',
      PageSize: '100',
    });
  });

  it('calls NLB 2022-04-30 through the generic client with flattened query arrays (LoadBalancerIds.N)', async () => {
    reply = () => ({ status: 200, body: { RequestId: 'R', Listeners: [], TotalCount: 0 } });
    const rc = createAccountClients(settings(), creds).region('cn-shanghai');
    const body = await callKindProduct(rc.product(NLB_DATA.product), NLB_DATA.product, 'ListListeners', {
      RegionId: 'cn-shanghai',
      LoadBalancerIds: ['nlb-a', 'nlb-b'],
      MaxResults: 100,
    });
    expect(body).toEqual({ RequestId: 'R', Listeners: [], TotalCount: 0 });
    expect(seen[0]).toMatchObject({ method: 'POST', body: '' });
    expect(seen[0].headers['x-acs-action']).toBe('ListListeners');
    expect(seen[0].headers['x-acs-version']).toBe('2022-04-30');
    expect(Object.fromEntries(seen[0].url.searchParams)).toEqual({
      RegionId: 'cn-shanghai',
      'LoadBalancerIds.1': 'nlb-a',
      'LoadBalancerIds.2': 'nlb-b',
      MaxResults: '100',
    });
  });

  it('reaches NLB at its regional endpoint nlb.<regionId>.aliyuncs.com without an override', () => {
    const rc = createAccountClients({ protocol: 'https', readTimeoutMs: 5000, connectTimeoutMs: 2000 }, creds).region('cn-shanghai');
    expect(rc.endpointOf(NLB_DATA.product)).toBe('nlb.cn-shanghai.aliyuncs.com');
    expect(createAccountClients(settings(), creds).region('cn-shanghai').endpointOf(NLB_DATA.product)).toBe(endpoint);
  });

  it('calls Quota Center 2020-05-10 with parameters in a form body (Dimensions flattened)', async () => {
    reply = () => ({ status: 200, body: { RequestId: 'R', Quotas: [] } });
    const clients = createAccountClients(settings(), creds);
    await callQuotas(clients.quotas, 'ListProductQuotas', {
      ProductCode: 'slb',
      Dimensions: [{ Key: 'regionId', Value: 'cn-hangzhou' }],
      MaxResults: 100,
    });
    expect(seen[0].headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(seen[0].headers['x-acs-version']).toBe('2020-05-10');
    expect(Object.fromEntries(new URLSearchParams(seen[0].body))).toEqual({
      ProductCode: 'slb',
      'Dimensions.1.Key': 'regionId',
      'Dimensions.1.Value': 'cn-hangzhou',
      MaxResults: '100',
    });
  });

  it('surfaces a JSON error body as a ThrottlingError that maps to a retryable CollectError', async () => {
    reply = () => ({
      status: 400,
      body: {
        RequestId: 'R-9',
        Code: 'Throttling.User',
        Message: 'Request was denied due to user flow control.',
      },
    });
    const rc = createAccountClients(settings(), creds).region('cn-hangzhou');
    const err = await callSlb(rc.slb, 'DescribeLoadBalancers', { RegionId: 'cn-hangzhou' }).catch(
      (e: unknown) => e,
    );
    expect((err as Error).name).toBe('ThrottlingError');
    expect(alibabaError(err, 'DescribeLoadBalancers', '1/cn-hangzhou')).toMatchObject({
      errorCode: 'Throttling.User',
      retryable: true,
    });
  });

  it('sends the STS token of temporary credentials', async () => {
    reply = () => ({ status: 200, body: { RequestId: 'R', Roles: { Role: [] } } });
    const clients = createAccountClients(settings(), {
      kind: 'static',
      accessKeyId: 'STS.abc',
      accessKeySecret: 's',
      securityToken: 'tok-123',
    });
    await clients.ram.listRolesWithOptions(new ListRolesRequest({}), new $dara.RuntimeOptions({}));
    expect(seen[0].headers['x-acs-security-token']).toBe('tok-123');
    expect(seen[0].headers['x-acs-action']).toBe('ListRoles');
  });
});

describe('resolveBaseCredentials', () => {
  it('prefers a literal AccessKey, then named env variables, else the default chain', () => {
    expect(resolveBaseCredentials({ credentials: { accessKeyId: 'a', accessKeySecret: 'b' } }, {})).toEqual({
      kind: 'static',
      accessKeyId: 'a',
      accessKeySecret: 'b',
    });
    expect(
      resolveBaseCredentials(
        { credentials: { accessKeyIdEnv: 'MY_ID', accessKeySecretEnv: 'MY_SECRET' } },
        { MY_ID: 'x', MY_SECRET: 'y' },
      ),
    ).toEqual({
      kind: 'static',
      accessKeyId: 'x',
      accessKeySecret: 'y',
    });
    expect(resolveBaseCredentials({}, {})).toEqual({ kind: 'default-chain' });
  });

  it('names the missing env variable without echoing any value', () => {
    expect(() =>
      resolveBaseCredentials(
        { credentials: { accessKeyIdEnv: 'MY_ID', accessKeySecretEnv: 'MY_SECRET' } },
        { MY_ID: 'x' },
      ),
    ).toThrow(CredentialsConfigError);
    expect(() =>
      resolveBaseCredentials(
        { credentials: { accessKeyIdEnv: 'MY_ID', accessKeySecretEnv: 'MY_SECRET' } },
        { MY_ID: 'x' },
      ),
    ).toThrow(/MY_SECRET is not set/);
  });
});
