/**
 * The column form of the stored snapshot's list lines (`fleet-audit-snapshot-lines/3`, scan-snapshot.repository.ts).
 *
 * Most of a fleet snapshot's JSON is lists of objects that all have the same keys in the same order, most of
 * whose values are the same across the list: a CLB vServer group's `backendServers` (every entry has the Service's
 * NodePort, weight, type and CCM's description; only `serverId` and `serverIp` differ) and an NLB server group's
 * `servers` (bench fleet: 73 % of the snapshot's bytes). Written as objects, every key and every repeated value is
 * serialised, compressed, decompressed and parsed again once per entry. In the column form such a list is a block
 *
 *     {"n":3,"k":["serverId","serverIp","port","weight","type","description"],"v":[0,1,[30001],[100],["ecs"],["k8s/30001/svc/ns/c1"]]}
 *
 * `n` items, their keys `k` once in their order, and per key in `v` either `[value]` (the one value every item has:
 * a string, number, boolean or null) or a number: the index of the column of the items' values in the line's table
 * `t`. A column of strings, numbers, booleans and nulls that equals one already in the table is not written again
 * but refers to it: every Cluster-mode Service of a cluster lists the same nodes, so a line of 256 CLBs repeats
 * the same `serverId` and `serverIp` columns (bench fleet: 771 columns, 89 distinct).
 *
 * Where the blocks are is written beside the items, not marked inside them (no key of the data is reserved, nothing
 * is escaped): a line's `c` lists the path of every block from the line's `v` (an item's index, then keys and
 * indexes), children before their parent (a list of vServer groups can be a block whose `backendServers` column holds
 * blocks). The reader expands them in the reverse order, parents first, so each path leads through expanded lists.
 *
 * Lossless for JSON: the expanded line is what `JSON.parse` of the items' `JSON.stringify` gives, keys in the same
 * order. A list is a block only when every item is a plain object (no `toJSON`) with the same keys, in the same order,
 * that JSON writes (a key whose value is `undefined`, a function or a symbol is not written: an item with it equals
 * one without it). Any other list (items of other keys, a key missing in some items, other values) is left as it is.
 */

/** A step of a block's path: an array index or an object key. */
export type ColumnPathStep = string | number;

/** A list in the column form (see the file comment). */
export interface ColumnBlock {
  /** Items (count). */
  n: number;
  /** The items' keys, in their order. */
  k: string[];
  /** Per key: `[value]`, the value of every item, or the index of the items' column in the line's table. */
  v: (number | [unknown])[];
}

/**
 * Least number of bytes of keys a block must save (`(n - 1)` times the items' `"key":` texts) before a list is
 * written as one: below it the block's own keys, its path and its expansion cost more than they save (a list of two
 * objects of one short key).
 */
const MIN_SAVED_KEY_BYTES = 96;

/**
 * Whether reading `__proto__` gives an object's prototype: true unless Node runs with `--disable-proto` (which
 * deletes the accessor, or makes it throw).
 */
const PROTO_ACCESSOR_WORKS = ((): boolean => {
  try {
    return ({} as { __proto__?: unknown }).__proto__ === Object.prototype;
  } catch {
    return false;
  }
})();

/**
 * Whether an object's prototype is Object.prototype or null. Reads the `__proto__` accessor first: V8 inlines it,
 * where `Object.getPrototypeOf` is a call costing about as much as reading the object's keys (Node 20; called once per
 * backend server). An object whose `__proto__` reads otherwise (null prototype, an own `__proto__` key, the accessor
 * disabled) is asked `Object.getPrototypeOf`.
 */
