/**
 * Gzip a JSON document without building it as one string: a large fleet snapshot serialised by `JSON.stringify`
 * is a string of hundreds of MB, plus its Buffer copy, at once in memory. `gzipJson` writes the same bytes piece
 * by piece into a gzip stream (objects and arrays near the root are walked, deeper values stringified one at a
 * time), so what is held at once is one piece and the compressed output.
 */
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { gunzipSync, gzip } from 'node:zlib';
import type * as PiscinaModule from 'piscina';
import { builtEntryPath } from '@app/config';
import { sanitizeText } from '@app/domain';
import type { GzipSlabTask } from './gzip-slab-worker';

/**
 * piscina, loaded when a writer first compresses on a thread, not when this module is imported: an offline scan
 * stores nothing and never loads it.
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const piscina = (): typeof PiscinaModule => require('piscina') as typeof PiscinaModule;

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

/** Characters of text gathered into one piece before it is written (a piece fits a slab of `gzipWriter` at 3 bytes per character). */
const HIGH_WATER_BYTES = 2 * 1024 * 1024;

/**
 * The gzip of `JSON.stringify(value)`, byte for byte the same document (keys in order, `undefined` and functions
 * left out of objects and `null` in arrays, as JSON.stringify does), written in pieces.
 * @param value plain JSON data (no `toJSON`, no cycles)
 * @returns the gzip-compressed UTF-8 JSON and the size of the JSON in bytes
 */
