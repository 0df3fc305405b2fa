/**
 * Query cost and depth limits, checked after validation and BEFORE execution (an Apollo Server plugin's
 * `didResolveOperation`), as the NestJS code-first complexity recipe does (docs.nestjs.com/graphql/complexity)
 * with graphql-query-complexity (github.com/slicknode/graphql-query-complexity).
 *
 * Cost model (after GitHub's, docs.github.com/graphql/overview/rate-limits-and-query-limits-for-the-graphql-api): a
 * connection costs `1 + n x max(1, cost of one node)`, n = its `first` / `last`, so every node it can return
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

/** What the plugin measures of a selection set before the cost: its depth, aliases and expanded size. */
export interface SelectionShape {
  /** Nesting of fields with a selection, connection wrappers not counted (see the module comment). */
  depth: number;
  /** Aliased fields, a fragment counted at each of its spreads (each spread runs its fields again). */
  aliases: number;
  /**
   * Selections (fields, fragment spreads, inline fragments) once every fragment spread is replaced by the fragment's
   * selections: what an evaluation that expands fragments visits. Saturates at Number.MAX_SAFE_INTEGER.
   */
  selections: number;
}

/** `a + b`, saturating at Number.MAX_SAFE_INTEGER (fragments spread twice per level double the size per level). */
function add(a: number, b: number): number {
  return Math.min(Number.MAX_SAFE_INTEGER, a + b);
}

/**
 * Depth, aliases and expanded size of selection sets, each fragment measured once and remembered: the shape of a
 * fragment does not depend on where it is spread, so a query whose fragments each spread the next twice costs one
 * visit per fragment, not 2^fragments. Validation has already refused fragment cycles; a fragment reached again
 * while it is being measured counts as empty.
 */
export class SelectionShapes {
  private readonly measured = new Map<string, SelectionShape>();
  private readonly inProgress = new Set<string>();

  /** @param fragments the document's fragments by name */
  constructor(private readonly fragments: Readonly<Record<string, FragmentDefinitionNode>>) {}

  /** The shape of a selection set (an operation's, a field's or a fragment's). */
  of(set: SelectionSetNode | undefined): SelectionShape {
    const shape: SelectionShape = { depth: 0, aliases: 0, selections: 0 };
    if (!set) return shape;
    for (const s of set.selections) {
      shape.selections = add(shape.selections, 1);
      let inner: SelectionShape;
      let depth: number;
      if (s.kind === Kind.FIELD) {
        if (s.alias) shape.aliases = add(shape.aliases, 1);
        if (!s.selectionSet) continue;
        inner = this.of(s.selectionSet);
        depth = WRAPPERS.has(s.name.value) ? inner.depth : 1 + inner.depth;
      } else if (s.kind === Kind.INLINE_FRAGMENT) {
        inner = this.of(s.selectionSet);
        depth = inner.depth;
      } else {
        inner = this.fragment(s.name.value);
        depth = inner.depth;
      }
      shape.depth = Math.max(shape.depth, depth);
      shape.aliases = add(shape.aliases, inner.aliases);
      shape.selections = add(shape.selections, inner.selections);
    }
    return shape;
  }

