/**
 * Query cost and depth limits, checked after validation and BEFORE execution (an Apollo Server plugin's
 * `didResolveOperation`), as the NestJS code-first complexity recipe does (docs.nestjs.com/graphql/complexity)
 * with graphql-query-complexity (github.com/slicknode/graphql-query-complexity).
 *
 * Cost model (GitHub's "requests" count, docs.github.com/graphql/overview/rate-limits-and-query-limits-for-the-graphql-api):
 * a connection costs `1 + n x (cost of one node)`, n = its `first` / `last`; other fields cost 0. Depth counts the
 * nesting of fields that have a selection, not counting the connection wrappers `edges`, `node`, `nodes` and
 * `pageInfo`: `accounts -> regions -> clusters -> services -> loadBalancer -> vServerGroups -> backends ->
 * ecsInstance` is depth 8.
 */
import type { ApolloServerPlugin, GraphQLRequestContext } from '@apollo/server';
import { LRUCache } from 'lru-cache';
import { GraphQLError, Kind, type FragmentDefinitionNode, type SelectionSetNode } from 'graphql/index.js';
import { fieldExtensionsEstimator, getComplexity, simpleEstimator } from 'graphql-query-complexity';

/** Limits of a GraphQL endpoint. */
export interface GraphqlLimits {
  /** Largest accepted cost (default 1,000). */
  maxCost: number;
  /** Deepest accepted nesting (default 8). */
  maxDepth: number;
}

/** Defaults of GRAPHQL_MAX_COST and GRAPHQL_MAX_DEPTH. */
export const DEFAULT_GRAPHQL_LIMITS: GraphqlLimits = { maxCost: 1000, maxDepth: 8 };

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
  const measured = new LRUCache<string, { depth: number; cost: number | null }>({ max: MEASURED_OPERATIONS });
  return {
    requestDidStart: async () => ({
      didResolveOperation: async (rc: GraphQLRequestContext<Record<string, unknown>>) => {
        const key =
          rc.source === undefined ? undefined : JSON.stringify([rc.source, rc.request.operationName ?? null, rc.request.variables ?? {}]);
        const known = key === undefined ? undefined : measured.get(key);
        let depth = known?.depth;
        if (depth === undefined) {
          const fragments: Record<string, FragmentDefinitionNode> = {};
          for (const d of rc.document!.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments[d.name.value] = d;
          depth = selectionDepth(rc.operation!.selectionSet, fragments);
        }
        if (depth > limits.maxDepth) {
          if (key !== undefined && !known) measured.set(key, { depth, cost: null });
          throw new GraphQLError(`Query depth ${depth} exceeds the maximum of ${limits.maxDepth} (connection wrappers edges/node/nodes/pageInfo do not count)`, {
            extensions: { code: 'QUERY_TOO_DEEP', depth, maxDepth: limits.maxDepth, http: { status: 400 } },
          });
        }
        const cost =
          known?.cost ??
          getComplexity({
            schema: rc.schema,
            operationName: rc.request.operationName ?? undefined,
            query: rc.document!,
            variables: rc.request.variables ?? {},
            estimators: [fieldExtensionsEstimator(), simpleEstimator({ defaultComplexity: 0 })],
          });
        if (key !== undefined && known?.cost == null) measured.set(key, { depth, cost });
        if (cost > limits.maxCost) {
          throw new GraphQLError(`Query cost ${cost} exceeds the maximum of ${limits.maxCost} (a connection costs 1 + first/last x the cost of one node; ask for fewer items)`, {
            extensions: { code: 'QUERY_TOO_COSTLY', cost, maxCost: limits.maxCost, http: { status: 400 } },
          });
        }
      },
    }),
  };
}