export async function gzipJson(value: unknown, options: GzipJsonOptions = {}): Promise<{ gz: Buffer; rawBytes: number }> {
  const writer = gzipWriter();
  for (const text of jsonPieces(value, options)) await writer.write(text);
  const parts = await writer.endParts();
  return { gz: compressedPartsBuffer(parts), rawBytes: parts.rawBytes };
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

/**
 * How compressed text is encoded: the values `scan_snapshots.encoding` may hold (migration 1796100000000).
 * `gzip+json`: a series of gzip members (RFC 1952) of UTF-8 text.
 */
export type CompressedEncoding = 'gzip+json';

/** Text compressed piece by piece into slabs (`compressedWriter`). */
export interface CompressedWriter {
  /**
   * Compress `text` (UTF-8). Synchronous (undefined) when it fits in the slab being filled, the common case for a
   * text of a few KB: a caller writing a million of them awaits only the returned promises. Otherwise a promise that
   * waits while `IN_FLIGHT` earlier slabs are still being compressed.
   * @throws the codec's error (thrown, or the promise rejects)
   */
  write(text: string): Promise<void> | undefined;
  /**
   * End the stream: the compressed bytes as the `latin1` strings they are kept in (`CompressedParts`), for a caller
   * that sends them on in pieces without building one Buffer of them. @throws the codec's error
   */
  endParts(): Promise<CompressedParts>;
}

/**
 * Compressed bytes as strings of one `latin1` character per byte (in order), how they are encoded, their total
 * size and the size of the text compressed.
 */
export interface CompressedParts {
  encoding: CompressedEncoding;
  parts: readonly string[];
  /** Total compressed bytes (the parts' lengths summed). */
  bytes: number;
  /** Bytes of text that went in. */
  rawBytes: number;
}

/** The bytes of `CompressedParts` as one Buffer. */
export function compressedPartsBuffer({ parts, bytes }: Pick<CompressedParts, 'parts' | 'bytes'>): Buffer {
  const out = Buffer.allocUnsafe(bytes);
  let at = 0;
  for (const p of parts) at += out.write(p, at, 'latin1');
  return out;
}

/**
 * How `compressedWriter` compresses its slabs, each independently of the others (so they compress at once on
 * libuv's thread pool), and the encoding the concatenated outputs are in.
 */
export interface SlabCodec {
  encoding: CompressedEncoding;
  /**
   * Compress `input` off the main thread; `done` gets the slab's bytes (`latin1`), or the error. `input` is reused
   * once `done` has run, not before.
   * @param last whether this is the writer's last slab (written by `endParts`): a text of one slab is compressed
   *   without starting a thread
   */
  compress(input: Buffer, done: (err: Error | null, out?: string) => void, last: boolean): void;
  /** Release what the codec started (its threads); the writer calls it once it compressed its last slab. */
  close?(): Promise<void>;
}

/**
 * zlib's compression level. Level 1 compresses the snapshot's JSON about twice as fast as the default (6) for about
 * 10 % more bytes (bench fleet: 276 against 152 MiB/s, 1.85 against 1.68 MiB per 17.7 MiB): the snapshot of every
 * scan is written once and read rarely (forecasts, admission), so the store's CPU matters more than its size.
 */
const GZIP_LEVEL = 1;

/** Size of the input slabs text is encoded into (bytes); each becomes one gzip member. */
const SLAB_BYTES = 8 * 1024 * 1024;

/** Most characters written into a slab at once: a UTF-16 unit is at most 3 bytes of UTF-8 (a surrogate pair, two units, is 4). */
const PIECE_CHARS = Math.floor(SLAB_BYTES / 3);

/**
 * A slab of `SLAB_BYTES` in shared memory: a codec compressing on a thread (`threadedGzipCodec`) reads it there
 * without a copy; zlib on libuv's pool reads it as any Buffer.
 */
function newSlab(): Buffer {
  return Buffer.from(new SharedArrayBuffer(SLAB_BYTES));
}

/** Whether a UTF-16 code unit is the first half of a surrogate pair. */
function isHighSurrogate(unit: number): boolean {
  return unit >= 0xd800 && unit <= 0xdbff;
}

/**
 * Slabs compressed at once on libuv's thread pool (4 threads by default): the members are independent, so every
 * core compresses while the caller serialises the next slab, and at most this many slabs are held.
 */
const IN_FLIGHT = 4;

/**
 * zlib's output chunk (bytes). Each step on the thread pool stops when this much output is ready and waits for the
 * event loop: with Node's 16 KiB default a step covered about 160 KB of JSON, so compression stalled whenever the
 * main thread was busy serialising; 1 MiB covers a whole member in one or two steps.
 */
const GZIP_CHUNK_BYTES = 1024 * 1024;

/**
 * Gzip, one gzip member per slab (RFC 1952 section 2.2: a gzip file is a series of members; zlib's gunzip, and so
 * `gunzipSync`, reads them all as one stream of text), compressed with `zlib.gzip` on libuv's thread pool: for a
 * text of a slab or two (larger ones: `threadedGzipCodec`).
 */
export const GZIP_CODEC: SlabCodec = {
  encoding: 'gzip+json',
  compress(input, done) {
    gzip(input, { level: GZIP_LEVEL, chunkSize: GZIP_CHUNK_BYTES }, (err, out) => done(err, err ? undefined : out.toString('latin1')));
  },
};

/**
 * The built `gzip-slab-worker.js`: next to this module when it runs compiled; from TypeScript source (vitest), under
 * FLEET_AUDIT_DIST (the build bin/fleet-audit.js runs), else the repository's `dist/apps/cli` (`builtEntryPath`).
 */
export function defaultGzipSlabEntry(): string {
  return builtEntryPath(__filename, join('libs', 'store', 'src'), 'gzip-slab-worker.js');
}

/** Threads a writer compresses on: the cores left beside the main thread, at least one, at most one per slab in flight but one. */
function gzipThreads(): number {
  return Math.max(1, Math.min(IN_FLIGHT - 1, availableParallelism() - 1));
}

/**
 * Gzip as `GZIP_CODEC` (the same bytes: one member per slab, level `GZIP_LEVEL`), compressed on worker threads of a
 * pool of the writer's own (piscina, entry `gzip-slab-worker.js`) reading the writer's slabs as shared memory, so the
 * compressed members reach the caller as strings on its heap and zlib's Buffers stay in the threads' isolates. On
 * libuv's pool those Buffers, hundreds of MB for a 5,000-cluster snapshot, counted as the caller's memory outside
 * V8's heap, and V8 marked the caller's whole heap (the scan it is storing) for each 64 MB of them (bench fleet,
 * 3,000 clusters: the snapshot's encoding 23.1-23.7 CPU s on libuv's pool against 12.8-14.8 on a thread).
 *
 * The pool starts at the first slab that is not the last (a text under one slab, a test's or the sample fleet's
 * snapshot, never starts a thread) and is destroyed by `close`. Where the entry is not built (TypeScript source
 * without a build) or a slab is not shared memory, slabs go to libuv's pool as `GZIP_CODEC` compresses them.
 * @param entry the built thread entry (default `defaultGzipSlabEntry()`)
 */
export function threadedGzipCodec(entry: string = defaultGzipSlabEntry()): SlabCodec {
  const built = existsSync(entry);
  let pool: PiscinaModule.Piscina<GzipSlabTask, string> | undefined;
  return {
    encoding: 'gzip+json',
    compress(input, done, last) {
      const slab = input.buffer;
      if (!built || (pool === undefined && last) || !(slab instanceof SharedArrayBuffer)) {
        GZIP_CODEC.compress(input, done, last);
        return;
      }
      if (pool === undefined) {
        const { Piscina } = piscina();
        pool = new Piscina<GzipSlabTask, string>({ filename: entry, minThreads: 0, maxThreads: gzipThreads(), idleTimeout: 1_000, recordTiming: false });
        // Piscina emits 'error' for a thread that fails while it runs no task (one running a slab rejects that slab):
        // nothing of the writer is lost then, and without a listener the event would throw.
        pool.on('error', () => undefined);
      }
      pool.run({ slab, offset: input.byteOffset, length: input.length, level: GZIP_LEVEL }).then(
        (out) => done(null, out),
        (e: unknown) => done(e instanceof Error ? e : new Error(String(e))),
      );
    },
    async close() {
      const running = pool;
      pool = undefined;
      await running?.destroy();
    },
  };
}

/** Gzip of text written piece by piece (`compressedWriter` with `threadedGzipCodec`). */
export function gzipWriter(): CompressedWriter {
  return compressedWriter(threadedGzipCodec());
}

/**
 * Text written piece by piece, compressed by `codec` slab by slab. Text is encoded into 8 MiB slabs
 * (`Buffer.write`, no byte count computed beforehand; a long text in slab-sized slices) and each full slab is
 * compressed alone off the main thread (`codec`), up to `IN_FLIGHT` at once, so compressing a large snapshot uses
 * every core instead of one stream fed by the main thread. Slabs are shared memory (`newSlab`) and are reused once
 * compressed: a new Buffer per piece counted as external memory, and V8 answered its growth with full collections
 * of the whole heap (the snapshot's included). `codec.close` runs once the last slab is compressed (or failed). No text at all is still one (empty) slab: a gzip file has at least one member.
 */
export function compressedWriter(codec: SlabCodec): CompressedWriter {
  // Compressed slabs kept as one-byte strings (latin1: one character per byte, no bytes changed) until `end`:
  // on V8's heap they count against the old generation's limit, which grows with the heap, whereas Buffers held
  // this long are external memory, and V8 starts marking its whole heap each time that has grown by 64 MB (a
  // 5,000-cluster snapshot compresses to about 230 MB, stored while the scan's gigabytes of objects are alive).
  const members: (string | undefined)[] = [];
  const free: Buffer[] = [];
  let inFlight = 0;
  let failed: unknown;
  let waiting: (() => void) | undefined;
  const wake = (): void => {
    const w = waiting;
    waiting = undefined;
    w?.();
  };
  /** Compress `input` as member number `members.length`; `release` runs once zlib no longer reads `input`. */
  const compress = (input: Buffer, last: boolean, release?: () => void): void => {
    const i = members.push(undefined) - 1;
    inFlight += 1;
    codec.compress(input, (err, out) => {
      inFlight -= 1;
      release?.();
      if (err) {
        // The writer is done for: its codec's threads are not kept until the caller's `endParts` (it may never call it).
        if (failed === undefined) void codec.close?.().catch(() => undefined);
        failed ??= err;
      } else members[i] = out;
      wake();
    }, last);
  };
  let slab: Buffer | undefined;
  let used = 0;
  /** Hand the filled part of the current slab to zlib; the slab is reused once compressed. */
  const flush = (last: boolean): void => {
    if (!slab || used === 0) return;
    const full = slab;
    compress(full.subarray(0, used), last, () => free.push(full));
    slab = undefined;
    used = 0;
  };
  /** Wait until fewer than `limit` members are being compressed; rethrow zlib's error. */
  const settle = async (limit: number): Promise<void> => {
    while (inFlight >= limit && failed === undefined) await new Promise<void>((resolve) => (waiting = resolve));
    if (failed !== undefined) throw failed;
  };
  let rawBytes = 0;
  const endParts = async (): Promise<CompressedParts> => {
    flush(true);
    if (members.length === 0) compress(Buffer.alloc(0), true);
    try {
      await settle(1);
    } finally {
      await codec.close?.();
    }
    const parts = members as string[];
    let bytes = 0;
    for (const m of parts) bytes += m.length;
    return { encoding: codec.encoding, parts, bytes, rawBytes };
  };
  /**
   * Write a text that does not fit in the slab being filled: a long text goes in slab-sized slices (a slice of a flat
   * string is not copied), never a Buffer of its own (`Buffer.from` of a multi-MB line counted its bytes, then copied
   * it); each full slab is handed to the codec, waiting while `IN_FLIGHT` are being compressed.
   */
  const writeSlices = async (text: string): Promise<void> => {
    for (let start = 0; start < text.length; ) {
      let end = Math.min(text.length, start + PIECE_CHARS);
      // A surrogate pair stays in one slice (each half alone would be written as U+FFFD).
      if (end < text.length && isHighSurrogate(text.charCodeAt(end - 1))) end -= 1;
      const piece = start === 0 && end === text.length ? text : text.slice(start, end);
      start = end;
      if (piece.length * 3 > SLAB_BYTES - used) flush(false);
      slab ??= free.pop() ?? newSlab();
      const n = slab.write(piece, used, 'utf8');
      used += n;
      rawBytes += n;
      await settle(IN_FLIGHT);
    }
  };
  return {
    write(text: string): Promise<void> | undefined {
      if (failed !== undefined) throw failed;
      if (slab && text.length * 3 <= SLAB_BYTES - used) {
        const n = slab.write(text, used, 'utf8');
        used += n;
        rawBytes += n;
        return undefined;
      }
      return writeSlices(text);
    },
    endParts,
  };
}

/**
 * The value of a gzip-compressed JSON document (what `gzipJson` wrote).
 * @throws SyntaxError when the bytes are not JSON once decompressed; zlib's error when they are not gzip
 */
export function gunzipJson<T = unknown>(gz: Buffer): T {
  return JSON.parse(gunzipSync(gz).toString('utf8')) as T;
}
