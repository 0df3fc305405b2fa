import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { sanitizeText } from '@app/domain';
import { compressedPartsBuffer, compressedWriter, GZIP_CODEC, gzipJson, gzipWriter, threadedGzipCodec, type CompressedWriter, type SlabCodec } from './gzip-json.util';

/** The writer's gzip bytes as one Buffer and the size of the text written. */
async function end(w: CompressedWriter): Promise<{ gz: Buffer; rawBytes: number }> {
  const parts = await w.endParts();
  return { gz: compressedPartsBuffer(parts), rawBytes: parts.rawBytes };
}

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
    // More than one piece.
    expect(rawBytes).toBeGreaterThan(4 * 1024 * 1024);
  });

  it('writes the form jsonb gives back at every depth: keys shorter first then bytewise, text made storable', async () => {
    const deep = { a: { b: { c: { d: { e: { f: { zz: 1, g: [1, { hh: 'x\u0000', h: 'é' }] } } } } } } };
    const doc = { zz: 1, a: { ccc: [{ bb: 'x\u0000', a: 2, skip: undefined }], b: null }, deep, lbs: Array.from({ length: 200_000 }, (_, i) => ({ name: `lb-${i}`, id: i })) };
    const jsonbForm = (_k: string, v: unknown): unknown => {
      if (typeof v === 'string') return sanitizeText(v);
      if (v === null || typeof v !== 'object' || Array.isArray(v)) return v;
      return Object.fromEntries(Object.entries(v).sort(([a], [b]) => a.length - b.length || (a < b ? -1 : a > b ? 1 : 0)));
    };
    const { gz, rawBytes } = await gzipJson(doc, { jsonbCompatible: true });
    const text = gunzipSync(gz).toString('utf8');
    expect(text).toBe(JSON.stringify(doc, jsonbForm));
    expect(text.startsWith('{"a":{"b":null,"ccc":[{"a":2,"bb":"x\u2400"}]},"zz":1,"lbs":[{"id":0,"name":"lb-0"}')).toBe(true);
    expect(rawBytes).toBeGreaterThan(4 * 1024 * 1024);
  });

  it('gzips scalars and empty containers as JSON.stringify does', async () => {
    for (const v of [null, 1, 'x', [], {}, [[]], { a: [] }])
      expect(gunzipSync((await gzipJson(v)).gz).toString('utf8')).toBe(JSON.stringify(v));
  });
});

describe('gzipWriter', () => {
  it('compresses exactly the text written: many small pieces sharing reused slabs, multi-byte UTF-8, and pieces longer than a slab', async () => {
    const w = gzipWriter();
    const pieces: string[] = [];
    // About 80 MB in all: several 8 MiB slabs filled and reused (one gzip member each), two pieces of their own in between.
    for (let i = 0; i < 40_000; i++) pieces.push(`{"i":${i},"t":"监听描述 ${'x'.repeat(i % 1_000)}"}\n`);
    pieces.splice(10_000, 0, 'a'.repeat(6_000_000));
    pieces.splice(30_000, 0, `${'é'.repeat(3_000_000)}\n`);
    for (const p of pieces) await w.write(p);
    const { gz, rawBytes } = await end(w);
    const text = pieces.join('');
    expect(rawBytes).toBe(Buffer.byteLength(text));
    expect(gunzipSync(gz).toString('utf8') === text).toBe(true);
  });

  it('keeps surrogate pairs whole where a text longer than a slab is cut into slices', async () => {
    for (const lead of ['', 'a']) {
      const w = gzipWriter();
      const text = `${lead}${'😀'.repeat(3_000_000)}é`;
      await w.write(text);
      const { gz, rawBytes } = await end(w);
      expect(rawBytes).toBe(Buffer.byteLength(text));
      expect(gunzipSync(gz).toString('utf8') === text).toBe(true);
    }
  });

  it('writes a valid gzip for no text at all', async () => {
    const { gz, rawBytes } = await end(gzipWriter());
    expect(rawBytes).toBe(0);
    expect(gunzipSync(gz).length).toBe(0);
  });
});

describe(threadedGzipCodec.name, () => {
  /** A thread entry that fails every slab it is given: where it runs, the writer fails with its message. */
  function failingEntry(): string {
    const dir = mkdtempSync(join(tmpdir(), 'gzip-slab-'));
    const entry = join(dir, 'entry.js');
    writeFileSync(entry, "module.exports = () => { throw new Error('slab compressed on a thread'); };\n");
    return entry;
  }

  it('compresses every slab but the last on its threads, and a text of one slab without starting one', async () => {
    const entry = failingEntry();
    const small = compressedWriter(threadedGzipCodec(entry));
    const text = `${'{"serverId":"i-1","port":30001}\n'.repeat(100_000)}`;
    await small.write(text);
    expect(gunzipSync(compressedPartsBuffer(await small.endParts())).toString('utf8') === text).toBe(true);

    const large = compressedWriter(threadedGzipCodec(entry));
    const fill = async (): Promise<void> => {
      for (let i = 0; i < 12; i++) await large.write('x'.repeat(2_000_000));
      await large.endParts();
    };
    await expect(fill()).rejects.toThrow('slab compressed on a thread');
  });

  it('falls back to libuv\'s pool where its entry is not built, with the same bytes', async () => {
    const text = Array.from({ length: 300_000 }, (_, i) => `{"i":${i},"ip":"10.0.${i % 250}.${i % 7}"}`).join('\n');
    const parts = async (codec: SlabCodec): Promise<Buffer> => {
      const w = compressedWriter(codec);
      for (let at = 0; at < text.length; at += 1_000_000) await w.write(text.slice(at, at + 1_000_000));
      return compressedPartsBuffer(await w.endParts());
    };
    const fallback = await parts(threadedGzipCodec(join(tmpdir(), 'no-such-dir', 'gzip-slab-worker.js')));
    expect(fallback.equals(await parts(GZIP_CODEC))).toBe(true);
    expect(gunzipSync(fallback).toString('utf8') === text).toBe(true);
  });

  it('is closed once the writer ends, also when a slab failed', async () => {
    let closed = 0;
    const codec = (fail: boolean): SlabCodec => ({
      encoding: 'gzip+json',
      compress: (input, done, last) => (fail ? setImmediate(() => done(new Error('codec failed'))) : GZIP_CODEC.compress(input, done, last)),
      close: async () => {
        closed += 1;
      },
    });
    const ok = compressedWriter(codec(false));
    await ok.write('{"a":1}');
    await ok.endParts();
    expect(closed).toBe(1);
    const bad = compressedWriter(codec(true));
    await bad.write('{"a":1}');
    await expect(bad.endParts()).rejects.toThrow('codec failed');
    expect(closed).toBeGreaterThanOrEqual(2);
  });
});