  /** The shape of a named fragment, measured on first use. */
  private fragment(name: string): SelectionShape {
    const known = this.measured.get(name);
    if (known) return known;
    const f = this.fragments[name];
    if (!f || this.inProgress.has(name)) return { depth: 0, aliases: 0, selections: 0 };
    this.inProgress.add(name);
    const shape = this.of(f.selectionSet);
    this.inProgress.delete(name);
    this.measured.set(name, shape);
    return shape;
  }
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

/** Operations whose measured depth and cost are kept (least recently used dropped first). */
const MEASURED_OPERATIONS = 1000;

/**
 * Most selections an operation may expand to (fragment spreads replaced by their fragments) before its cost is
 * computed: the cost library (graphql-query-complexity) walks the expanded operation, so this bounds its work. Set at
 * the library's own node limit (10,000), which it enforces by throwing once it has walked that many.
 */
export const MAX_EXPANDED_SELECTIONS = 10_000;

/**
 * The plugin refusing over-cost and over-deep operations with one clear error before anything executes.
 * Errors carry `extensions.code` (`QUERY_TOO_COSTLY` / `QUERY_TOO_DEEP`), the measured figure (`cost`, `depth`,
 * `aliases`, `nodes`, `selections`) and its limit, with HTTP status 400.
 *
 * The shape of the operation (depth, aliases, expanded size) is measured first, each fragment once
 * (SelectionShapes); an operation expanding to more than MAX_EXPANDED_SELECTIONS selections is refused there, before
 * anything expands its fragments, so the cost is only ever computed over a bounded expansion.
 *
 * Depth and cost depend only on the (fixed) schema, the document, the operation name and the variables, so they are
 * measured once per such combination and kept in a bounded LRU (clients repeat the same operations); the limits are
 * checked on every request.
 */
export function costLimitPlugin(limits: GraphqlLimits): ApolloServerPlugin {
  const maxAliases = limits.maxAliases ?? DEFAULT_GRAPHQL_LIMITS.maxAliases;
  const maxNodes = limits.maxNodes ?? DEFAULT_GRAPHQL_LIMITS.maxNodes;
  const measured = new LRUCache<string, Measure>({ max: MEASURED_OPERATIONS });
  const tooCostly = (message: string, figures: Record<string, number>) => new GraphQLError(message, { extensions: { code: 'QUERY_TOO_COSTLY', ...figures, http: { status: 400 } } });
  return {
    requestDidStart: async () => ({
      didResolveOperation: async (rc: GraphQLRequestContext<Record<string, unknown>>) => {
        // The key is a hash: the query text can be long (keys are bounded like the values).
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
        if (m.cost === undefined || m.nodes === undefined) {
          throw tooCostly(
            `Query expands to ${m.selections} selections once its fragments are spread; at most ${MAX_EXPANDED_SELECTIONS} are accepted (spread fewer fragments, or each fewer times)`,
            { selections: m.selections, maxSelections: MAX_EXPANDED_SELECTIONS },
          );
        }
        if (m.aliases > maxAliases) {
          throw tooCostly(`Query uses ${m.aliases} aliases; at most ${maxAliases} are accepted (each alias runs its field again)`, { aliases: m.aliases, maxAliases, cost: m.cost });
        }
        if (m.cost > limits.maxCost) {
          throw tooCostly(`Query cost ${m.cost} exceeds the maximum of ${limits.maxCost} (a connection costs 1 + first/last x its node cost, at least 1 per node; ask for fewer items)`, {
            cost: m.cost,
            maxCost: limits.maxCost,
          });
        }
        if (m.nodes > maxNodes) {
          throw tooCostly(`Query could return ${m.nodes} nodes; at most ${maxNodes} are accepted (ask for fewer items per page)`, { nodes: m.nodes, maxNodes });
        }
      },
    }),
  };
}

/** What the plugin measures of an operation; `cost` and `nodes` only when its expansion is within the bound. */
interface Measure extends SelectionShape {
  cost?: number;
  nodes?: number;
}

/**
 * Shape (depth, aliases, expanded selections) of the request's resolved operation, then, when it expands to at most
 * MAX_EXPANDED_SELECTIONS selections, its cost and node count.
 */
function measure(rc: GraphQLRequestContext<Record<string, unknown>>): Measure {
  const fragments: Record<string, FragmentDefinitionNode> = {};
  for (const d of rc.document!.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments[d.name.value] = d;
  const operation = rc.operation!;
  const shape = new SelectionShapes(fragments).of(operation.selectionSet);
  if (shape.selections > MAX_EXPANDED_SELECTIONS) return shape;
  // getComplexity over the document with the operation's NAME: the resolved operation may be an anonymous one
  // among others only when Apollo accepted it; a document of one anonymous operation measures that operation.
  // The library counts each selection it walks against maxQueryNodes; the shape bounds that count already.
  const common = {
    schema: rc.schema,
    query: { kind: Kind.DOCUMENT, definitions: [operation, ...Object.values(fragments)] } as const,
    variables: rc.request.variables ?? {},
    maxQueryNodes: MAX_EXPANDED_SELECTIONS + 1,
  };
  try {
    const cost = getComplexity({ ...common, estimators: [fieldExtensionsEstimator(), objectCostEstimator] });
    const nodes = getComplexity({ ...common, estimators: [nodeCountEstimator] });
    return { ...shape, cost, nodes };
  } catch (e) {
    // What the library reports (a variable it cannot coerce, its node limit) is the request's fault: a 400 whose
    // code says so, never the 500 Apollo gives an error thrown by a plugin without one.
    if (!(e instanceof GraphQLError) || e.extensions.code !== undefined) throw e;
    const code = /number of nodes/.test(e.message) ? 'QUERY_TOO_COSTLY' : 'BAD_USER_INPUT';
    throw new GraphQLError(e.message, { extensions: { code, ...(code === 'QUERY_TOO_COSTLY' ? { selections: shape.selections, maxSelections: MAX_EXPANDED_SELECTIONS } : {}), http: { status: 400 } } });
  }
}
