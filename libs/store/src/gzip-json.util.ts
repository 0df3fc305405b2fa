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
  return entries.sort(([a], [b]) => jsonbKeyOrder(a, b));
}

/** jsonb's order of two object keys: shorter first, equal lengths bytewise (keys here are ASCII). */
function jsonbKeyOrder(a: string, b: string): number {
  return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
}

/**
 * JSON.stringify replacer of the jsonb-compatible form: plain objects re-keyed in jsonb order, strings made storable.
 * Called for every value of the document, so it checks the keys' order without building entry pairs and copies
 * only an object whose keys are out of order (API objects mostly are: `ServerId`, `Port`, `Weight`).
 */
function jsonbReplacer(_key: string, v: unknown): unknown {
  if (typeof v === 'string') return sanitizeText(v);
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return v;
  const keys = Object.keys(v);
  let sorted = true;
  for (let i = 1; i < keys.length && sorted; i++) sorted = jsonbKeyOrder(keys[i - 1]!, keys[i]!) < 0;
  if (sorted) return v;
  const out: Record<string, unknown> = {};
  for (const k of keys.sort(jsonbKeyOrder)) out[k] = (v as Record<string, unknown>)[k];
  return out;
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
  const gzip = gzipWriter();
  for (const text of jsonPieces(value, options)) await gzip.write(text);
  return gzip.end();
}

/** Whether JSON.stringify leaves `v` out of an object (and writes `null` for it in an array). */
function omitted(v: unknown): boolean {
  return v === undefined || typeof v === 'function' || typeof v === 'symbol';
}

/**
 * The text of `JSON.stringify(value)` in pieces of about HIGH_WATER_BYTES, walked synchronously: a generator
 * hands each piece to the gzip stream, which is the only place that waits. (An `await` per value of the walk, as
 * before, made writing a 209 MiB region slice take about three times as long as stringifying and compressing it.)
 */
function* jsonPieces(value: unknown, options: GzipJsonOptions): Generator<string> {
  const order = options.jsonbCompatible ? jsonbOrder : (entries: [string, unknown][]) => entries;
  const replacer = options.jsonbCompatible ? jsonbReplacer : undefined;
  let pending = '';
  /** Whether `v` is a container walked value by value (near the root) rather than stringified whole. */
  const walked = (v: unknown, depth: number): boolean => depth < WALK_DEPTH && v !== null && typeof v === 'object';
  /** One value of a container at `depth`: walked or stringified whole, then a piece handed on once enough is pending. */
  function* member(item: unknown, depth: number): Generator<string> {
    if (walked(item, depth)) yield* walk(item as object, depth);
    else pending += JSON.stringify(item, replacer) ?? 'null';
    if (pending.length >= HIGH_WATER_BYTES) {
      yield pending;
      pending = '';
    }
  }
  function* walk(v: object, depth: number): Generator<string> {
    if (Array.isArray(v)) {
      pending += '[';
      for (let i = 0; i < v.length; i++) {
        if (i > 0) pending += ',';
        yield* member(omitted(v[i]) ? null : v[i], depth + 1);
      }
      pending += ']';
      return;
    }
    pending += '{';
    let first = true;
    for (const [k, item] of order(Object.entries(v as Record<string, unknown>))) {
      if (omitted(item)) continue;
      pending += `${first ? '' : ','}${JSON.stringify(k)}:`;
      first = false;
      yield* member(item, depth + 1);
    }
    pending += '}';
  }
  yield* member(value, 0);
  if (pending !== '') yield pending;
}

/** A gzip stream that text is written into piece by piece (`gzipWriter`). */
export interface GzipWriter {
  /** Compress `text` (UTF-8), waiting while more than `PENDING_BYTES` of earlier text is still to be compressed. */
  write(text: string): Promise<void>;
  /** End the stream: the compressed bytes and how many bytes of text went in. @throws the stream's error */
  end(): Promise<{ gz: Buffer; rawBytes: number }>;
}

/**
 * Uncompressed bytes the writer may leave queued before `write` waits (bytes): enough for zlib, on libuv's thread
 * pool, to compress the previous pieces while the caller serialises the next one, instead of the two taking turns.
 */
const PENDING_BYTES = 32 * 1024 * 1024;

/**
 * zlib's output chunk (bytes). Each step on the thread pool stops when this much output is ready and waits for the
 * event loop: with Node's 16 KiB default a step covered about 160 KB of JSON, so compression stalled whenever the
 * main thread was busy serialising; 1 MiB lets one step cover about 10 MB.
 */
const GZIP_CHUNK_BYTES = 1024 * 1024;

/** Size of the input slabs text is encoded into (bytes); a longer piece gets a Buffer of its own. */
const SLAB_BYTES = 4 * 1024 * 1024;

/**
 * A gzip stream collecting its output in memory, written piece by piece with back-pressure: a `write` returns at
 * once while at most `PENDING_BYTES` wait to be compressed, so serialising and compressing overlap. Text is encoded
 * into a few reused 4 MiB slabs, each returned when zlib has consumed it: a new Buffer per piece (450 MB of them for
 * a 1,000-cluster snapshot) counted as external memory, and V8 answered its growth with full collections of the
 * whole heap (the snapshot's included), a third of the time of storing a snapshot.
 */
export function gzipWriter(): GzipWriter {
  const gzip = createGzip({ chunkSize: GZIP_CHUNK_BYTES });
  const out: Buffer[] = [];
  let waiting: (() => void) | undefined;
  const wake = (): void => {
    if (waiting && gzip.writableLength <= PENDING_BYTES) {
      const w = waiting;
      waiting = undefined;
      w();
    }
  };
  gzip.on('data', (b: Buffer) => {
    out.push(b);
    wake();
  });
  gzip.on('drain', wake);
  let failed: unknown;
  const ended = new Promise<void>((resolve, reject) => {
    gzip.once('end', resolve);
    gzip.once('error', (e) => {
      failed = e;
      waiting?.();
      reject(e);
    });
  });
  // Observed here so that an error while nobody awaits `end` yet is not an unhandled rejection; `end` rethrows it.
  ended.catch(() => undefined);
  const free: Buffer[] = [];
  let slab: Buffer | undefined;
  let used = 0;
  /** Hand the filled part of the current slab to zlib; the slab is reused once zlib has consumed it. */
  const flush = (): void => {
    if (!slab || used === 0) return;
    const full = slab;
    gzip.write(full.subarray(0, used), () => free.push(full));
    slab = undefined;
    used = 0;
  };
  let rawBytes = 0;
  return {
    async write(text: string): Promise<void> {
      if (failed !== undefined) throw failed;
      const bytes = Buffer.byteLength(text, 'utf8');
      rawBytes += bytes;
      if (bytes > SLAB_BYTES) {
        flush();
        gzip.write(Buffer.from(text, 'utf8'));
      } else {
        if (slab && used + bytes > SLAB_BYTES) flush();
        slab ??= free.pop() ?? Buffer.allocUnsafe(SLAB_BYTES);
        used += slab.write(text, used, 'utf8');
      }
      if (gzip.writableLength > PENDING_BYTES) await new Promise<void>((resolve) => (waiting = resolve));
      if (failed !== undefined) throw failed;
    },
    async end(): Promise<{ gz: Buffer; rawBytes: number }> {
      flush();
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