function hasObjectPrototype(v: object): boolean {
  if (PROTO_ACCESSOR_WORKS && (v as { __proto__?: unknown }).__proto__ === Object.prototype) return true;
  const proto: unknown = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/** Whether `v` is an object JSON.stringify writes as its own keys: a plain object without a `toJSON` method. */
function isPlainObject(v: object): v is Record<string, unknown> {
  return hasObjectPrototype(v) && typeof (v as { toJSON?: unknown }).toJSON !== 'function';
}

/** Whether `v` is a value a column may share with another block, or a block may hold once for every item. */
function isScalar(v: unknown): boolean {
  return v === null || typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';
}

/**
 * The keys JSON.stringify writes of a plain object (those whose value is not `undefined`), in its order, or undefined
 * when one is `__proto__` (an own key of that name, as `JSON.parse` makes it, would set the prototype when assigned
 * back) or holds a function or a symbol (not data): a list of such items is left as it is.
 */
function writtenKeys(o: Record<string, unknown>): string[] | undefined {
  const keys = Object.keys(o);
  let all = true;
  for (const k of keys) {
    const v = o[k];
    if (k === '__proto__' || typeof v === 'function' || typeof v === 'symbol') return undefined;
    if (v === undefined) all = false;
  }
  return all ? keys : keys.filter((k) => o[k] !== undefined);
}

/**
 * Whether an object is written by JSON.stringify as its own keys provided none holds a function: its prototype is
 * Object.prototype (without a `toJSON` method) or null. Cheaper than `isPlainObject` for the items of a list, whose
 * values `block` checks anyway.
 */
function hasPlainPrototype(v: object): boolean {
  return hasObjectPrototype(v) && typeof (Object.prototype as { toJSON?: unknown }).toJSON !== 'function';
}

/**
 * The column form of one list line's items, built item by item while the line is written: `compact` gives each item
 * with its blocks in place of its lists; once the line's items are written, `paths` and `table` are the line's `c`
 * and `t`. Holds one line's paths and columns (references to the items' values, no copies of them).
 */
export class ColumnLine {
  /** Path of each block from the line's `v`, children before their parent (the line's `c`). */
  readonly paths: ColumnPathStep[][] = [];
  /** The columns the blocks refer to (the line's `t`). */
  readonly table: unknown[][] = [];
  /** Columns of scalars by length, first and last value: candidates a new column may equal. */
  private readonly scalarColumns = new Map<string, number[]>();
  private readonly at: ColumnPathStep[] = [];

  /**
   * The block of a line's items themselves (path `[]`, after the blocks inside them), when they are one list of the
   * same keys that pays (a line of ECS instances: their keys, region, zone, status... once); undefined when they are
   * not, and nothing is recorded: the items are then written one by one (`compact`). Call before any `compact`.
   */
  compactLine(items: readonly unknown[]): ColumnBlock | undefined {
    this.at.length = 0;
    return this.block(items);
  }

  /**
   * `item` with every list under it that pays as a block (see the file comment) replaced by its block, recording the
   * block's path and columns; `item` itself when none is. Objects on the way to a block are shallow copies; `item`
   * and what it holds are not changed.
   * @param item plain JSON data, as JSON.stringify writes it (no cycles: JSON.stringify would throw on one anyway)
   * @param index the item's index in the line's `v`
   */
  compact(item: unknown, index: number): unknown {
    if (typeof item !== 'object' || item === null) return item;
    this.at.length = 0;
    this.at.push(index);
    return this.walk(item);
  }

  /**
   * `v` (at path `this.at`) with its lists that pay replaced by blocks, children first. A list that is a block is not
   * walked item by item: only its columns of objects and arrays are (a backend-server entry, all scalars, is read
   * once, by `block`).
   */
  private walk(v: object): unknown {
    if (Array.isArray(v)) {
      const block = this.block(v);
      if (block) return block;
      let copy: unknown[] | undefined;
      for (let i = 0; i < v.length; i++) {
        const x: unknown = v[i];
        if (typeof x !== 'object' || x === null) continue;
        this.at.push(i);
        const y = this.walk(x);
        this.at.pop();
        if (y !== x) (copy ??= v.slice())[i] = y;
      }
      return copy ?? v;
    }
    if (!isPlainObject(v)) return v;
    let copy: Record<string, unknown> | undefined;
    for (const k in v) {
      const x = v[k];
      if (typeof x !== 'object' || x === null || k === '__proto__' || !Object.hasOwn(v, k)) continue;
      this.at.push(k);
      const y = this.walk(x);
      this.at.pop();
      if (y !== x) (copy ??= { ...v })[k] = y;
    }
    return copy ?? v;
  }

  /**
   * The block of `list` (recorded at `this.at`, after the blocks inside its items), or undefined when it is not one
   * list of the same keys or does not pay.
   */
  private block(list: readonly unknown[]): ColumnBlock | undefined {
    const n = list.length;
    if (n < 2) return undefined;
    const first = list[0];
    if (typeof first !== 'object' || first === null || Array.isArray(first) || !isPlainObject(first)) return undefined;
    const keys = writtenKeys(first);
    if (!keys || keys.length === 0) return undefined;
    const m = keys.length;
    let keyBytes = 0;
    for (const k of keys) keyBytes += k.length + 4;
    if ((n - 1) * keyBytes < MIN_SAVED_KEY_BYTES) return undefined;
    // Arrays here are built by push: V8 keeps them packed, and JSON.stringify writes a packed array about a third
    // faster than one made by `new Array(n)` (holey, even once filled).
    const firstValues: unknown[] = [];
    for (const k of keys) firstValues.push(first[k]);
    // One pass over the items, each read by `for...in` (V8 reads `x[k]` of the loop's own key from the object's
    // enum cache, where a read by a key held in a variable is a generic keyed lookup per key and item). An
    // enumerable key a changed Object.prototype lends every object makes the keys differ: the list is left as it is.
    // A key's column is made once an item differs from the first: until then every item had the first's (scalar) value.
    const columns: (unknown[] | undefined)[] = [];
    for (let j = 0; j < m; j++) columns.push(undefined);
    for (let i = 1; i < n; i++) {
      const x = list[i];
      if (typeof x !== 'object' || x === null || !hasPlainPrototype(x)) return undefined;
      let j = 0;
      for (const k in x) {
        const value = (x as Record<string, unknown>)[k];
        if (value === undefined) continue;
        // A function (an own toJSON among them) or a symbol: not data this form is for.
        if (keys[j] !== k || typeof value === 'function' || typeof value === 'symbol') return undefined;
        let column = columns[j];
        if (column === undefined) {
          const v0 = firstValues[j];
          if (value === v0 && isScalar(v0)) {
            j += 1;
            continue;
          }
          column = columns[j] = [];
          for (let h = 0; h < i; h++) column.push(v0);
        }
        column.push(value);
        j += 1;
      }
      if (j !== m) return undefined;
    }
    const v: (number | [unknown])[] = [];
    for (let j = 0; j < m; j++) {
      const column = columns[j];
      if (column === undefined) {
        v.push([firstValues[j]]);
        continue;
      }
      let scalars = true;
      for (let i = 0; i < n; i++) {
        const x = column[i];
        if (typeof x === 'object' && x !== null) {
          this.at.push(i, keys[j]!);
          column[i] = this.walk(x);
          this.at.length -= 2;
          scalars = false;
        }
      }
      v.push(scalars ? this.sharedColumn(column) : this.table.push(column) - 1);
    }
    this.paths.push(this.at.slice());
    return { n, k: keys, v };
  }

  /** The table index of a column of scalars: one equal to it already in the table, or the column added. */
  private sharedColumn(column: unknown[]): number {
    const n = column.length;
    const key = `${n}\u0000${String(column[0])}\u0000${String(column[n - 1])}`;
    const candidates = this.scalarColumns.get(key);
    if (candidates) {
      for (const t of candidates) {
        const other = this.table[t]!;
        let equal = true;
        for (let i = 0; i < n && equal; i++) equal = other[i] === column[i];
        if (equal) return t;
      }
    }
    const t = this.table.push(column) - 1;
    if (candidates) candidates.push(t);
    else this.scalarColumns.set(key, [t]);
    return t;
  }
}

/**
 * Expand the blocks of one list line (the reverse of `ColumnLine`): each block at a path of `paths`, last first,
 * becomes the list of its items, keys in the block's order, values from its constants and `table`'s columns; the
 * path `[]` is the line's `v` itself (`ColumnLine.compactLine`).
 * @param items the line's `v`: its items, or a block of them
 * @param paths the line's `c`
 * @param table the line's `t`
 * @returns the line's items (`items` itself, expanded in place, unless it was a block)
 * @throws SyntaxError naming the path when `paths` or `table` is not what `ColumnLine` writes: a path that leads to
 *   no value (or through `__proto__`), a block of the wrong shape, a column index outside the table or a column not
 *   `n` long
 */
export function expandColumnLine(items: unknown, paths: unknown, table: unknown): unknown[] {
  if (!Array.isArray(paths) || !Array.isArray(table)) throw new SyntaxError('stored snapshot: a list line\'s column paths ("c") or table ("t") is not an array');
  let p = paths.length - 1;
  let root = items;
  // The line's own block, recorded last (after the blocks inside its items), is expanded first.
  if (p >= 0 && Array.isArray(paths[p]) && (paths[p] as unknown[]).length === 0) {
    root = expandBlock(items, table, []);
    p -= 1;
  }
  if (!Array.isArray(root)) throw new SyntaxError('stored snapshot: a list line\'s items ("v") are neither a list nor a column list');
  for (; p >= 0; p--) {
    const path: unknown = paths[p];
    if (!Array.isArray(path) || path.length === 0) throw new SyntaxError(`stored snapshot: column path ${JSON.stringify(path)} is not a path`);
    let parent: unknown = root;
    for (let s = 0; s < path.length - 1; s++) parent = stepInto(parent, path[s], path);
    const last: unknown = path[path.length - 1];
    const block = stepInto(parent, last, path);
    (parent as Record<string | number, unknown>)[last as string | number] = expandBlock(block, table as unknown[], path);
  }
  return root;
}

/**
 * The value at `step` of `parent`: an index in range of an array, an own key (not `__proto__`) of an object.
 * @throws SyntaxError naming `path` otherwise
 */
function stepInto(parent: unknown, step: unknown, path: unknown[]): unknown {
  if (Array.isArray(parent)) {
    if (typeof step === 'number' && Number.isInteger(step) && step >= 0 && step < parent.length) return parent[step];
  } else if (typeof parent === 'object' && parent !== null && typeof step === 'string' && step !== '__proto__' && Object.hasOwn(parent, step)) {
    return (parent as Record<string, unknown>)[step];
  }
  throw new SyntaxError(`stored snapshot: column path ${JSON.stringify(path)} leads to no value at ${JSON.stringify(step)}`);
}

/**
 * The items of a block.
 * @throws SyntaxError naming `path` when `block` is not a block whose columns are in `table`
 */
function expandBlock(block: unknown, table: unknown[], path: unknown[]): Record<string, unknown>[] {
  const bad = (why: string): SyntaxError => new SyntaxError(`stored snapshot: the column list at ${JSON.stringify(path)} ${why}`);
  if (typeof block !== 'object' || block === null || Array.isArray(block)) throw bad('is not a block');
  const { n, k, v } = block as Partial<ColumnBlock>;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 0) throw bad('has no item count');
  if (!Array.isArray(k) || !Array.isArray(v) || k.length !== v.length) throw bad('has no keys, or not one value per key');
  const columns: unknown[][] = [];
  const constants: unknown[] = [];
  for (let j = 0; j < k.length; j++) {
    if (typeof k[j] !== 'string' || k[j] === '__proto__') throw bad(`has key ${JSON.stringify(k[j])}`);
    const e: unknown = v[j];
    if (typeof e === 'number') {
      const column = Number.isInteger(e) && e >= 0 ? table[e] : undefined;
      if (!Array.isArray(column) || column.length !== n) throw bad(`refers to column ${e}, which is not ${n} values of the line's table`);
      columns[j] = column;
    } else if (Array.isArray(e) && e.length === 1 && isScalar(e[0])) constants[j] = e[0];
    else throw bad(`has value ${JSON.stringify(e)} for key ${JSON.stringify(k[j])}`);
  }
  const out = new Array<Record<string, unknown>>(n);
  for (let i = 0; i < n; i++) {
    const o: Record<string, unknown> = {};
    for (let j = 0; j < k.length; j++) {
      const column = columns[j];
      o[k[j]!] = column ? column[i] : constants[j];
    }
    out[i] = o;
  }
  return out;
}
