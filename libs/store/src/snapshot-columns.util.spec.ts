import { deepStrictEqual } from 'node:assert';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ColumnLine, expandColumnLine } from './snapshot-columns.util';

/** One list line in the column form as the writer writes it: its `v`, `c` and `t` through JSON. */
function encodeLine(items: readonly unknown[]): { v: unknown; c?: unknown; t?: unknown; text: string } {
  const line = new ColumnLine();
  const v = (items.length > 1 ? line.compactLine(items) : undefined) ?? items.map((x, i) => line.compact(x, i));
  const text = JSON.stringify(line.paths.length > 0 ? { v, c: line.paths, t: line.table } : { v });
  return { ...(JSON.parse(text) as { v: unknown; c?: unknown; t?: unknown }), text };
}

/** The items of an encoded line, expanded as the reader expands them. */
function decodeLine(line: { v: unknown; c?: unknown; t?: unknown }): unknown[] {
  if (line.c !== undefined || line.t !== undefined) return expandColumnLine(line.v, line.c, line.t);
  return line.v as unknown[];
}

/** Expect the line's items to come back as JSON gives them back, keys in order. */
function expectRoundTrip(items: readonly unknown[]): { v: unknown; c?: unknown; t?: unknown; text: string } {
  const encoded = encodeLine(items);
  const back = decodeLine(structuredClone(encoded));
  deepStrictEqual(back, JSON.parse(JSON.stringify(items)));
  expect(JSON.stringify(back)).toBe(JSON.stringify(items));
  return encoded;
}

const backends = (n: number, port = 30001): Record<string, unknown>[] =>
  Array.from({ length: n }, (_, i) => ({
    serverId: `i-bp1${i}`,
    serverIp: `10.0.0.${i}`,
    port,
    weight: 100,
    type: 'ecs',
    description: `k8s/${port}/svc-2/team-2/c1`,
  }));

