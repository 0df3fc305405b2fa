/**
 * The Alibaba Cloud request signature algorithms, as pure functions, for the simulator to verify
 * what the official SDKs send. Source: `research/alibaba-cloud-api.md` sections 1.3 (V3
 * ACS3-HMAC-SHA256) and 1.4 (V1 HMAC-SHA1, RPC and ROA), checked against
 * `@alicloud/openapi-core` 1.0.8 `utils.js` (`getAuthorization`, `getRPCSignature`,
 * `getStringToSign`).
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

/** `encodeURIComponent` plus `! ' ( ) *` -> `%21 %27 %28 %29 %2A` (the SDKs' `encode`). */
export function acsPercentEncode(value: string): string {
  return encodeURIComponent(value).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

/** Hex SHA-256 of a body (V3 `x-acs-content-sha256`, the last line of the canonical request). */
export function sha256Hex(data: Buffer | string): string {
  return createHash('sha256').update(data).digest('hex');
}

/** Inputs of a V3 canonical request. Header names lowercase; query values decoded. */
export interface V3CanonicalInput {
  method: string;
  /** The path exactly as sent (percent-encoded), `/` for RPC. */
  pathname: string;
  query: Readonly<Record<string, string>>;
  /** Values of the signed headers, by lowercase name. */
  headers: Readonly<Record<string, string>>;
  /** Lowercase header names listed in `SignedHeaders`, in any order. */
  signedHeaders: readonly string[];
  /** Hex SHA-256 of the body. */
  payloadHash: string;
}

/**
 * The V3 canonical request:
 * `METHOD\npath\nsorted k=enc(v)&...\nname:value\n...\n\nname;name\npayloadHash`.
 */
export function v3CanonicalRequest(input: V3CanonicalInput): string {
  const canonicalUri = input.pathname.replace(/\+/g, '%20').replace(/\*/g, '%2A').replace(/%7E/g, '~');
  const query = Object.keys(input.query)
    .sort()
    .map((k) => `${k}=${acsPercentEncode(input.query[k] ?? '')}`)
    .join('&');
  const names = [...input.signedHeaders].map((h) => h.toLowerCase()).sort();
  const headers = names.map((h) => `${h}:${(input.headers[h] ?? '').trim()}\n`).join('');
  return `${input.method}\n${canonicalUri}\n${query}\n${headers}\n${names.join(';')}\n${input.payloadHash}`;
}

/** Hex HMAC-SHA256 signature of a V3 canonical request (`ACS3-HMAC-SHA256\n` + hex sha256). */
export function v3Signature(canonicalRequest: string, secret: string): string {
  const stringToSign = `ACS3-HMAC-SHA256\n${sha256Hex(canonicalRequest)}`;
  return createHmac('sha256', secret).update(stringToSign).digest('hex');
}

/**
 * V1 RPC signature: base64 HMAC-SHA1 with key `secret&` over
 * `METHOD&%2F&enc(sorted enc(k)=enc(v) joined by &)`. `params` are every query and form
 * parameter except `Signature`.
 */
export function rpcV1Signature(
  method: string,
  params: Readonly<Record<string, string>>,
  secret: string,
): string {
  const canonical = Object.keys(params)
    .sort()
    .map((k) => `${acsPercentEncode(k)}=${acsPercentEncode(params[k] ?? '')}`)
    .join('&');
  const stringToSign = `${method}&${acsPercentEncode('/')}&${acsPercentEncode(canonical)}`;
  return createHmac('sha1', `${secret}&`).update(stringToSign).digest('base64');
}

/**
 * V1 ROA string to sign: `METHOD\naccept\ncontent-md5\ncontent-type\ndate\n` + sorted
 * `x-acs-*:value\n` headers + `path[?sorted k=v&...]` (query values raw, not encoded).
 * @param headers lowercase header names
 */
export function roaV1StringToSign(
  method: string,
  pathname: string,
  query: Readonly<Record<string, string>>,
  headers: Readonly<Record<string, string>>,
): string {
  const h = (n: string): string => headers[n] ?? '';
  const acs = Object.keys(headers)
    .filter((k) => k.startsWith('x-acs-'))
    .sort()
    .map((k) => `${k}:${(headers[k] ?? '').replace(/[\t\n\r\f]/g, ' ').trim()}\n`)
    .join('');
  const keys = Object.keys(query).sort();
  const resource =
    keys.length === 0 ? pathname : `${pathname}?${keys.map((k) => `${k}=${query[k] ?? ''}`).join('&')}`;
  return `${method}\n${h('accept')}\n${h('content-md5')}\n${h('content-type')}\n${h('date')}\n${acs}${resource}`;
}

/** V1 ROA signature: base64 HMAC-SHA1(secret, stringToSign). */
export function roaV1Signature(stringToSign: string, secret: string): string {
  return createHmac('sha1', secret).update(Buffer.from(stringToSign, 'utf8')).digest('base64');
}

/** Constant-time string comparison (signatures). */
export function safeEqual(a: string, b: string): boolean {
  const ba = Buffer.from(a);
  const bb = Buffer.from(b);
  return ba.length === bb.length && timingSafeEqual(ba, bb);
}
