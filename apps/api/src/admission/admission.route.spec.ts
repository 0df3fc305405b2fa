import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import request from 'supertest';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Principal } from '@app/store';
import type { ProcessMetrics } from '@app/telemetry';
import { ApiError } from '../common/api.exception';
import type { TokenAuthenticator } from '../auth/token-authenticator';
import { AdmissionRoute } from './admission.route';
import type { AdmissionService } from './admission.service';

const TOKEN = 'admission-route-spec-token-0123456789';
const VIEWER: Principal = Object.freeze({ role: 'viewer', kind: 'token', tokenId: 't1', accountScope: ['1234567890123456'], teamScope: ['payments'] }) as unknown as Principal;
const ANSWER = { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid: 'u1', allowed: true } };

/** What the fakes saw. */
const seen = {
  reviews: [] as { cluster: string; body: unknown; options: { enforce: boolean; timeout?: string | undefined }; principal: Principal }[],
  auth: [] as { header: string | undefined; address: string }[],
  metrics: [] as Record<string, string>[],
  express: 0,
};
let reviewError: unknown;
let authError: unknown;

const admission = {
  review: async (cluster: string, body: unknown, options: { enforce: boolean; timeout?: string }, principal: Principal) => {
    seen.reviews.push({ cluster, body, options, principal });
    if (reviewError) throw reviewError;
    return ANSWER;
  },
} as unknown as AdmissionService;

/** A team-scoped viewer for TOKEN, 401 otherwise (as TokenAuthenticator answers), or `authError`. */
const auth = {
  authenticate: async (header: string | undefined, address: string) => {
    seen.auth.push({ header, address });
    if (authError) throw authError;
    if (header !== `Bearer ${TOKEN}`) throw new ApiError('UNAUTHENTICATED', 'Missing bearer token');
    return VIEWER;
  },
  forbidden: async () => undefined,
} as unknown as TokenAuthenticator;

const metrics = {
  httpDuration: { startTimer: () => (labels: Record<string, string>) => void seen.metrics.push(labels) },
} as unknown as ProcessMetrics;

function route(trustProxy = false): AdmissionRoute {
  return new AdmissionRoute({
    admission,
    auth,
    securityHeaders: (_req, res, next) => {
      res.setHeader('X-Content-Type-Options', 'nosniff');
      next();
    },
    metrics,
    bodyLimit: 100 * 1024,
    logRequests: false,
    trustProxy,
  });
}

/** A request as `takes` reads it. */
function req(url: string, headers: Record<string, string> = {}, method = 'POST'): IncomingMessage {
  return { method, url, headers: { 'content-type': 'application/json', 'content-length': '20', ...headers } } as unknown as IncomingMessage;
}

describe('AdmissionRoute.takes', () => {
  const r = route();

  it('takes a JSON POST to /v1/admission/{cluster} and /enforce, with a query or a trailing slash', () => {
    for (const url of ['/v1/admission/c1', '/v1/admission/c1/', '/v1/admission/c1?timeout=5s', '/v1/admission/c1/enforce', '/v1/admission/c1/enforce?timeout=5s&enforce=true'])
      expect(r.takes(req(url)), url).toBe(true);
    for (const type of ['application/json; charset=utf-8', 'Application/JSON;charset="UTF-8"']) expect(r.takes(req('/v1/admission/c1', { 'content-type': type })), type).toBe(true);
    expect(r.takes(req('/v1/admission/c1', { 'content-encoding': 'identity' }))).toBe(true);
    expect(r.takes(req('/v1/admission/c1', { 'content-length': String(100 * 1024) }))).toBe(true);
  });

  it('leaves to Express another method or path, a percent-encoded cluster', () => {
    expect(r.takes(req('/v1/admission/c1', {}, 'GET'))).toBe(false);
    expect(r.takes(req('/v1/admission/c1', {}, 'PUT'))).toBe(false);
    for (const url of ['/v1/admission/', '/v1/admission', '/v1/admission/c1/other', '/v1/admission/c1/enforce/x', '/v1/admissions/c1', '/v1/admission/c%20x', '/v1/plans']) expect(r.takes(req(url)), url).toBe(false);
  });

  it('leaves to Express a body it would not read as Express reads it', () => {
    for (const type of ['text/yaml', 'application/x-www-form-urlencoded', 'application/json; charset=latin1', 'application/jsonx', 'application/json-patch+json'])
      expect(r.takes(req('/v1/admission/c1', { 'content-type': type })), type).toBe(false);
    const noType = req('/v1/admission/c1');
    delete noType.headers['content-type'];
    expect(r.takes(noType)).toBe(false);
    expect(r.takes(req('/v1/admission/c1', { 'content-encoding': 'gzip' }))).toBe(false);
    expect(r.takes(req('/v1/admission/c1', { 'transfer-encoding': 'chunked' }))).toBe(false);
    const noLength = req('/v1/admission/c1');
    delete noLength.headers['content-length'];
    expect(r.takes(noLength)).toBe(false);
    expect(r.takes(req('/v1/admission/c1', { 'content-length': String(100 * 1024 + 1) })), 'over the limit: Express answers 413').toBe(false);
  });

  it('leaves to Express a request naming its client in X-Forwarded-For when Express trusts a proxy', () => {
    expect(r.takes(req('/v1/admission/c1', { 'x-forwarded-for': '10.0.0.1' }))).toBe(true);
    expect(route(true).takes(req('/v1/admission/c1', { 'x-forwarded-for': '10.0.0.1' }))).toBe(false);
    expect(route(true).takes(req('/v1/admission/c1'))).toBe(true);
  });
});

