/**
 * Limits of a GraphQL request checked before anything parses it, in front of the answer fast
 * path and Apollo:
 *  - the query text is at most `maxQueryBytes` (UTF-8; default 32 KiB, GRAPHQL_MAX_QUERY_BYTES): longer text is refused
 *    with 413 `QUERY_TOO_LARGE` before it is parsed, hashed or cached. The review padded 5,000 distinct queries to 95 KB
 *    each and the API grew from 296 MB to 2.1 GB: parsed documents and cache keys held the padding.
 *  - `variables` nest at most 64 levels deep (GraphQL input objects of the schema nest 3 levels; JSON values less than
 *    10): deeper ones are refused with 400 `BAD_USER_INPUT` (without the bound, a 5,000-level unused variable
 *    overflows the stack in the cost and cache keys: a 500).
 * Both answer a GraphQL-shaped JSON body `{ errors: [{ message, extensions: { code } }] }`.
 */
import { Inject, Injectable, type NestMiddleware } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';

/** Default of GRAPHQL_MAX_QUERY_BYTES: the longest query text accepted (bytes of UTF-8). */
export const DEFAULT_MAX_QUERY_BYTES = 32 * 1024;

/** Deepest nesting of `variables` accepted. */
export const MAX_VARIABLES_DEPTH = 64;

/** Injection token of the query-size limit (bytes). */
export const GRAPHQL_MAX_QUERY_BYTES = Symbol('GRAPHQL_MAX_QUERY_BYTES');

/** The nesting depth of a JSON value, iteratively (a deep value must not overflow the stack here either), capped at `cap + 1`. */
export function jsonDepth(value: unknown, cap: number): number {
  let max = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [v, d] = stack.pop()!;
    if (d > max) max = d;
    if (max > cap) return max;
    if (v !== null && typeof v === 'object') for (const x of Object.values(v as Record<string, unknown>)) stack.push([x, d + 1]);
  }
  return max;
}

function refuse(res: ServerResponse, status: number, code: string, message: string): void {
  const body = `${JSON.stringify({ errors: [{ message, extensions: { code } }] })}\n`;
  res.statusCode = status;
  res.setHeader('content-type', 'application/json; charset=utf-8');
  res.setHeader('content-length', Buffer.byteLength(body));
  res.end(body);
}

/** The middleware (registered by ApiModule for /graphql when GraphQL is served). */
@Injectable()
export class GraphqlRequestLimits implements NestMiddleware {
  /** @param maxQueryBytes the longest query text accepted (bytes) */
  constructor(@Inject(GRAPHQL_MAX_QUERY_BYTES) private readonly maxQueryBytes: number) {}

  /** Refuse an over-long query or over-deep variables; pass anything else on. */
  use(req: IncomingMessage & { body?: unknown; query?: unknown }, res: ServerResponse, next: () => void): void {
    const fromBody = typeof req.body === 'object' && req.body !== null ? (req.body as Record<string, unknown>) : undefined;
    const fromUrl = typeof req.query === 'object' && req.query !== null ? (req.query as Record<string, unknown>) : undefined;
    const query = fromBody?.query ?? fromUrl?.query;
    if (typeof query === 'string' && query.length > this.maxQueryBytes / 4 && Buffer.byteLength(query) > this.maxQueryBytes) {
      return refuse(res, 413, 'QUERY_TOO_LARGE', `The query text is ${Buffer.byteLength(query)} bytes; at most ${this.maxQueryBytes} are accepted (GRAPHQL_MAX_QUERY_BYTES)`);
    }
    const variables = fromBody?.variables;
    if (variables !== undefined && variables !== null && typeof variables === 'object' && jsonDepth(variables, MAX_VARIABLES_DEPTH) > MAX_VARIABLES_DEPTH) {
      return refuse(res, 400, 'BAD_USER_INPUT', `Variables nest more than ${MAX_VARIABLES_DEPTH} levels deep`);
    }
    next();
  }
}
