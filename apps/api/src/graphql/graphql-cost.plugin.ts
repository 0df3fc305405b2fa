/**
 * Query cost and depth limits, checked after validation and BEFORE execution (an Apollo Server plugin's
 * `didResolveOperation`), as the NestJS code-first complexity recipe does (docs.nestjs.com/graphql/complexity)
 * with graphql-query-complexity (github.com/slicknode/graphql-query-complexity).
 *
 * Cost model (after GitHub's, docs.github.com/graphql/overview/rate-limits-and-query-limits-for-the-graphql-api), issue 23
 * item 4: a connection costs `1 + n x max(1, cost of one node)`, n = its `first` / `last`, so every node it can return
 * costs at least 1 (`ecsInstances(first: 100) { nodes { instanceId } }` costs 101; only `totalCount` / `pageInfo`: 1);
 * every field of Query and Mutation costs 1 plus its selection (each runs its own reads: the review's aliases of
 * `scanDiff` and `loadBalancer(id)` each ran a query at cost 0); nested objects cost their selection (they are part of
 * their node or batched by DataLoaders) and scalars 0. Each alias is a field of its own and is counted as such; besides the cost, an operation
 * may use at most `maxAliases` aliases and return at most `maxNodes` nodes (objects, counted over every page asked
 * for, GitHub's "node limit"). Depth counts the
 * nesting of fields that have a selection, not counting the connection wrappers `edges`, `node`, `nodes` and
 * `pageInfo`: `accounts -> regions -> clusters -> services -> loadBalancer -> vServerGroups -> backends ->
 * ecsInstance` is depth 8.
 */
import { createHash } from 'node:crypto';
import type { ApolloServerPlugin, GraphQLRequestContext } from '@apollo/server';
import { LRUCache } from 'lru-cache';
import { getNamedType, GraphQLError, isLeafType, Kind, type FragmentDefinitionNode, type SelectionSetNode } from 'graphql/index.js';
import { fieldExtensionsEstimator, getComplexity, type ComplexityEstimator } from 'graphql-query-complexity';
import { MAX_GRAPHQL_PAGE, selectsNodes } from './graphql.types';

/** Limits of a GraphQL endpoint. */
export interface GraphqlLimits {
  /** Largest accepted cost (default 1,000). */
  maxCost: number;
  /** Deepest accepted nesting (default 8). */
  maxDepth: number;
  /** Most aliased fields in one operation (default 100): each alias runs its field again. */
  maxAliases?: number;
  /** Most nodes (objects) one operation may return, over every page asked for (default 10,000). */
  maxNodes?: number;
}

/** Defaults of GRAPHQL_MAX_COST and GRAPHQL_MAX_DEPTH, and of the alias and node caps. */
export const DEFAULT_GRAPHQL_LIMITS: Required<GraphqlLimits> = { maxCost: 1000, maxDepth: 8, maxAliases: 100, maxNodes: 10_000 };

const WRAPPERS = new Set(['edges', 'node', 'nodes', 'pageInfo']);

/**
 * The depth of a selection set (see the module comment for what counts).
 * @param fragments the document's fragments by name
 */
export function selectionDepth(set: SelectionSetNode | undefined, fragments: Record<string, FragmentDefinitionNode>, seen = new Set<string>()): number {
  if (!set) return 0;
  let max = 0;
  for (const s of set.selections) {
    let d: number;
    if (s.kind === Kind.FIELD) {
      if (!s.selectionSet) continue;
      const inner = selectionDepth(s.selectionSet, fragments, seen);
      d = WRAPPERS.has(s.name.value) ? inner : 1 + inner;
    } else if (s.kind === Kind.INLINE_FRAGMENT) {
      d = selectionDepth(s.selectionSet, fragments, seen);
    } else {
      const f = fragments[s.name.value];
      if (!f || seen.has(s.name.value)) continue;
      d = selectionDepth(f.selectionSet, fragments, new Set([...seen, s.name.value]));
    }
    max = Math.max(max, d);
  }
  return max;
}

const ROOT_TYPES = new Set(['Query', 'Mutation']);

/**
 * Cost of a field without its own `complexity` (see the module comment): a field of Query / Mutation costs 1 plus its
 * selection (each runs its own reads: `loadBalancer(id)`, `scanDiff`); any other field its selection's cost (nested
 * objects are part of their node, or loaded in batches by the request's DataLoaders), so scalars cost 0.
 */
export const objectCostEstimator: ComplexityEstimator = (o) => (ROOT_TYPES.has(o.type.name) ? 1 + o.childComplexity : o.childComplexity);

/**
 * Nodes a field can return: a connection (`first` / `last` arguments) `n x (1 + nodes under one)` when its nodes are
 * selected, an object 1 plus its selection, wrappers their selection, scalars 0.
 */
export const nodeCountEstimator: ComplexityEstimator = (o) => {
  if (WRAPPERS.has(o.field.name)) return o.childComplexity;
  if (isLeafType(getNamedType(o.field.type))) return 0;
  if (o.field.args.some((a) => a.name === 'first')) {
    const n = (o.args.first ?? o.args.last) as number | undefined;
    const size = typeof n === 'number' && n >= 1 && n <= MAX_GRAPHQL_PAGE ? n : MAX_GRAPHQL_PAGE;
    return selectsNodes(o.node) ? size * (1 + o.childComplexity) : 0;
  }
  return 1 + o.childComplexity;
};

