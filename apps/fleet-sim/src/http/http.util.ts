/**
 * Small helpers over `node:http` shared by the Alibaba Cloud and Kubernetes front ends:
 * reading a request body, parsing query strings and urlencoded forms, writing JSON responses.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parse as parseQueryString } from 'node:querystring';
import { FleetAuditError } from '@app/errors';

/** Largest request body the simulator accepts, bytes (the read APIs it serves send a few KiB at most). */
export const MAX_BODY_BYTES = 8 * 1024 * 1024;

/** A request body over {@link MAX_BODY_BYTES}. */
export class BodyTooLargeError extends FleetAuditError {
  override readonly name = 'BodyTooLargeError';
  /** Stable code (libs/errors README). */
  readonly code = 'SIM_BODY_TOO_LARGE';
  /** The same request is refused again. */
  readonly permanent = true;
}

/**
 * Read the whole request body.
 * @throws BodyTooLargeError past {@link MAX_BODY_BYTES}
 */
export async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new BodyTooLargeError(`request body over ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/**
 * Parse a query string or an `application/x-www-form-urlencoded` body into a flat string map
 * (`+` decodes to a space, as `querystring` does; for a repeated key the last value wins).
 */
export function parseFlatParams(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  if (text === '') return out;
  const parsed = parseQueryString(text);
  for (const [key, value] of Object.entries(parsed)) {
    if (value === undefined) continue;
    out[key] = Array.isArray(value) ? (value[value.length - 1] ?? '') : value;
  }
  return out;
}

/** Split `req.url` into the raw (still percent-encoded) path and the raw query string. */
export function splitUrl(url: string | undefined): { rawPath: string; rawQuery: string } {
  const u = url ?? '/';
  const q = u.indexOf('?');
  return q < 0 ? { rawPath: u, rawQuery: '' } : { rawPath: u.slice(0, q), rawQuery: u.slice(q + 1) };
}

/** A request header as one string (repeated headers joined with `,`), or `undefined`. */
export function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name.toLowerCase()];
  return Array.isArray(v) ? v.join(',') : v;
}

/**
 * Write a JSON response. `body` may be a pre-serialised JSON string (used for large Kubernetes
 * lists assembled from cached item JSON).
 */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json;charset=utf-8',
    'content-length': String(Buffer.byteLength(text)),
    ...headers,
  });
  res.end(text);
}
