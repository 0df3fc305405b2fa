/**
 * A memo of the last key seen at each position of a list, and the value it resolved to: a front for a `Map`
 * lookup done once per entry of many similar lists (one row of `ListRowCache`).
 *
 * Exactness: the memo only answers for a key it saw at that position, and callers store in it what the `Map`
 * holds for that key; as long as a key's `Map` value never changes once set (the callers set each key once and
 * mutate the value object in place), an answer from the memo is the answer the `Map` would give.
 */
export class PositionalCache<V> {
  private readonly keys: string[] = [];
  private readonly values: V[] = [];
  /** The id sequence of the row's current first `sequenceLength` keys (`sequenceOf`). */
  private sequence?: IdSequence;
  private sequenceLength = 0;

  /** The value remembered for `key` at position `i` (0-based), or `undefined` when another key (or none) was seen there last. */
  get(i: number, key: string): V | undefined {
    return i < this.keys.length && this.keys[i] === key ? this.values[i] : undefined;
  }

  /**
   * Remembers `value` for `key` at position `i`. Positions are filled in order: `i` is at most the number of
   * positions filled so far (a list is walked from its first entry).
   *
   * @throws RangeError when `i` would leave a hole (a caller bug)
   */
  set(i: number, key: string, value: V): void {
    if (i > this.keys.length) throw new RangeError(`PositionalCache.set: position ${i} after ${this.keys.length} filled`);
    this.keys[i] = key;
    this.values[i] = value;
  }

  /**
   * The id sequence of a list just walked against this row (`IdSequence`): the row's current one when every position
   * was answered by the row (`allHit`) and the list is as long as that sequence (then the list holds the same keys at
   * the same positions), else a new one naming `list` (a miss rewrote the row's keys from that list).
   */
  sequenceOf(list: readonly { readonly serverId: string }[], allHit: boolean): IdSequence {
    if (!allHit || this.sequence === undefined || this.sequenceLength !== list.length) {
      this.sequence = { list };
      this.sequenceLength = list.length;
    }
    return this.sequence;
  }
}

/**
 * One sequence of server ids among a region's backend lists: the lists that share one hold the same ids at the same
 * positions (`PositionalCache.sequenceOf`). `list` is the first of them; the last id list it was compared with
 * (`sameServerIds`) and the answer are kept on it.
 */
export interface IdSequence {
  readonly list: readonly { readonly serverId: string }[];
  comparedWith?: readonly string[];
  same?: boolean;
}

/**
 * Whether an id sequence is exactly `ids`, position by position; compared once per sequence and id list (the last
 * answer is kept on the sequence).
 */
export function sameServerIds(sequence: IdSequence, ids: readonly string[]): boolean {
  if (sequence.comparedWith === ids) return sequence.same!;
  const list = sequence.list;
  let same = list.length === ids.length;
  for (let k = 0; k < ids.length && same; k++) same = list[k]!.serverId === ids[k];
  sequence.comparedWith = ids;
  sequence.same = same;
  return same;
}

/**
 * Rows of `PositionalCache`, one per first key: a list is matched, position by position, against the last list
 * that started with the same key.
 *
 * Why: the backend lists of a region repeat each other, but not next to each other. In Cluster mode every vServer
 * group of every Service of a cluster lists the same eligible nodes (seed 004: CCM attaches every node; CCM
 * clbv1/vgroups.go), and so do the server groups of NLB Services (nlbv2/server_groups.go); the mappers sort each
 * list by server id, so the lists of one cluster are the same sequence, while the region's CLBs, sorted by id, mix
 * the clusters. A pass that resolves each entry's server id in a region-wide `Map` (hundreds of thousands of keys:
 * each lookup is a few cache and TLB misses) does one lookup per list here (the row of its first id) and then, for
 * most entries, one string comparison against a small, cache-resident row (the mappers intern ids, so mostly a
 * pointer comparison). On the bench fleet 93 % of the entries are answered by their row.
 */
export class ListRowCache<V> {
  private readonly rows = new Map<string, PositionalCache<V>>();

  /** The row of lists whose first key is `firstKey` (created empty on first use). */
  row(firstKey: string): PositionalCache<V> {
    let r = this.rows.get(firstKey);
    if (r === undefined) {
      r = new PositionalCache<V>();
      this.rows.set(firstKey, r);
    }
    return r;
  }
}
