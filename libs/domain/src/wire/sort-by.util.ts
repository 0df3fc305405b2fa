/**
 * Sorts `items` in place by a string key (code-unit order, stable, as `Array.prototype.sort` with a key
 * comparator) and returns the same array. Each key is computed once, not twice per comparison: the mappers
 * sort every backend-server list of the fleet (about 10M entries at 5,000 clusters), and a comparator that
 * built two template strings per comparison spent most of the snapshot mapping there.
 * An already sorted list (the usual case: API pages come in id order) costs one pass of keys.
 */
export function sortBy<T>(items: T[], key: (t: T) => string): T[] {
  const n = items.length;
  if (n < 2) return items;
  const keys = new Array<string>(n);
  let sorted = true;
  for (let i = 0; i < n; i++) {
    keys[i] = key(items[i]);
    if (sorted && i > 0 && keys[i - 1] > keys[i]) sorted = false;
  }
  if (sorted) return items;
  const order = Array.from({ length: n }, (_, i) => i);
  order.sort((a, b) => (keys[a] < keys[b] ? -1 : keys[a] > keys[b] ? 1 : a - b));
  const copy = items.slice();
  for (let i = 0; i < n; i++) items[i] = copy[order[i]];
  return items;
}
