/**
 * Whole-response cache of fleet-graph GraphQL reads: a nested query over accounts -> regions ->
 * clusters -> Services -> CLBs resolves thousands of fields (about 30 ms of CPU per request), far above what a p95 of
 * 50 ms at 50 concurrent clients allows; the answer depends only on the scan's stored graph, which never changes
 * once the scan's completing transaction committed.
 *
 * What is cached: successful answers (no errors) of operations whose root fields are all graph reads (GRAPH_ROOTS) and
 * whose every selected field returns a graph type, a connection of one, or a scalar (GRAPH_TYPES): nothing reachable
 * from them depends on the clock, waivers or tokens. Any other operation (findings, scans, forecasts, tokens,
 * mutations, introspection) is executed every time; so is an operation selecting a field added later whose type is
 * not listed here, and so is one whose reads name their scan (a `scanId` given; the rule of REST's answer cache:
 * `namesScan`, scans/scan-selection.service.ts): that scan may still be running, and a sharded scan's shards add
 * graph rows to it without a generation bump. Every read's scan is resolved through ScanSelectionService.scanOf,
 * which marks the request's memo (`namedScan`); such an answer is not stored, so it is never served.
 *
 * Key: (query text, operation name, variables, the principal's role and exact account scope), each answer tagged with
 * the findings generation read by the request that computed it and served only while that generation is current. The store's findings generation (libs/store ReadGenerations) is bumped in the transaction that
 * stores a scan's graph and in every scan status change, so an answer is never served after the data under it (or the
 * "latest succeeded scan") changed, on any replica. Bounded LRU by approximate size.
 */
import { createHash } from 'node:crypto';
import { HeaderMap, type ApolloServerPlugin, type GraphQLRequestContext } from '@apollo/server';
import { getNamedType, isLeafType, TypeInfo, visit, visitWithTypeInfo, type DocumentNode, type FormattedExecutionResult, type GraphQLSchema } from 'graphql/index.js';
import { LRUCache } from 'lru-cache';
import { scopeCacheKey, type Principal, type ReadGenerations } from '@app/store';
import type { LatestScanMemo } from '../scans/scan-selection.service';

/** Query fields whose answers come only from a scan's stored fleet graph. */
const GRAPH_ROOTS = new Set(['accounts', 'clusters', 'loadBalancers', 'loadBalancer', 'ecsInstances', 'ecsInstance']);

/** Object types of the stored fleet graph (and the parts they are made of); their connections and edges are allowed too. */
const GRAPH_NODES = ['Account', 'Region', 'Cluster', 'Service', 'LoadBalancer', 'Listener', 'ServerGroup', 'Backend', 'EcsInstance', 'Quota', 'ResourceRefType'];
const GRAPH_TYPES = new Set([...GRAPH_NODES, ...GRAPH_NODES.flatMap((t) => [`${t}Connection`, `${t}Edge`]), 'PageInfo']);

/**
 * Largest total size of cached answers, keys included, in characters of their JSON (one byte each for the ASCII JSON
 * we send). A quarter of what the Helm
 * chart gives the API pod (512 MiB).
 */
export const MAX_CACHED_CHARS = 32_000_000;

/** Characters a stored key takes (a base64 SHA-256). */
const KEY_CHARS = 44;

/**
 * Whether every field the document selects is a graph read (see the module comment). Pure function of the schema
 * and the document.
 */
export function isGraphOnlyDocument(schema: GraphQLSchema, document: DocumentNode): boolean {
  let ok = true;
  const typeInfo = new TypeInfo(schema);
  visit(
    document,
    visitWithTypeInfo(typeInfo, {
      OperationDefinition(node) {
        if (node.operation !== 'query') ok = false;
      },
      Field(node) {
        if (!ok) return false;
        const name = node.name.value;
        if (name === '__typename') return undefined;
        const parent = typeInfo.getParentType();
        const type = typeInfo.getType();
        if (!parent || !type) {
          ok = false;
          return false;
        }
        if (parent === schema.getQueryType()) {
          if (!GRAPH_ROOTS.has(name)) ok = false;
        } else if (!GRAPH_TYPES.has(parent.name)) {
          ok = false;
        }
        const named = getNamedType(type);
        if (!isLeafType(named) && !GRAPH_TYPES.has(named.name)) ok = false;
        return ok ? undefined : false;
      },
    }),
  );
  return ok;
}

/** The parts of a GraphQL POST body that select an answer (the JSON body as parsed, not yet validated). */
export interface GraphAnswerRequest {
  query: string;
  operationName?: string | null;
  variables?: Record<string, unknown> | null;
}

