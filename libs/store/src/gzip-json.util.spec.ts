import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { gzipJson } from './gzip-json.util';

describe(gzipJson.name, () => {
  it('gzips exactly the bytes JSON.stringify gives, also past its walking depth and in several pieces', async () => {
    const deep = { a: { b: { c: { d: { e: { f: { g: [1, { h: 'é"\\n' }] } } } } } } };
    const doc = {
      name: 'fleet',
      skip: undefined,
      fn: () => 1,
      accounts: [{ id: '1', regions: [{ regionId: 'cn-hangzhou', lbs: Array.from({ length: 300_000 }, (_, i) => ({ id: `lb-${i}`, n: i, x: undefined })) }] }],
      holes: [undefined, null, 0, '', false],
      deep,
    };
    const { gz, rawBytes } = await gzipJson(doc);
    const text = gunzipSync(gz).toString('utf8');
    expect(text).toBe(JSON.stringify(doc));
    expect(rawBytes).toBe(Buffer.byteLength(JSON.stringify(doc)));
    // More than one 4 MiB piece.
    expect(rawBytes).toBeGreaterThan(4 * 1024 * 1024);
  });

  it('gzips scalars and empty containers as JSON.stringify does', async () => {
    for (const v of [null, 1, 'x', [], {}, [[]], { a: [] }])
      expect(gunzipSync((await gzipJson(v)).gz).toString('utf8')).toBe(JSON.stringify(v));
  });
});
