import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  AccountCredentialsResolver,
  REFRESH_BEFORE_EXPIRY_MS,
  ROLE_SESSION_NAME,
} from './account-credentials.service';
import { CollectError } from './collect-error.util';
import { parseScanConfig } from './scan-config.loader';

/** A fake STS endpoint: answers AssumeRole with numbered temporary keys, or an error for role "denied". */
let server: Server;
let endpoint = '';
let calls: URLSearchParams[] = [];
let expiration = '2030-01-01T00:00:00Z';

beforeAll(async () => {
  server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const params = new URLSearchParams(url.search);
      for (const [k, v] of new URLSearchParams(Buffer.concat(chunks).toString())) params.set(k, v);
      const action = req.headers['x-acs-action']; // V3 signature: the action is a header
      if (typeof action === 'string') params.set('Action', action);
      calls.push(params);
      res.setHeader('content-type', 'application/json');
      if ((params.get('RoleArn') ?? '').endsWith('/denied')) {
        res.statusCode = 403;
        res.end(
          JSON.stringify({
            RequestId: 'R1',
            Code: 'NoPermission',
            Message: `You are not authorized to do this action (key AKIDBASE0001 secret BASESECRET0001).`,
          }),
        );
        return;
      }
      const n = calls.length;
      res.end(
        JSON.stringify({
          RequestId: `R${n}`,
          AssumedRoleUser: { Arn: params.get('RoleArn'), AssumedRoleId: `id${n}` },
          Credentials: {
            AccessKeyId: `STS.key${n}`,
            AccessKeySecret: `secret${n}`,
            SecurityToken: `token${n}`,
            Expiration: expiration,
          },
        }),
      );
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  endpoint = `127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((r) => server.close(() => r()));
});
beforeEach(() => {
  calls = [];
  expiration = '2030-01-01T00:00:00Z';
});

const config = () =>
  parseScanConfig(
    JSON.stringify({
      alibabaCloud: { endpoint, protocol: 'http' },
      credentials: { accessKeyId: 'AKIDBASE0001', accessKeySecret: 'BASESECRET0001' },
      accounts: [
        { accountId: '1', regions: ['cn-hangzhou'], auditRoleArn: 'acs:ram::1:role/fleet-audit-readonly' },
        { accountId: '2', regions: ['cn-hangzhou'], auditRoleArn: 'acs:ram::2:role/denied' },
        { accountId: '3', regions: ['cn-hangzhou'] },
      ],
    }),
    'c.json',
  );

describe(AccountCredentialsResolver.name, () => {
  it('assumes the audit role with RoleSessionName fleet-audit and returns STS credentials', async () => {
    const c = config();
    const sut = new AccountCredentialsResolver(c);
    const got = await sut.credentialsFor(c.accounts[0]);
    expect(got).toMatchObject({
      kind: 'static',
      accessKeyId: 'STS.key1',
      accessKeySecret: 'secret1',
      securityToken: 'token1',
      expiresAt: Date.parse('2030-01-01T00:00:00Z'),
    });
    expect(calls).toHaveLength(1);
    expect(calls[0].get('Action')).toBe('AssumeRole');
    expect(calls[0].get('RoleArn')).toBe('acs:ram::1:role/fleet-audit-readonly');
    expect(calls[0].get('RoleSessionName')).toBe(ROLE_SESSION_NAME);
  });

  it('uses the base credentials for an account without auditRoleArn (no STS call)', async () => {
    const c = config();
    const got = await new AccountCredentialsResolver(c).credentialsFor(c.accounts[2]);
    expect(got).toEqual({ kind: 'static', accessKeyId: 'AKIDBASE0001', accessKeySecret: 'BASESECRET0001' });
    expect(calls).toHaveLength(0);
  });

  it('caches per account until 5 minutes before Expiration, sharing one call between concurrent requests', async () => {
    const c = config();
    const expiry = Date.parse('2030-01-01T00:00:00Z');
    let now = expiry - REFRESH_BEFORE_EXPIRY_MS - 1;
    const sut = new AccountCredentialsResolver(c, { now: () => now });
    const [a, b] = await Promise.all([sut.credentialsFor(c.accounts[0]), sut.credentialsFor(c.accounts[0])]);
    expect(a).toBe(b);
    expect(calls).toHaveLength(1);
    expect(await sut.credentialsFor(c.accounts[0])).toBe(a);
    expect(calls).toHaveLength(1);
    now += 1; // inside the 5-minute window: refresh
    const fresh = await sut.credentialsFor(c.accounts[0]);
    expect(calls).toHaveLength(2);
    expect(fresh).toMatchObject({ accessKeyId: 'STS.key2' });
  });

  it('fails with STS code and a message without any secret, and asks again next time', async () => {
    const c = config();
    const sut = new AccountCredentialsResolver(c);
    const err = await sut.credentialsFor(c.accounts[1]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CollectError);
    expect(err).toMatchObject({ errorCode: 'NoPermission' });
    const msg = (err as Error).message;
    expect(msg).toMatch(/^AssumeRole 2 acs:ram::2:role\/denied: NoPermission \(HTTP 403\)/);
    expect(msg).not.toContain('AKIDBASE0001');
    expect(msg).not.toContain('BASESECRET0001');
    await sut.credentialsFor(c.accounts[1]).catch(() => undefined);
    expect(calls).toHaveLength(2);
  });

  it('rejects a response without credentials as InvalidResponse', async () => {
    expiration = 'not a date';
    const c = config();
    await expect(new AccountCredentialsResolver(c).credentialsFor(c.accounts[0])).rejects.toMatchObject({
      errorCode: 'InvalidResponse',
    });
  });
});