/**
 * The cached answers: the JSON text of each answer exactly as Apollo sends it (`JSON.stringify(result) + "\n"`,
 * Apollo's prettyJSONStringify), in a bounded LRU by size. Shared by the plugin (which decides what is cacheable and
 * stores answers) and the fast path in front of Apollo (graphql-answer.middleware.ts, which sends a stored answer
 * without executing or re-serialising it: re-serialising the bench's 68 KB answer was most of a hit's CPU).
 */
export class GraphAnswerCache {
  private readonly answers = new LRUCache<string, { generation: number; body: string }>({
    maxSize: MAX_CACHED_CHARS,
    sizeCalculation: (a) => KEY_CHARS + a.body.length,
  });

  /**
   * The key of a request: (query text, operation name, variables, role, exact account and team scope). The same request text
   * under another role or scope never shares an answer. One answer is kept per key: the one of the findings
   * generation it was computed under (`get` serves it only while that generation is current).
   */
  keyOf(request: GraphAnswerRequest, principal: Principal): string {
    // Hashed: a key is 44 characters whatever the query text's length.
    return createHash('sha256')
      .update(JSON.stringify([request.query, request.operationName ?? null, request.variables ?? {}, principal.role, scopeCacheKey(principal)]))
      .digest('base64');
  }

  /** Whether an answer is stored for `key` (under any generation): no generation read is needed when not. */
  has(key: string): boolean {
    return this.answers.has(key);
  }

  /** The stored answer text of `key` when it was computed under `findingsGeneration`, else undefined. */
  get(key: string, findingsGeneration: number): string | undefined {
    const a = this.answers.get(key);
    return a && a.generation === findingsGeneration ? a.body : undefined;
  }

  /**
   * Store the answer text of `key` computed under `findingsGeneration` (the plugin decides what is cacheable). An
   * answer of a newer generation (generations only grow) is never replaced by a late one of an older generation.
   */
  set(key: string, findingsGeneration: number, body: string): void {
    const current = this.answers.peek(key);
    if (current && current.generation > findingsGeneration) return;
    this.answers.set(key, { generation: findingsGeneration, body });
  }

  /** What the cache holds: answers (count) and their counted size (characters, keys included; <= MAX_CACHED_CHARS). */
  get stats(): { entries: number; chars: number } {
    return { entries: this.answers.size, chars: this.answers.calculatedSize };
  }

  /** Whether no answer is stored (the fast path then does no work at all). */
  get empty(): boolean {
    return this.answers.size === 0;
  }
}

/**
 * The plugin. Runs after the cost limit (Apollo calls `responseForOperation` after `didResolveOperation`), so
 * limits still refuse over-cost operations whether or not their answer is cached; the fast path only serves keys the
 * plugin stored, i.e. requests that passed the same limits with the same text and variables before.
 * @param generations the store's ReadGenerations (read once per cacheable request)
 * @param cache where answers are kept (shared with the fast path)
 */
export function graphResponseCachePlugin(generations: ReadGenerations, cache: GraphAnswerCache): ApolloServerPlugin {
  const graphOnly = new WeakMap<DocumentNode, boolean>();
  return {
    requestDidStart: async () => {
      let key: string | undefined;
      let generationRead = -1;
      return {
        responseForOperation: async (rc: GraphQLRequestContext<Record<string, unknown>>) => {
          const document = rc.document;
          const principal = rc.contextValue.principal as Principal | undefined;
          if (!document || !principal || rc.source === undefined || rc.operation?.operation !== 'query') return null;
          let cacheable = graphOnly.get(document);
          if (cacheable === undefined) graphOnly.set(document, (cacheable = isGraphOnlyDocument(rc.schema, document)));
          if (!cacheable) return null;
          const generation = await generations.current();
          key = cache.keyOf({ query: rc.source, operationName: rc.request.operationName ?? null, variables: rc.request.variables ?? {} }, principal);
          generationRead = generation.findings;
          const hit = cache.get(key, generation.findings);
          return hit ? { http: { status: undefined, headers: new HeaderMap() }, body: { kind: 'single', singleResult: JSON.parse(hit) as FormattedExecutionResult } } : null;
        },
        willSendResponse: async (rc: GraphQLRequestContext<Record<string, unknown>>) => {
          const body = rc.response.body;
          if (key === undefined || !body || body.kind !== 'single' || body.singleResult.errors?.length || !body.singleResult.data) return;
          // A read named its scan (set while resolving: ScanSelectionService.scanOf), which may still be running.
          if ((rc.contextValue.loaders as LatestScanMemo | undefined)?.namedScan) return;
          if (cache.get(key, generationRead) === undefined) cache.set(key, generationRead, `${JSON.stringify(body.singleResult)}\n`);
        },
      };
    },
  };
}
