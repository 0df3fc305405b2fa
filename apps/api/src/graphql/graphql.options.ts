/**
 * The GraphQL endpoint at `/graphql`: NestJS code-first with the Apollo driver (Apollo Server 5 on Express 5 through
 * @as-integrations/express5). Authentication is the REST one (TokenAuthenticator: bootstrap API_TOKEN or scoped
 * `fa_` tokens, failed attempts rate-limited and audited) done once per request in the context factory; the
 * context carries the principal and the request's DataLoaders. Cost and depth are limited before execution
 * (graphql-cost.plugin.ts). GET /graphql in a browser gets this service's own offline page (graphql-landing-page.plugin.ts).
 */
import { ApolloDriver, type ApolloDriverConfig } from '@nestjs/apollo';
import type { ApolloServerPlugin } from '@apollo/server';
import { type DynamicModule, Logger } from '@nestjs/common';
import { GraphQLModule } from '@nestjs/graphql';
import { ApolloServerPluginCacheControlDisabled } from '@apollo/server/plugin/disabled';
import { InMemoryLRUCache } from '@apollo/utils.keyvaluecache';
import { type DocumentNode, GraphQLError, type GraphQLFormattedError } from 'graphql/index.js';
import { processEnvironment } from '@app/config';
import { isFleetAuditError } from '@app/errors';
import { ScenarioError } from '@app/forecast';
import { isConnectionLoss, ScanPrunedError, StoreError, type Principal, type Store } from '@app/store';
import { ApiError, type ValidationIssue } from '../common/api.exception';
import { clientAddressOf, type HttpRequestLike } from '../common/bearer-auth.guard';
import { scenarioApiError } from '../forecasts/scenario-errors';
import type { TokenAuthenticator } from '../auth/token-authenticator';
import { costLimitPlugin, DEFAULT_GRAPHQL_LIMITS, type GraphqlLimits } from './graphql-cost.plugin';
import { graphResponseCachePlugin, type GraphAnswerCache } from './graphql-response-cache.plugin';
import { GraphLoaders } from './graphql.loaders';
import { graphqlLandingPagePlugin } from './graphql-landing-page.plugin';
import { JSONScalar } from './graphql.types';

/**
 * What every resolver finds in the GraphQL context: built per request by this module's `context` (the token's
 * principal, the request's DataLoaders and the client address).
 */
export interface GqlContext {
  principal: Principal;
  loaders: GraphLoaders;
  clientAddress: string;
}

/** Settings of the GraphQL endpoint (API config GRAPHQL_*; `serve` / `demo` flags). */
export interface GraphqlOptions {
  /** The page of GET /graphql links to Apollo Sandbox on the web (default false; `demo` turns it on). */
  sandbox?: boolean;
  /** Largest query cost (default 1,000). */
  maxCost?: number;
  /** Deepest query (default 8). */
  maxDepth?: number;
  /** Most aliases in one operation (default 100). */
  maxAliases?: number;
  /** Most nodes one operation may return (default 10,000). */
  maxNodes?: number;
  /** Longest query text accepted, bytes (default 32 KiB; refused with 413 before parsing: graphql-request-limits.middleware.ts). */
  maxQueryBytes?: number;
  /**
   * Answer introspection and suggest field names in validation errors (GRAPHQL_INTROSPECTION). Default: on unless
   * NODE_ENV=production (Apollo's own default), so a production API does not hand its schema to every token holder;
   * the schema is public anyway in the repository (apps/api/schema.gql).
   */
  introspection?: boolean;
  /** Also write the schema SDL to this file at startup (development; the committed copy is apps/api/schema.gql). */
  schemaFile?: string;
  /**
   * Put the stack trace in `extensions.stacktrace` of error answers (default false: never, whatever NODE_ENV says;
   * Apollo's own default follows NODE_ENV). `serve` and `demo` set it from FLEET_AUDIT_DEBUG=1.
   */
  stackTraces?: boolean;
}

const logger = new Logger('GraphQL');

