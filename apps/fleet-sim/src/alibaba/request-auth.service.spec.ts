/**
 * RequestAuthService against requests signed by openapi-core's own signing functions
 * (`OpenApiUtil.getAuthorization`, `getRPCSignature`, `getStringToSign`/`getROASignature`).
 */
import { createHash } from 'node:crypto';
import { OpenApiUtil } from '@alicloud/openapi-core';
import * as $dara from '@darabonba/typescript';
import { describe, expect, it } from 'vitest';
import { AcsError } from './acs-error.exception';
import { CredentialStore } from './credential.store';
import { RequestAuthService, type SignedRequestParts } from './request-auth.service';

const NOW = new Date('2026-11-22T03:48:19Z');
const stamp = (d: Date) => d.toISOString().replace(/\.\d{3}Z$/, 'Z');

function store(): CredentialStore {
  const s = new CredentialStore();
  s.add({ accessKeyId: 'AK', accessKeySecret: 'SK', accountId: '1' });
  s.add({
    accessKeyId: 'STS.AK',
    accessKeySecret: 'STS-SK',
    accountId: '2',
    securityToken: 'TOKEN',
    expiresAt: new Date(NOW.getTime() + 3600_000),
  });
  return s;
}

function v3(ak: string, sk: string, extra: Record<string, string> = {}, date = NOW): SignedRequestParts {
  const body = Buffer.from('ProductCode=slb');
  const headers: Record<string, string> = {
    host: '127.0.0.1:1',
    'x-acs-action': 'ListProductQuotas',
    'x-acs-version': '2020-05-10',
    'x-acs-date': stamp(date),
    'x-acs-signature-nonce': 'n1',
    'x-acs-content-sha256': createHash('sha256').update(body).digest('hex'),
    'content-type': 'application/x-www-form-urlencoded',
    ...extra,
  };
  const request = new $dara.Request();
  request.method = 'POST';
  request.pathname = '/';
  request.query = { RegionId: 'cn-hangzhou' };
  request.headers = headers;
  headers['authorization'] = OpenApiUtil.getAuthorization(
    request,
    'ACS3-HMAC-SHA256',
    headers['x-acs-content-sha256'] as string,
    ak,
    sk,
  );
  return {
    method: 'POST',
    rawPath: '/',
    query: { RegionId: 'cn-hangzhou' },
    form: { ProductCode: 'slb' },
    headers,
    body,
  };
}

const codeOf = (f: () => unknown): string | undefined => {
  try {
    f();
    return undefined;
  } catch (e) {
    return e instanceof AcsError ? e.code : String(e);
  }
};

describe(RequestAuthService.name, () => {
  const sut = new RequestAuthService(store(), () => NOW);

  it('accepts V3 as openapi-core signs it and resolves the account', () => {
    expect(sut.verify(v3('AK', 'SK'))).toMatchObject({ signature: 'v3', credential: { accountId: '1' } });
  });

  it('checks the STS token and expiry of temporary keys', () => {
    expect(
      sut.verify(v3('STS.AK', 'STS-SK', { 'x-acs-accesskey-id': 'STS.AK', 'x-acs-security-token': 'TOKEN' }))
        .credential.accountId,
    ).toBe('2');
    expect(codeOf(() => sut.verify(v3('STS.AK', 'STS-SK')))).toBe('MissingSecurityToken');
    expect(codeOf(() => sut.verify(v3('STS.AK', 'STS-SK', { 'x-acs-security-token': 'OTHER' })))).toBe(
      'InvalidSecurityToken.MismatchWithAccessKey',
    );
    const later = new RequestAuthService(store(), () => new Date(NOW.getTime() + 2 * 3600_000));
    expect(
      codeOf(() =>
        later.verify(
          v3('STS.AK', 'STS-SK', { 'x-acs-security-token': 'TOKEN' }, new Date(NOW.getTime() + 2 * 3600_000)),
        ),
      ),
    ).toBe('InvalidSecurityToken.Expired');
  });

  it('rejects a stale date, an unknown key, a wrong signature and an unsupported algorithm', () => {
    expect(codeOf(() => sut.verify(v3('AK', 'SK', {}, new Date(NOW.getTime() - 16 * 60_000))))).toBe(
      'InvalidTimeStamp.Expired',
    );
    expect(codeOf(() => sut.verify(v3('NOPE', 'SK')))).toBe('InvalidAccessKeyId.NotFound');
    expect(codeOf(() => sut.verify(v3('AK', 'WRONG')))).toBe('SignatureDoesNotMatch');
    const sm3 = v3('AK', 'SK');
    sm3.headers = {
      ...sm3.headers,
      authorization: (sm3.headers['authorization'] as string).replace('ACS3-HMAC-SHA256', 'ACS3-HMAC-SM3'),
    };
    expect(codeOf(() => sut.verify(sm3))).toBe('IncompleteSignature');
  });

  it('accepts V1 RPC with form parameters in the signed set', () => {
    const query: Record<string, string> = {
      Action: 'ListProductQuotas',
      Format: 'json',
      Version: '2020-05-10',
      Timestamp: stamp(NOW),
      SignatureNonce: 'n2',
      SignatureMethod: 'HMAC-SHA1',
      SignatureVersion: '1.0',
      AccessKeyId: 'AK',
    };
    const form = { ProductCode: 'slb', 'Dimensions.1.Key': 'regionId', 'Dimensions.1.Value': 'cn-hangzhou' };
    query['Signature'] = OpenApiUtil.getRPCSignature({ ...query, ...form }, 'POST', 'SK');
    const req: SignedRequestParts = {
      method: 'POST',
      rawPath: '/',
      query,
      form,
      headers: {},
      body: Buffer.from(''),
    };
    expect(sut.verify(req).signature).toBe('rpc-v1');
    expect(codeOf(() => sut.verify({ ...req, form: { ...form, ProductCode: 'ecs' } }))).toBe(
      'SignatureDoesNotMatch',
    );
  });

  it('accepts V1 ROA (`acs AK:sig`) over method, headers and the sorted raw query', () => {
    const request = new $dara.Request();
    request.method = 'GET';
    request.pathname = '/api/v1/clusters';
    request.query = { page_size: '10', region_id: 'cn-hangzhou' };
    request.headers = {
      date: NOW.toUTCString(),
      host: '127.0.0.1:1',
      accept: 'application/json',
      'x-acs-signature-nonce': 'n3',
      'x-acs-signature-method': 'HMAC-SHA1',
      'x-acs-signature-version': '1.0',
      'x-acs-version': '2015-12-15',
      'x-acs-action': 'DescribeClustersV1',
    };
    request.headers['authorization'] =
      `acs AK:${OpenApiUtil.getROASignature(OpenApiUtil.getStringToSign(request), 'SK')}`;
    const req: SignedRequestParts = {
      method: 'GET',
      rawPath: request.pathname,
      query: request.query,
      form: {},
      headers: request.headers,
      body: Buffer.from(''),
    };
    expect(sut.verify(req).signature).toBe('roa-v1');
    expect(codeOf(() => sut.verify({ ...req, query: { ...request.query, region_id: 'cn-beijing' } }))).toBe(
      'SignatureDoesNotMatch',
    );
  });
});
