/**
 * Request signers written independently of the simulator's `signature.util.ts`, straight from
 * the algorithm descriptions in `shared/research/alibaba-cloud-api.md` 1.3 (V3) and 1.4 (V1),
 * so the tests check the verifier against the spec, not against itself.
 */
import { createHash, createHmac, randomUUID } from 'node:crypto';
import { request } from 'node:http';

const pct = (s: string): string =>
  encodeURIComponent(s)
    .replace(/!/g, '%21')
    .replace(/'/g, '%27')
    .replace(/\(/g, '%28')
    .replace(/\)/g, '%29')
    .replace(/\*/g, '%2A');

const isoNoMillis = (d: Date): string => d.toISOString().replace(/\.\d{3}Z$/, 'Z');

/** A raw request to send. */
export interface RawRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: Record<string, string>;
  body?: string;
}

/** Send a raw request to 127.0.0.1:port; resolves status, headers and parsed JSON body. */
export function send(
  endpoint: string,
  r: RawRequest,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const [host, port] = endpoint.split(':') as [string, string];
  const qs = Object.entries(r.query)
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`)
    .join('&');
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host,
        port: Number(port),
        method: r.method,
        path: qs ? `${r.path}?${qs}` : r.path,
        headers: r.headers,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          try {
            resolve({
              status: res.statusCode ?? 0,
              body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>,
            });
          } catch (e) {
            reject(e as Error);
          }
        });
      },
    );
    req.on('error', reject);
    if (r.body !== undefined) req.write(r.body);
    req.end();
  });
}

/** Sign with V3 ACS3-HMAC-SHA256: returns the request with `authorization` and the x-acs headers set. */
export function signV3(
  endpoint: string,
  ak: string,
  secret: string,
  r: {
    method: string;
    path: string;
    query: Record<string, string>;
    action: string;
    version: string;
    body?: string;
    contentType?: string;
    date?: Date;
  },
): RawRequest {
  const body = r.body ?? '';
  const headers: Record<string, string> = {
    host: endpoint,
    'x-acs-action': r.action,
    'x-acs-version': r.version,
    'x-acs-date': isoNoMillis(r.date ?? new Date()),
    'x-acs-signature-nonce': randomUUID(),
    'x-acs-content-sha256': createHash('sha256').update(body).digest('hex'),
    ...(r.contentType ? { 'content-type': r.contentType } : {}),
  };
  const signed = Object.keys(headers).sort();
  const canonicalQuery = Object.keys(r.query)
    .sort()
    .map((k) => `${k}=${pct(r.query[k] as string)}`)
    .join('&');
  const canonicalHeaders = signed.map((h) => `${h}:${(headers[h] as string).trim()}\n`).join('');
  const canonicalRequest = [
    r.method,
    r.path,
    canonicalQuery,
    canonicalHeaders,
    signed.join(';'),
    headers['x-acs-content-sha256'],
  ].join('\n');
  const stringToSign = `ACS3-HMAC-SHA256\n${createHash('sha256').update(canonicalRequest).digest('hex')}`;
  const signature = createHmac('sha256', secret).update(stringToSign).digest('hex');
  headers['authorization'] =
    `ACS3-HMAC-SHA256 Credential=${ak},SignedHeaders=${signed.join(';')},Signature=${signature}`;
  return {
    method: r.method,
    path: r.path,
    query: r.query,
    headers,
    ...(r.body !== undefined ? { body: r.body } : {}),
  };
}

/** Sign an RPC request with V1 HMAC-SHA1 (all parameters in the query). */
export function signRpcV1(
  ak: string,
  secret: string,
  r: { method: string; action: string; version: string; params: Record<string, string>; timestamp?: Date },
): RawRequest {
  const query: Record<string, string> = {
    Action: r.action,
    Version: r.version,
    Format: 'JSON',
    Timestamp: isoNoMillis(r.timestamp ?? new Date()),
    SignatureNonce: randomUUID(),
    SignatureMethod: 'HMAC-SHA1',
    SignatureVersion: '1.0',
    AccessKeyId: ak,
    ...r.params,
  };
  const canonical = Object.keys(query)
    .sort()
    .map((k) => `${pct(k)}=${pct(query[k] as string)}`)
    .join('&');
  const stringToSign = `${r.method}&${pct('/')}&${pct(canonical)}`;
  query['Signature'] = createHmac('sha1', `${secret}&`).update(stringToSign).digest('base64');
  return { method: r.method, path: '/', query, headers: {} };
}

/** Sign a ROA request with V1 HMAC-SHA1 (`authorization: acs AK:sig`). */
export function signRoaV1(
  endpoint: string,
  ak: string,
  secret: string,
  r: { method: string; path: string; query: Record<string, string>; action: string },
): RawRequest {
  const headers: Record<string, string> = {
    host: endpoint,
    accept: 'application/json',
    date: new Date().toUTCString(),
    'x-acs-signature-nonce': randomUUID(),
    'x-acs-signature-method': 'HMAC-SHA1',
    'x-acs-signature-version': '1.0',
    'x-acs-version': '2015-12-15',
    'x-acs-action': r.action,
  };
  const acs = Object.keys(headers)
    .filter((k) => k.startsWith('x-acs-'))
    .sort()
    .map((k) => `${k}:${headers[k] as string}\n`)
    .join('');
  const keys = Object.keys(r.query).sort();
  const resource = keys.length
    ? `${r.path}?${keys.map((k) => `${k}=${r.query[k] as string}`).join('&')}`
    : r.path;
  const stringToSign = `${r.method}\napplication/json\n\n\n${headers['date'] as string}\n${acs}${resource}`;
  headers['authorization'] = `acs ${ak}:${createHmac('sha1', secret).update(stringToSign).digest('base64')}`;
  return { method: r.method, path: r.path, query: r.query, headers };
}