/** Bytes of parsed queries the document store keeps (default 16 MiB, counted as `documentSize` counts them). */
export const DOCUMENT_STORE_BYTES = 16 * 2 ** 20;

/**
 * The size of a parsed query for the document store: its AST's JSON length plus twice the query text's length.
 * Apollo's default store (30 MiB) sizes a document by `JSON.stringify` alone, and graphql-js's `Location.toJSON`
 * leaves out the `Source` every location holds, so each cached document kept its whole query text (up to
 * GRAPHQL_MAX_QUERY_BYTES) uncounted: 5,000 distinct padded queries grew the API past 2 GB.
 * Twice: a JavaScript string of one-byte characters still costs about one to two bytes per character on the heap.
 * @param doc a document the store holds (its `loc.source.body` is the query text)
 * @returns an estimate of the bytes it retains
 */
export function documentSize(doc: DocumentNode): number {
  return Buffer.byteLength(JSON.stringify(doc), 'utf8') + 2 * (doc.loc?.source.body.length ?? 0);
}

/** Apollo's parsed-query cache, bounded by what it really retains (`documentSize`, DOCUMENT_STORE_BYTES in total). */
function documentStore(): InMemoryLRUCache<DocumentNode> {
  return new InMemoryLRUCache<DocumentNode>({ maxSize: DOCUMENT_STORE_BYTES, sizeCalculation: documentSize });
}

/** `Retry-After` (seconds) of a 503 answer: about how long a PostgreSQL restart takes (as REST's). */
const RETRY_AFTER_SECONDS = 5;

const STORE_CODES: Record<string, string> = {
  INVALID_ARGUMENT: 'BAD_USER_INPUT',
  NOT_FOUND: 'NOT_FOUND',
  FORBIDDEN: 'FORBIDDEN',
  CONFLICT: 'CONFLICT',
  UNAVAILABLE: 'SERVICE_UNAVAILABLE',
};

/** GraphQL code and HTTP status of the scan launchers' transient refusals, as REST answers them. */
const SCAN_QUEUE_CODES: Record<string, { code: string; status: number }> = {
  SCAN_QUEUE_UNAVAILABLE: { code: 'SERVICE_UNAVAILABLE', status: 503 },
  SCAN_QUEUE_CLOSED: { code: 'SERVICE_UNAVAILABLE', status: 503 },
  SCAN_QUEUE_FULL: { code: 'SCAN_QUEUE_FULL', status: 429 },
};

const API_CODES: Record<string, { code: string; status?: number }> = {
  VALIDATION_FAILED: { code: 'BAD_USER_INPUT' },
  UNAUTHENTICATED: { code: 'UNAUTHENTICATED', status: 401 },
  FORBIDDEN: { code: 'FORBIDDEN' },
  RATE_LIMITED: { code: 'RATE_LIMITED', status: 429 },
  NOT_FOUND: { code: 'NOT_FOUND' },
  FORECAST_TOO_LARGE: { code: 'FORECAST_TOO_LARGE', status: 422 },
};

/**
 * A validation problem as GraphQL answers it, in `extensions.issues` (the REST answer's `issues`, same order): the
 * services name a REST body field `body.<field>` and a query parameter `query.<name>`, and the resolvers validate
 * their arguments as `args.<name>`; a GraphQL operation passes the body as its `input` argument and each parameter as
 * an argument of its own, so the path names those instead (`input.steps.0.addNodes.count`, `like`, `ports`). An
 * operation whose body fields are arguments of their own (`startScan(source)`) rewrites its issues first
 * (`withArgumentPaths`).
 */
export function graphqlIssue(issue: ValidationIssue): ValidationIssue {
  return { path: graphqlPath(issue.path), message: issue.message };
}

/** A REST issue path as GraphQL names it (see graphqlIssue). */
function graphqlPath(path: string): string {
  return path.replace(/^body(?=\.|$)/, 'input').replace(/^(query|args)\./, '');
}

