/**
 * Gzip a JSON document without building it as one string: a large fleet snapshot serialised by `JSON.stringify`
 * is a string of hundreds of MB, plus its Buffer copy, at once in memory. `gzipJson` writes the same bytes piece
 * by piece into a gzip stream (objects and arrays near the root are walked, deeper values stringified one at a
 * time), so what is held at once is one piece and the compressed output.
 */
import { createGzip, gunzipSync } from 'node:zlib';
import { sanitizeText } from '@app/domain';

/** Options of {@link gzipJson}. */
export interface GzipJsonOptions {
  /**
   * Write what a `jsonb` column would give back: object keys in jsonb's order (shorter keys first, then bytewise)
   * and every string value made storable (`sanitizeText`: NUL and lone surrogates replaced), as `storableJson`
   * did before the value went into jsonb. A reader then sees exactly what it read from jsonb (scan_targets slices,
   * migration 1799200000000).
   */
  jsonbCompatible?: boolean;
}

/** Object entries in jsonb's key order: shorter keys first, equal lengths bytewise (keys here are ASCII). */
function jsonbOrder(entries: [string, unknown][]): [string, unknown][] {
  return entries.sort(([a], [b]) => a.length - b.length || (a < b ? -1 : a > b ? 1 : 0));
}

/** JSON.stringify replacer of the jsonb-compatible form: plain objects re-keyed in jsonb order, strings made storable. */
function jsonbReplacer(_key: string, v: unknown): unknown {
  if (typeof v === 'string') return sanitizeText(v);
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return v;
  const entries = Object.entries(v as Record<string, unknown>);
  let sorted = true;
  for (let i = 1; i < entries.length && sorted; i++) {
    const a = entries[i - 1]![0];
    const b = entries[i]![0];
    sorted = a.length < b.length || (a.length === b.length && a < b);
  }
  return sorted ? v : Object.fromEntries(jsonbOrder(entries));
}

/** Depth below which objects and arrays are walked; deeper values are stringified whole (one CLB, one cluster). */
const WALK_DEPTH = 6;

/** Pieces written to the stream before waiting for it to drain (bounds the pending input). */
const HIGH_WATER_BYTES = 4 * 1024 * 1024;

/**
 * The gzip of `JSON.stringify(value)`, byte for byte the same document (keys in order, `undefined` and functions
 * left out of objects and `null` in arrays, as JSON.stringify does), written in pieces.
 * @param value plain JSON data (no `toJSON`, no cycles)
 * @returns the gzip-compressed UTF-8 JSON and the size of the JSON in bytes
 */
export async function gzipJson(value: unknown, options: GzipJsonOptions = {}): Promise<{ gz: Buffer; rawBytes: number }> {
  const order = options.jsonbCompatible ? jsonbOrder : (entries: [string, unknown][]) => entries;
  const replacer = options.jsonbCompatible ? jsonbReplacer : undefined;
  const gzip = gzipWriter();
  let pending = '';
  const flush = async (): Promise<void> => {
    if (pending === '') return;
    const text = pending;
    pending = '';
    await gzip.write(text);
  };
  const emit = async (s: string): Promise<void> => {
    pending += s;
    if (pending.length >= HIGH_WATER_BYTES) await flush();
  };
  const walk = async (v: unknown, depth: number): Promise<void> => {
    if (depth >= WALK_DEPTH || v === null || typeof v !== 'object') {
      await emit(JSON.stringify(v, replacer) ?? 'null');
      return;
    }
    if (Array.isArray(v)) {
      await emit('[');
      for (let i = 0; i < v.length; i++) {
        if (i > 0) await emit(',');
        const item: unknown = v[i];
        await walk(item === undefined || typeof item === 'function' || typeof item === 'symbol' ? null : item, depth + 1);
      }
      await emit(']');
      return;
    }
    await emit('{');
    let first = true;
    for (const [k, item] of order(Object.entries(v as Record<string, unknown>))) {
      if (item === undefined || typeof item === 'function' || typeof item === 'symbol') continue;
      await emit(`${first ? '' : ','}${JSON.stringify(k)}:`);
      first = false;
      await walk(item, depth + 1);
    }
    await emit('}');
  };
  await walk(value, 0);
  await flush();
  return gzip.end();
}

/** A gzip stream that text is written into piece by piece (`gzipWriter`). */
export interface GzipWriter {
  /** Compress `text` (UTF-8), waiting for the stream to drain when its buffer is full. */
  write(text: string): Promise<void>;
  /** End the stream: the compressed bytes and how many bytes of text went in. @throws the stream's error */
  end(): Promise<{ gz: Buffer; rawBytes: number }>;
}

/** A gzip stream collecting its output in memory, written piece by piece with back-pressure. */
export function gzipWriter(): GzipWriter {
  const gzip = createGzip();
  const out: Buffer[] = [];
  gzip.on('data', (b: Buffer) => out.push(b));
  const ended = new Promise<void>((resolve, reject) => {
    gzip.once('end', resolve);
    gzip.once('error', reject);
  });
  let rawBytes = 0;
  return {
    async write(text: string): Promise<void> {
      const chunk = Buffer.from(text, 'utf8');
      rawBytes += chunk.length;
      if (!gzip.write(chunk)) await new Promise<void>((resolve) => gzip.once('drain', resolve));
    },
    async end(): Promise<{ gz: Buffer; rawBytes: number }> {
      gzip.end();
      await ended;
      return { gz: Buffer.concat(out), rawBytes };
    },
  };
}

/**
 * The value of a gzip-compressed JSON document (what `gzipJson` wrote).
 * @throws SyntaxError when the bytes are not JSON once decompressed; zlib's error when they are not gzip
 */
export function gunzipJson<T = unknown>(gz: Buffer): T {
  return JSON.parse(gunzipSync(gz).toString('utf8')) as T;
}
