/**
 * Whole-response cache of fleet-graph GraphQL reads (issue 11 bench:api): a nested query over accounts -> regions ->
 * clusters -> Services -> CLBs resolves thousands of fields (about 30 ms of CPU per request), far above what a p95 of
 * 50 ms at 50 concurrent clients allows; the answer depends only on the scan's stored graph, which never changes
 * once the scan's completing transaction committed.
 *
 * What is cached: successful answers (no errors) of operations whose root fields are all graph reads (GRAPH_ROOTS) and
 * whose every selected field returns a graph type, a connection of one, or a scalar (GRAPH_TYPES): nothing reachable
 * from them depends on the clock, waivers, tokens or scan progress. Any other operation (findings, scans, forecasts,
 * tokens, mutations, introspection) is executed every time; so is an operation selecting a field added later whose
 * type is not listed here.
 *
 * Key: (findings generation read by this request, query text, operation name, variables, the principal's role and
 * exact account scope). The store's findings generation (libs/store ReadGenerations) is bumped in the transaction that
 * stores a scan's graph and in every scan status change, so an answer is never served after the data under it (or the
 * "latest succeeded scan") changed, on any replica. Bounded LRU by approximate size.
 */
import { HeaderMap, type ApolloServerPlugin, type GraphQLRequestContext } from '@apollo/server';
import { getNamedType, isLeafType, TypeInfo, visit, visitWithTypeInfo, type DocumentNode, type FormattedExecutionResult, type GraphQLSchema } from 'graphql/index.js';
import { LRUCache } from 'lru-cache';
import { scopeCacheKey, type Principal, type ReadGenerations } from '@app/store';

/** Query fields whose answers come only from a scan's stored fleet graph. */
const GRAPH_ROOTS = new Set(['accounts', 'clusters', 'loadBalancers', 'loadBalancer', 'ecsInstances', 'ecsInstance']);

/** Object types of the stored fleet graph (and the parts they are made of); their connections and edges are allowed too. */
const GRAPH_NODES = ['Account', 'Region', 'Cluster', 'Service', 'LoadBalancer', 'Listener', 'ServerGroup', 'Backend', 'EcsInstance', 'Quota', 'ResourceRefType'];
const GRAPH_TYPES = new Set([...GRAPH_NODES, ...GRAPH_NODES.flatMap((t) => [`${t}Connection`, `${t}Edge`]), 'PageInfo']);

/** Largest total size of cached answers, in characters of their JSON. */
const MAX_CACHED_CHARS = 50_000_000;

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

/**
 * The plugin. Runs after the cost limit (Apollo calls `responseForOperation` after `didResolveOperation`), so
 * limits still refuse over-cost operations whether or not their answer is cached.
 * @param generations the store's ReadGenerations (read once per cacheable request)
 */
export function graphResponseCachePlugin(generations: ReadGenerations): ApolloServerPlugin {
  const answers = new LRUCache<string, FormattedExecutionResult>({ maxSize: MAX_CACHED_CHARS, sizeCalculation: (r) => Math.max(1, JSON.stringify(r).length) });
  const graphOnly = new WeakMap<DocumentNode, boolean>();
  return {
    requestDidStart: async () => {
      let key: string | undefined;
      return {
        responseForOperation: async (rc: GraphQLRequestContext<Record<string, unknown>>) => {
          const document = rc.document;
          const principal = rc.contextValue.principal as Principal | undefined;
          if (!document || !principal || rc.source === undefined || rc.operation?.operation !== 'query') return null;
          let cacheable = graphOnly.get(document);
          if (cacheable === undefined) graphOnly.set(document, (cacheable = isGraphOnlyDocument(rc.schema, document)));
          if (!cacheable) return null;
          const generation = await generations.current();
          key = JSON.stringify([generation.findings, rc.source, rc.request.operationName ?? null, rc.request.variables ?? {}, principal.role, scopeCacheKey(principal.accountScope)]);
          const hit = answers.get(key);
          return hit ? { http: { status: undefined, headers: new HeaderMap() }, body: { kind: 'single', singleResult: hit } } : null;
        },
        willSendResponse: async (rc: GraphQLRequestContext<Record<string, unknown>>) => {
          const body = rc.response.body;
          if (key === undefined || !body || body.kind !== 'single' || body.singleResult.errors?.length || !body.singleResult.data) return;
          if (!answers.has(key)) answers.set(key, body.singleResult);
        },
      };
    },
  };
}