/** `message` with each `<path>: ` it names, for the paths of `issues`, written `<rename(path)>: `. */
function renamePathsIn(message: string, issues: readonly ValidationIssue[], rename: (path: string) => string): string {
  let out = message;
  for (const { path } of issues) {
    const to = rename(path);
    if (to !== path) out = out.split(`${path}: `).join(`${to}: `);
  }
  return out;
}

/**
 * The message of a validation error as GraphQL answers it: each `<REST path>: ` the message names (the services and
 * the validation pipe write `query.like: ...`, `body.steps.0...: ...`) becomes the issue's GraphQL path
 * (`graphqlIssue`), so the message and `extensions.issues` name the same argument.
 */
export function graphqlMessage(message: string, issues: readonly ValidationIssue[] | undefined): string {
  return renamePathsIn(message, issues ?? [], graphqlPath);
}

/**
 * For an operation that takes the REST body's fields as arguments of its own (`startScan(source)`, not an `input`
 * object): an ApiError whose issues name `body.<field>` becomes one naming `<field>`, the argument, in its issues and
 * its message; anything else is returned as it is.
 */
export function withArgumentPaths(e: unknown): unknown {
  if (!(e instanceof ApiError) || !e.issues?.some((i) => i.path.startsWith('body.'))) return e;
  const argument = (path: string) => path.replace(/^body\./, '');
  const issues = e.issues.map((i) => ({ path: argument(i.path), message: i.message }));
  return new ApiError(e.code, renamePathsIn(e.message, e.issues, argument), issues, e.retryAfterSeconds);
}

/**
 * The GraphQL error for an error of our layers (ApiError, StoreError; a ScenarioError as scenarioApiError maps it): its message and a stable
 * `extensions.code` (and, for a validation error, every problem in `extensions.issues`: `graphqlIssue`); GraphQL errors pass unchanged; anything else becomes INTERNAL_SERVER_ERROR with a generic
 * message (details stay in the server log).
 */
export function toGraphqlError(e: unknown): GraphQLError {
  if (e instanceof GraphQLError) return e;
  if (e instanceof ScenarioError) return toGraphqlError(scenarioApiError(e));
  if (e instanceof ApiError) {
    const m = API_CODES[e.code] ?? { code: e.code };
    // Apollo reads `extensions.http` (status, headers: a Map) into the HTTP answer and strips it from the body.
    const headers = e.retryAfterSeconds !== undefined ? new Map([['retry-after', String(e.retryAfterSeconds)]]) : undefined;
    return new GraphQLError(graphqlMessage(e.message, e.issues), {
      extensions: {
        code: m.code,
        ...(e.issues && e.issues.length > 0 ? { issues: e.issues.map(graphqlIssue) } : {}),
        ...(e.retryAfterSeconds !== undefined ? { retryAfterSeconds: e.retryAfterSeconds } : {}),
        ...(m.status ? { http: { status: m.status, ...(headers ? { headers } : {}) } } : {}),
      },
    });
  }
  // The findings of a pruned scan: when and under which policy, as REST's 410 body says (never an empty connection).
  if (e instanceof ScanPrunedError) return new GraphQLError(e.message, { extensions: { code: 'SCAN_PRUNED', ...e.details() } });
  if (e instanceof StoreError && e.code !== 'UNAVAILABLE') return new GraphQLError(e.message, { extensions: { code: STORE_CODES[e.code] ?? e.code } });
  // The scan queue unavailable, full or closing (REST: 503 / 429 with Retry-After): the same status and header.
  const queue = isFleetAuditError(e) ? SCAN_QUEUE_CODES[e.code] : undefined;
  if (queue) {
    const seconds = (e as { retryAfterSeconds?: unknown }).retryAfterSeconds;
    const retryAfter = typeof seconds === 'number' && Number.isInteger(seconds) && seconds > 0 ? seconds : RETRY_AFTER_SECONDS;
    return new GraphQLError((e as Error).message, {
      extensions: { code: queue.code, retryAfterSeconds: retryAfter, http: { status: queue.status, headers: new Map([['retry-after', String(retryAfter)]]) } },
    });
  }
  // As REST answers them (api-exception.filter.ts): the database down is 503 with Retry-After, text
  // PostgreSQL cannot store (NUL, invalid UTF-8) is the request's fault (400), each with a log line.
  if (isConnectionLoss(e)) {
    logger.warn(`database unavailable: ${e instanceof Error ? e.message.split('\n')[0] : String(e)}`);
    return new GraphQLError('The database is unavailable; retry later', {
      extensions: { code: 'SERVICE_UNAVAILABLE', retryAfterSeconds: RETRY_AFTER_SECONDS, http: { status: 503, headers: new Map([['retry-after', String(RETRY_AFTER_SECONDS)]]) } },
    });
  }
  if (e instanceof Error && ['22021', '22P05'].includes(String((e as { code?: unknown }).code))) {
    logger.warn(`refused text PostgreSQL cannot store (${String((e as { code?: unknown }).code)})`);
    return new GraphQLError('Invalid request: text contains a character PostgreSQL cannot store (NUL or invalid UTF-8)', {
      extensions: { code: 'BAD_USER_INPUT', http: { status: 400 } },
    });
  }
  logger.error(e instanceof Error ? (e.stack ?? e.message) : String(e));
  return new GraphQLError('Internal server error', { extensions: { code: 'INTERNAL_SERVER_ERROR' } });
}