describe(ColumnLine.name, () => {
  it('writes a list of objects of the same keys as one block: keys once, shared values once, the rest as columns of the table', () => {
    const item = { loadBalancerId: 'lb-1', vServerGroups: [{ vServerGroupId: 'rsp-1', backendServers: backends(3) }] };
    const { v, c, t } = expectRoundTrip([item]);
    expect(c).toEqual([[0, 'vServerGroups', 0, 'backendServers']]);
    expect((v as (typeof item)[])[0]!.vServerGroups[0]!.backendServers).toEqual({
      n: 3,
      k: ['serverId', 'serverIp', 'port', 'weight', 'type', 'description'],
      v: [0, 1, [30001], [100], ['ecs'], ['k8s/30001/svc-2/team-2/c1']],
    });
    expect(t).toEqual([
      ['i-bp10', 'i-bp11', 'i-bp12'],
      ['10.0.0.0', '10.0.0.1', '10.0.0.2'],
    ]);
    // The item itself is not changed.
    expect(Array.isArray(item.vServerGroups[0]!.backendServers)).toBe(true);
  });

  it('shares a column of ids that several lists of the line repeat (every Cluster-mode Service lists the same nodes)', () => {
    const items = [0, 1, 2].map((i) => ({ loadBalancerId: `lb-${i}`, vServerGroups: [{ backendServers: backends(50, 30000 + i) }] }));
    const { t, text } = expectRoundTrip(items);
    expect(t).toHaveLength(2);
    expect(text.length * 5).toBeLessThan(JSON.stringify(items).length);
  });

  it('writes a list of lists of blocks, the outer block after the inner ones, and reads it back', () => {
    const groups = Array.from({ length: 4 }, (_, i) => ({ vServerGroupId: `rsp-${i}`, name: `k8s/${i}`, backendServers: backends(5, 30000 + i) }));
    const { c } = expectRoundTrip([{ loadBalancerId: 'lb-1', vServerGroups: groups }]);
    expect((c as unknown[][]).at(-1)).toEqual([0, 'vServerGroups']);
    expect(c).toHaveLength(5);
  });

  it('leaves alone empty lists, one item, lists of other keys or key orders, of scalars, of arrays, and lists too short to pay', () => {
    const cases: unknown[][] = [
      [],
      [{ a: 1 }],
      backends(1),
      [{ a: 1, b: 2 }, { b: 2, a: 1 }, { a: 1, b: 2 }],
      [{ a: 1, b: 2 }, { a: 1 }, { a: 1, b: 2 }],
      [{ a: 1, b: 2 }, { a: 1, b: 2, c: 3 }],
      ['x', 'y', 'z'],
      [[1], [2], [3]],
      [{ a: 1 }, { a: 2 }, { a: 3 }],
      [{ a: 1 }, null, { a: 3 }],
      [{ a: 1 }, new Date(0), { a: 3 }],
    ];
    for (const list of cases) {
      const { c } = expectRoundTrip([{ list }]);
      expect(c).toBeUndefined();
    }
  });

  it('keeps key order, escapes, nested objects, numbers, booleans and null, a key absent in some items and undefined in others', () => {
    const odd = 'quote " backslash \\ newline \n tab \t nul \u0000 lone \ud800 emoji 😀 中文';
    const items = Array.from({ length: 40 }, (_, i) => ({
      zeta: i,
      alpha: odd,
      tags: { 'ack.aliyun.com': `c${i % 3}`, z: 'last', a: 'first' },
      flag: i % 2 === 0,
      none: null,
      float: i / 7,
      big: Number.MAX_SAFE_INTEGER,
      neg: -i,
      list: i % 3 === 0 ? [] : [i, 'x', null],
      gone: undefined,
      ...(i % 5 === 0 ? { maybe: undefined } : {}),
    }));
    const { c } = expectRoundTrip([{ items }]);
    expect(c).toEqual([[0, 'items']]);
    // Present in some items only: a list of other keys, left as it is.
    const mixed = items.map((x, i) => (i % 4 === 0 ? { ...x, extra: i } : x));
    expect(expectRoundTrip([{ mixed }]).c).toBeUndefined();
  });

  it('does not share a column of objects between blocks (each item gets objects of its own)', () => {
    const tags = { a: '1' };
    const list = () => Array.from({ length: 10 }, (_, i) => ({ id: `x-${i}`, tags, name: 'same' }));
    const { t } = expectRoundTrip([{ one: list(), two: list() }]);
    // Ids shared, the tags columns written twice.
    expect(t).toHaveLength(3);
    const back = decodeLine(encodeLine([{ one: list(), two: list() }])) as { one: { tags: object }[]; two: { tags: object }[] }[];
    expect(back[0]!.one[0]!.tags).not.toBe(back[0]!.two[0]!.tags);
    expect(back[0]!.one[0]!.tags).not.toBe(back[0]!.one[1]!.tags);
  });

  it("writes a line's items as one block when they are one list of the same keys, the blocks inside them first", () => {
    const ecs = Array.from({ length: 20 }, (_, i) => ({ instanceId: `i-${i}`, regionId: 'cn-hangzhou', status: 'Running', privateIps: [`10.0.0.${i}`], tags: { a: 'b' }, nics: backends(4) }));
    const { v, c, t } = expectRoundTrip(ecs);
    expect((c as unknown[][]).at(-1)).toEqual([]);
    expect(c).toHaveLength(21);
    // Columns in key order, the nics blocks' own columns (ids, IPs) before the column of the nics blocks.
    expect(v).toEqual({ n: 20, k: ['instanceId', 'regionId', 'status', 'privateIps', 'tags', 'nics'], v: [0, ['cn-hangzhou'], ['Running'], 1, 2, 5] });
    expect((t as unknown[][])[0]).toEqual(ecs.map((e) => e.instanceId));
    // One item, or items of other keys: item by item.
    expect(expectRoundTrip(ecs.slice(0, 1)).c).toEqual([[0, 'nics']]);
    expect(Array.isArray(expectRoundTrip([...ecs, { instanceId: 'odd' }]).v)).toBe(true);
  });

  it('leaves alone an item that is not an object and lists holding `__proto__` or a toJSON method', () => {
    const protoKey = JSON.parse('[{"__proto__":{"x":1},"a":1,"b":2},{"__proto__":{"x":1},"a":1,"b":2},{"__proto__":{"x":1},"a":1,"b":2}]') as unknown[];
    const withToJson = Array.from({ length: 5 }, (_, i) => ({ a: i, toJSON: () => ({ b: i }) }));
    const { c } = expectRoundTrip([null, 'text', 3, { protoKey, withToJson: { list: withToJson } }]);
    expect(c).toBeUndefined();
  });

  it('round-trips any JSON (property)', () => {
    const scalar = fc.oneof(fc.string(), fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.boolean(), fc.constant(null));
    const row = fc.record(
      { id: fc.string(), ip: fc.constantFrom('10.0.0.1', '10.0.0.2'), port: fc.integer({ min: 1, max: 3 }), tags: fc.dictionary(fc.string(), scalar, { maxKeys: 2 }), x: scalar },
      { requiredKeys: ['id', 'port'] },
    );
    const item = fc.record({ rows: fc.array(row, { maxLength: 30 }), same: fc.array(fc.constant({ k: 'v', w: 1, longerKey: 'x' }), { maxLength: 20 }), any: fc.jsonValue({ maxDepth: 3 }) });
    fc.assert(
      fc.property(fc.array(item, { maxLength: 4 }), (items) => {
        expectRoundTrip(items);
      }),
      { numRuns: 300 },
    );
  });
});

