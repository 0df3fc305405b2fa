/**
 * Fast path in front of Apollo for stored answers of fleet-graph queries. Apollo serialises every
 * answer it sends, a stored one too; for the bench's nested query (497 Services, 68 KB) that JSON.stringify was most of
 * the CPU of a cache hit. This middleware runs after the JSON body parser and before Apollo and sends the stored text
 * as it is, when ALL of these hold:
 *  - the request is a POST with a JSON body holding a string `query`;
 *  - the bearer token is one the authenticator accepts without I/O (`TokenAuthenticator.cachedPrincipal`: the
 *    bootstrap token, or a token verified within the verdict cache's TTL);
 *  - an answer is stored for (query, operation name, variables, role, exact scope) under the CURRENT findings
 *    generation (read only when some answer is stored for that request), which only the Apollo plugin writes (graphql-response-cache.plugin.ts), after the cost and depth limits accepted
 *    that very request text and only for successful graph-only queries.
 * Anything else goes to Apollo unchanged (which authenticates, counts failures, audits, limits, executes).
 */
import { Inject, Injectable, type NestMiddleware } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Store } from '@app/store';
import { TokenAuthenticator } from '../auth/token-authenticator';
import type { HttpRequestLike } from '../common/bearer-auth.guard';
import { GraphAnswerCache, type GraphAnswerRequest } from './graphql-response-cache.plugin';

/** The body of a GraphQL POST, if it can select a stored answer (a string `query`; optional name and variables). */
function answerRequestOf(body: unknown): GraphAnswerRequest | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const b = body as Record<string, unknown>;
  if (typeof b.query !== 'string') return undefined;
  if (b.operationName !== undefined && b.operationName !== null && typeof b.operationName !== 'string') return undefined;
  if (b.variables !== undefined && b.variables !== null && (typeof b.variables !== 'object' || Array.isArray(b.variables))) return undefined;
  if (b.extensions !== undefined) return undefined;
  return { query: b.query, operationName: (b.operationName as string | null | undefined) ?? null, variables: (b.variables as Record<string, unknown> | null | undefined) ?? {} };
}

/** The middleware (registered by ApiModule for POST /graphql when GraphQL is served). */
@Injectable()
export class GraphAnswerFastPath implements NestMiddleware {
  constructor(
    @Inject(GraphAnswerCache) private readonly cache: GraphAnswerCache,
    @Inject(TokenAuthenticator) private readonly auth: TokenAuthenticator,
    @Inject(Store) private readonly store: Store,
  ) {}

  /** Send the stored answer, or pass the request on to Apollo; never throws (errors pass the request on). */
  use(req: IncomingMessage & HttpRequestLike & { body?: unknown }, res: ServerResponse, next: () => void): void {
    if (this.cache.empty) return next();
    const request = answerRequestOf(req.body);
    const principal = request ? this.auth.cachedPrincipal(req.headers.authorization) : undefined;
    // Team-scoped tokens go to Apollo, whose teamScopePlugin refuses the roots that do not filter by team.
    if (!request || !principal || principal.teamScope !== undefined) return next();
    const key = this.cache.keyOf(request, principal);
    // No answer for this request text and token scope: no generation read, straight to Apollo.
    if (!this.cache.has(key)) return next();
    this.store.generations.current().then(
      (generation) => {
        const body = this.cache.get(key, generation.findings);
        if (body === undefined) return next();
        res.statusCode = 200;
        res.setHeader('content-type', 'application/json; charset=utf-8');
        res.setHeader('content-length', Buffer.byteLength(body));
        res.end(body);
      },
      () => next(),
    );
  }
}