/** The response shape of an error: our codes as they are; unexpected errors masked. */
function formatError(formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError {
  const original = (error as { originalError?: unknown })?.originalError;
  if (original instanceof ApiError || original instanceof StoreError || original instanceof ScanPrunedError || (original !== undefined && !(original instanceof GraphQLError) && isConnectionLoss(original))) {
    const g = toGraphqlError(original);
    return { ...formatted, message: g.message, extensions: { ...formatted.extensions, ...g.extensions } };
  }
  if (formatted.extensions?.code === 'INTERNAL_SERVER_ERROR' && original !== undefined && !(original instanceof GraphQLError)) {
    return { ...formatted, message: 'Internal server error' };
  }
  return formatted;
}

/**
 * Root fields a team-scoped token may select: the reads that filter by team (libs/store team-scope.util.ts: the fleet
 * graph, quotas, scans and their diff, findings, forecasts), the scan launch (which refuses it with its reason), and
 * token management. A new root is refused to team tokens until it is added here.
 */
export const TEAM_AWARE_ROOT_FIELDS: ReadonlySet<string> = new Set([
  'scans',
  'scan',
  'scanDiff',
  'startScan',
  'accounts',
  'clusters',
  'loadBalancers',
  'loadBalancer',
  'nlbs',
  'nlb',
  'ecsInstances',
  'quotas',
  'findings',
  'quotaTrends',
  'quotaPlan',
  'headroom',
  'whatIf',
  'plan',
  'tokens',
  'createToken',
  'revokeToken',
  '__typename',
  '__schema',
  '__type',
]);

/**
 * Refuses (FORBIDDEN, 403) an operation of a team-scoped token that selects a root field outside
 * TEAM_AWARE_ROOT_FIELDS (or spreads a fragment at the root): the other roots do not filter by team, and would show
 * other teams' clusters (fail closed, as REST's TeamAware routes).
 */
export function teamScopePlugin(): ApolloServerPlugin<GqlContext> {
  return {
    requestDidStart: async () => ({
      didResolveOperation: async ({ operation, contextValue }) => {
        const teams = contextValue.principal.teamScope;
        if (teams === undefined) return;
        for (const sel of operation?.selectionSet.selections ?? []) {
          const field = sel.kind === 'Field' ? sel.name.value : undefined;
          if (field === undefined || !TEAM_AWARE_ROOT_FIELDS.has(field))
            throw toGraphqlError(
              new ApiError(
                'FORBIDDEN',
                `${field ?? 'a fragment at the root'} does not filter by team; a team-scoped token (teams ${teams.join(', ')}) may select ${[...TEAM_AWARE_ROOT_FIELDS].filter((f) => !f.startsWith('__')).join(', ')}`,
              ),
            );
        }
      },
    }),
  };
}

/**
 * HTTP status of answers whose errors did not pass through `toGraphqlError` (thrown by plugins or by Apollo itself):
 * the database unavailable is 503 with `Retry-After`, as REST.
 */
export function errorStatusPlugin(): ApolloServerPlugin {
  return {
    requestDidStart: async () => ({
      willSendResponse: async (rc) => {
        const errors = rc.errors ?? [];
        if (errors.some((e) => isConnectionLoss(e.originalError) || isConnectionLoss(e))) {
          rc.response.http.status = 503;
          rc.response.http.headers.set('retry-after', String(RETRY_AFTER_SECONDS));
        }
      },
    }),
  };
}

/**
 * The GraphQL module of the API.
 * @param store the API's store (graph reads)
 * @param auth the API's authenticator (the same instance REST uses)
 * @param answers the stored answers of graph-only queries (shared with the fast path, graphql-answer.middleware.ts)
 */
export function graphqlModule(options: GraphqlOptions, store: Store, auth: TokenAuthenticator, answers: GraphAnswerCache): DynamicModule {
  const introspection = options.introspection ?? processEnvironment().NODE_ENV !== 'production';
  const limits: GraphqlLimits = {
    maxCost: options.maxCost ?? DEFAULT_GRAPHQL_LIMITS.maxCost,
    maxDepth: options.maxDepth ?? DEFAULT_GRAPHQL_LIMITS.maxDepth,
    maxAliases: options.maxAliases ?? DEFAULT_GRAPHQL_LIMITS.maxAliases,
    maxNodes: options.maxNodes ?? DEFAULT_GRAPHQL_LIMITS.maxNodes,
  };
  return GraphQLModule.forRoot<ApolloDriverConfig>({
    driver: ApolloDriver,
    path: '/graphql',
    autoSchemaFile: options.schemaFile ?? true,
    sortSchema: true,
    playground: false,
    introspection,
    // Parsed queries cached by hash, sized with the query text each one retains (documentSize).
    documentStore: documentStore(),
    // Execution errors keep the HTTP status they carry (503 database unavailable, 400 NUL), as REST answers them;
    // Nest's driver would reset every answer with a `data` key to 200.
    preserveHttpStatusForExecutionErrors: false,
    // "Did you mean ...?" suggestions name schema fields: off with introspection (Apollo Server >= 4.12).
    hideSchemaDetailsFromClientErrors: !introspection,
    includeStacktraceInErrorResponses: options.stackTraces === true,
    resolvers: { JSON: JSONScalar },
    // The driver's types come from Apollo's ESM build, the plugins from its CJS build: same runtime objects.
    // Apollo's cache-control plugin (installed unless disabled) hooks every field resolution to compute HTTP cache
    // hints; the schema declares none (answers are per token, never publicly cacheable), so it is only per-field cost.
    plugins: [
      costLimitPlugin(limits),
      errorStatusPlugin(),
      teamScopePlugin(),
      // Answers of fleet-graph-only queries, per (findings generation, query, variables, role, scope).
      graphResponseCachePlugin(store.generations, answers),
      ApolloServerPluginCacheControlDisabled(),
      // GET /graphql in a browser: this service's own offline page (Apollo's pages load from its CDN).
      graphqlLandingPagePlugin({ sandbox: options.sandbox === true }),
    ] as unknown as ApolloDriverConfig['plugins'],
    formatError,
    context: async ({ req }: { req: HttpRequestLike }): Promise<GqlContext & { req: HttpRequestLike }> => {
      const header = req.headers.authorization;
      const clientAddress = clientAddressOf(req);
      try {
        const principal = await auth.authenticate(typeof header === 'string' ? header : undefined, clientAddress);
        req.principal = principal;
        return { req, principal, clientAddress, loaders: new GraphLoaders(store, principal) };
      } catch (e) {
        throw toGraphqlError(e);
      }
    },
  });
}