describe(expandColumnLine.name, () => {
  const good = (): { v: unknown[]; c: unknown; t: unknown } => {
    const e = encodeLine([{ list: backends(4) }]);
    return { v: e.v as unknown[], c: e.c, t: e.t };
  };

  it('refuses paths, blocks and tables the writer does not write, with a SyntaxError naming the path', () => {
    const bad: [(l: { v: unknown[]; c: unknown; t: unknown }) => void, RegExp][] = [
      [(l) => (l.c = 'x'), /not an array/],
      [(l) => (l.t = undefined), /not an array/],
      [(l) => (l.c = [[]]), /at \[\] is not a block/],
      [(l) => (l.c = [[], ...(l.c as unknown[])]), /column path \[\] is not a path/],
      [(l) => (l.c = [[1, 'list']]), /leads to no value at 1/],
      [(l) => (l.c = [[0, 'other']]), /leads to no value at "other"/],
      [(l) => (l.c = [[0, '__proto__']]), /leads to no value/],
      [(l) => (l.c = [[0]]), /no item count/],
      [(l) => (l.c = [[0, 'list', 'k']]), /is not a block/],
      [(l) => ((l.v[0] as { list: { n: unknown } }).list.n = -1), /item count/],
      [(l) => ((l.v[0] as { list: { k: unknown[] } }).list.k.pop()), /one value per key/],
      [(l) => ((l.v[0] as { list: { k: unknown[] } }).list.k[2] = '__proto__'), /has key "__proto__"/],
      [(l) => ((l.v[0] as { list: { v: unknown[] } }).list.v[0] = 9), /column 9/],
      [(l) => ((l.t as unknown[][])[0]!.pop()), /not 4 values/],
      [(l) => ((l.v[0] as { list: { v: unknown[] } }).list.v[2] = [1, 2]), /has value \[1,2\] for key "port"/],
      [(l) => ((l.v[0] as { list: { v: unknown[] } }).list.v[2] = [{}]), /has value \[\{\}\]/],
      [(l) => ((l as { v: unknown }).v = 'x'), /neither a list nor a column list/],
    ];
    for (const [spoil, why] of bad) {
      const line = good();
      spoil(line);
      const thrown = (() => {
        try {
          decodeLine(line);
        } catch (e) {
          return e;
        }
      })();
      expect(thrown).toBeInstanceOf(SyntaxError);
      expect((thrown as Error).message).toMatch(why);
    }
    expect(decodeLine(good())).toEqual([{ list: backends(4) }]);
  });
});
