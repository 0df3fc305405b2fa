/**
 * Lists of ids as paths in a trie of ids (`IdPath`): what the backend pass of the index (fleet-index.ts
 * `regionBackendStats`) and the fleet graph (fleet-graph.ts) keep per ECS instance for the CLBs and NLB server groups
 * listing it. Pure: no I/O.
 */

/**
 * A list of ids as a path in a trie of ids: the ids appended to an instance's list, one step per id. The ECS instances
 * of one cluster meet the same CLBs (and NLB server groups) in the same order, so they end on one node, whose sorted
 * list is built once and shared by all of them (an instance's list is never changed after the build).
 */
export interface IdPath {
  /** The last id of the path (`''` at the root, which holds none). */
  readonly id: string;
  readonly parent: IdPath | undefined;
  /** How many ids the path holds. */
  readonly depth: number;
  /** The child stepped to last: the instances of one cluster step to the same child one after another. */
  lastChild: IdPath | undefined;
  children: Map<string, IdPath> | undefined;
  /** The path's ids sorted (with repeats, or distinct: `sortedIds`), once asked for. */
  sorted: string[] | undefined;
  /** For a path of NLB server-group ids: the NLBs of those groups, distinct and sorted, once asked for. */
  nlbs: string[] | undefined;
}

export function idPathRoot(): IdPath {
  return { id: '', parent: undefined, depth: 0, lastChild: undefined, children: undefined, sorted: undefined, nlbs: undefined };
}

/** The path `node` then `id` (created on first use). */
export function stepIdPath(node: IdPath, id: string): IdPath {
  const last = node.lastChild;
  if (last !== undefined && last.id === id) return last;
  let child = node.children?.get(id);
  if (child === undefined) {
    child = { id, parent: node, depth: node.depth + 1, lastChild: undefined, children: undefined, sorted: undefined, nlbs: undefined };
    (node.children ??= new Map()).set(id, child);
  }
  node.lastChild = child;
  return child;
}

/**
 * The first `n` ids of a path, in path order (all of them when it holds fewer): one step up per id the path holds.
 */
export function idPathPrefix(node: IdPath, n: number): string[] {
  const ids = new Array<string>(Math.min(n, node.depth));
  for (let x: IdPath = node; x.parent !== undefined; x = x.parent) if (x.depth <= ids.length) ids[x.depth - 1] = x.id;
  return ids;
}

/**
 * The ids of a path, sorted as `Array.prototype.sort` sorts strings; with `distinct`, each id once (as a Set's
 * spread, sorted). Built once per node: every instance ending there gets the same array.
 */
export function sortedIds(node: IdPath, distinct: boolean): string[] {
  if (node.sorted !== undefined) return node.sorted;
  const ids = new Array<string>(node.depth);
  for (let x: IdPath = node; x.parent !== undefined; x = x.parent) ids[x.depth - 1] = x.id;
  ids.sort();
  if (distinct) {
    let n = 0;
    for (let i = 0; i < ids.length; i++) if (i === 0 || ids[i] !== ids[n - 1]) ids[n++] = ids[i]!;
    ids.length = n;
  }
  node.sorted = ids;
  return ids;
}