/**
 * Aliased fields of a selection set, a fragment counted at each of its spreads (each spread runs its fields again;
 * validation has already refused fragment cycles, `seen` only guards the recursion).
 */
export function aliasCount(set: SelectionSetNode | undefined, fragments: Record<string, FragmentDefinitionNode>, seen = new Set<string>()): number {
  if (!set) return 0;
  let n = 0;
  for (const s of set.selections) {
    if (s.kind === Kind.FIELD) n += (s.alias ? 1 : 0) + aliasCount(s.selectionSet, fragments, seen);
    else if (s.kind === Kind.INLINE_FRAGMENT) n += aliasCount(s.selectionSet, fragments, seen);
    else if (!seen.has(s.name.value) && fragments[s.name.value]) n += aliasCount(fragments[s.name.value].selectionSet, fragments, new Set([...seen, s.name.value]));
  }
  return n;
}

/** Operations whose measured depth and cost are kept (least recently used dropped first). */
const MEASURED_OPERATIONS = 1000;

/**
 * The plugin refusing over-cost and over-deep operations with one clear error before anything executes.
 * Errors carry `extensions.code` (`QUERY_TOO_COSTLY` / `QUERY_TOO_DEEP`), the measured `cost` / `depth` and the limit.
 *
 * Depth and cost depend only on the (fixed) schema, the document, the operation name and the variables, so they are
 * measured once per such combination and kept in a bounded LRU (clients repeat the same operations); the limits are
 * checked on every request.
 */
export function costLimitPlugin(limits: GraphqlLimits): ApolloServerPlugin {
  const maxAliases = limits.maxAliases ?? DEFAULT_GRAPHQL_LIMITS.maxAliases;
  const maxNodes = limits.maxNodes ?? DEFAULT_GRAPHQL_LIMITS.maxNodes;
  const measured = new LRUCache<string, Measure>({ max: MEASURED_OPERATIONS });
  return {
    requestDidStart: async () => ({
      didResolveOperation: async (rc: GraphQLRequestContext<Record<string, unknown>>) => {
        // The key is a hash: the query text can be long (keys are bounded like the values, issue 23 item 2).
        const key =
          rc.source === undefined
            ? undefined
            : createHash('sha256')
                .update(JSON.stringify([rc.source, rc.request.operationName ?? null, rc.request.variables ?? {}]))
                .digest('base64');
        let m = key === undefined ? undefined : measured.get(key);
        if (!m) {
          m = measure(rc);
          if (key !== undefined) measured.set(key, m);
        }
        if (m.depth > limits.maxDepth) {
          throw new GraphQLError(`Query depth ${m.depth} exceeds the maximum of ${limits.maxDepth} (connection wrappers edges/node/nodes/pageInfo do not count)`, {
            extensions: { code: 'QUERY_TOO_DEEP', depth: m.depth, maxDepth: limits.maxDepth, http: { status: 400 } },
          });
        }
        if (m.aliases > maxAliases) {
          throw new GraphQLError(`Query uses ${m.aliases} aliases; at most ${maxAliases} are accepted (each alias runs its field again)`, {
            extensions: { code: 'QUERY_TOO_COSTLY', aliases: m.aliases, maxAliases, cost: m.cost, http: { status: 400 } },
          });
        }
        if (m.cost > limits.maxCost) {
          throw new GraphQLError(
            `Query cost ${m.cost} exceeds the maximum of ${limits.maxCost} (a connection costs 1 + first/last x its node cost, at least 1 per node; ask for fewer items)`,
            { extensions: { code: 'QUERY_TOO_COSTLY', cost: m.cost, maxCost: limits.maxCost, http: { status: 400 } } },
          );
        }
        if (m.nodes > maxNodes) {
          throw new GraphQLError(`Query could return ${m.nodes} nodes; at most ${maxNodes} are accepted (ask for fewer items per page)`, {
            extensions: { code: 'QUERY_TOO_COSTLY', nodes: m.nodes, maxNodes, http: { status: 400 } },
          });
        }
      },
    }),
  };
}

/** What the plugin measures of an operation. */
interface Measure {
  depth: number;
  aliases: number;
  cost: number;
  nodes: number;
}

/** Depth, aliases, cost and node count of the request's resolved operation. */
function measure(rc: GraphQLRequestContext<Record<string, unknown>>): Measure {
  const fragments: Record<string, FragmentDefinitionNode> = {};
  for (const d of rc.document!.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments[d.name.value] = d;
  const operation = rc.operation!;
  const depth = selectionDepth(operation.selectionSet, fragments);
  const aliases = aliasCount(operation.selectionSet, fragments);
  // getComplexity over the document with the operation's NAME: the resolved operation may be an anonymous one
  // among others only when Apollo accepted it; a document of one anonymous operation measures that operation.
  const common = { schema: rc.schema, query: { kind: Kind.DOCUMENT, definitions: [operation, ...Object.values(fragments)] } as const, variables: rc.request.variables ?? {} };
  const cost = getComplexity({ ...common, estimators: [fieldExtensionsEstimator(), objectCostEstimator] });
  const nodes = getComplexity({ ...common, estimators: [nodeCountEstimator] });
  return { depth, aliases, cost, nodes };
}