describe('AdmissionRoute.handle', () => {
  let server: Server;
  const r = route();

  beforeAll(() => {
    server = createServer((q: IncomingMessage, s: ServerResponse) => {
      if (r.takes(q)) return r.handle(q, s);
      seen.express++;
      s.statusCode = 599;
      s.end();
    });
  });
  afterAll(() => new Promise<void>((done) => server.close(() => done())));
  beforeEach(() => {
    seen.reviews = [];
    seen.auth = [];
    seen.metrics = [];
    seen.express = 0;
    reviewError = undefined;
    authError = undefined;
  });

  const post = (path: string, body: string | object, token: string | null = TOKEN) => {
    const t = request(server).post(path).set('Content-Type', 'application/json');
    return (token ? t.set('Authorization', `Bearer ${token}`) : t).send(typeof body === 'string' ? body : JSON.stringify(body));
  };

  it('answers the review with the security headers, as JSON, counted under the route template', async () => {
    const res = await post('/v1/admission/storefront?timeout=5s', { apiVersion: 'admission.k8s.io/v1', n: 1 });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.body).toEqual(ANSWER);
    expect(seen.reviews).toEqual([{ cluster: 'storefront', body: { apiVersion: 'admission.k8s.io/v1', n: 1 }, options: { enforce: false, timeout: '5s' }, principal: VIEWER }]);
    expect(seen.auth).toEqual([{ header: `Bearer ${TOKEN}`, address: expect.any(String) }]);
    expect(seen.metrics).toEqual([{ method: 'POST', route: '/v1/admission/:cluster', status_code: '200' }]);
    expect(seen.express).toBe(0);
  });

  it('enforces by the path or by enforce=true alone (a repeated or other value does not), passes the timeout only as one value', async () => {
    await post('/v1/admission/c1/enforce', {});
    await post('/v1/admission/c1?enforce=true', {});
    await post('/v1/admission/c1?enforce=TRUE', {});
    await post('/v1/admission/c1?enforce=true&enforce=true&timeout=1s&timeout=2s', {});
    expect(seen.reviews.map((v) => v.options)).toEqual([{ enforce: true, timeout: undefined }, { enforce: true, timeout: undefined }, { enforce: false, timeout: undefined }, { enforce: false, timeout: undefined }]);
    expect(seen.metrics.map((m) => m.route)).toEqual(['/v1/admission/:cluster/enforce', '/v1/admission/:cluster', '/v1/admission/:cluster', '/v1/admission/:cluster']);
  });

  it('a team-scoped viewer reviews (the controller is team-aware, any role)', async () => {
    const res = await post('/v1/admission/c1', {});
    expect(res.status).toBe(200);
    expect(seen.reviews[0]!.principal.teamScope).toEqual(['payments']);
  });

  it('without a valid token: 401 with its challenge and the error body, never a review', async () => {
    const res = await post('/v1/admission/c1', { apiVersion: 'admission.k8s.io/v1' }, null);
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toBe('Bearer realm="fleet-audit"');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.body).toMatchObject({ statusCode: 401, error: 'UNAUTHENTICATED' });
    expect(seen.reviews).toHaveLength(0);
    expect(seen.metrics).toEqual([{ method: 'POST', route: '/v1/admission/:cluster', status_code: '401' }]);
    expect((await post('/v1/admission/c1', {}, 'wrong-token-0123456789abcdef')).status).toBe(401);
  });

  it('rate limited: 429 with Retry-After', async () => {
    authError = new ApiError('RATE_LIMITED', 'Too many failed authentications from this address; retry in 7 s', undefined, 7);
    const res = await post('/v1/admission/c1', {});
    expect(res.status).toBe(429);
    expect(res.headers['retry-after']).toBe('7');
  });

  it('a body that is not JSON, or JSON that is not an object or array, is 400 as body-parser refuses it; an empty body is {}', async () => {
    for (const text of ['{"apiVersion": ', '"AdmissionReview"', 'null', '42']) {
      const res = await post('/v1/admission/c1', text);
      expect(res.status, text).toBe(400);
      expect(res.body, text).toMatchObject({ statusCode: 400, error: 'VALIDATION_FAILED', message: expect.stringMatching(/^Invalid body: not valid JSON \(.+\)$/) });
    }
    expect(seen.reviews).toHaveLength(0);
    expect(seen.auth, 'the body is read before the token is checked, as body-parser did').toHaveLength(0);
    expect((await post('/v1/admission/c1', '')).status).toBe(200);
    expect((await post('/v1/admission/c1', '\ufeff \n[1]')).status).toBe(200);
    expect(seen.reviews.map((v) => v.body)).toEqual([{}, [1]]);
  });

  it('a review refused by the service is its 400 with the issues; an unexpected error a 500 without details', async () => {
    reviewError = new ApiError('VALIDATION_FAILED', 'not an AdmissionReview admission.k8s.io/v1: body.kind: wrong', [{ path: 'body.kind', message: 'wrong' }]);
    const bad = await post('/v1/admission/c1', {});
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ statusCode: 400, error: 'VALIDATION_FAILED', message: 'not an AdmissionReview admission.k8s.io/v1: body.kind: wrong', issues: [{ path: 'body.kind', message: 'wrong' }] });
    reviewError = new Error('secret internals');
    const failed = await post('/v1/admission/c1', {});
    expect(failed.status).toBe(500);
    expect(failed.text).not.toContain('secret internals');
    expect(seen.metrics.map((m) => m.status_code)).toEqual(['400', '500']);
  });

  it('hands Express what it does not take, unread', async () => {
    const res = await request(server).post('/v1/admission/c1').set('Content-Type', 'text/yaml').send('apiVersion: v1');
    expect(res.status).toBe(599);
    expect(seen.express).toBe(1);
    expect(seen.auth).toHaveLength(0);
  });
});
