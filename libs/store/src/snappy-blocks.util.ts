/**
 * Snappy blocks: how the store keeps a scan's fleet snapshot (`snappy+json`). Snappy compresses the snapshot's JSON
 * about four times faster than gzip at level 1 and decompresses it faster too, for about 1.6 times the bytes
 * (bench fleet, 500 clusters: 226 MiB of JSON to 39 MiB against gzip's 24 MiB): a snapshot is written by every scan
 * and read rarely, so the CPU of the process that stores it matters more than its size.
 *
 * Framing (all integers unsigned 32-bit big-endian):
 *   `FASNAPB1`                                     8 bytes, the magic
 *   per block: length L (>= 1), CRC-32 of the L bytes, then L bytes of one snappy block ("raw" format, which starts
 *     with its uncompressed length; github.com/google/snappy format_description.txt)
 *   end: 0 (no block is empty: snappy writes at least that length), then the number of blocks
 * Blocks are compressed independently (one per 8 MiB slab of text), so they compress at once on libuv's thread
 * pool. The CRC (zlib's, over the compressed bytes: 40 MiB costs about 10 ms) and the end record make a corrupt or
 * truncated row an error instead of different text; snappy's own framing format checksums the uncompressed text
 * (CRC-32C per 64 KiB), which measured more than twice the CPU of this one.
 *
 * The codec is npm `snappy` (napi-rs, a prebuilt binary per platform in an optional dependency), loaded when first
 * used: a platform without its binary still stores gzip (`preferredSnapshotCodec`) and fails only reading a snappy row.
 */
import { crc32 } from 'node:zlib';
import type * as SnappyModule from 'snappy';
import { GZIP_CODEC, type SlabCodec } from './gzip-json.util';

/** First bytes of a snappy-blocks text. */
export const SNAPPY_BLOCKS_MAGIC = 'FASNAPB1';

/** The `snappy` module, null when its binary does not load on this platform (loaded once). */
let snappyModule: typeof SnappyModule | null | undefined;

/** The `snappy` module, or null when it cannot be loaded here (no prebuilt binary for this platform). */
function loadSnappy(): typeof SnappyModule | null {
  if (snappyModule === undefined) {
    try {
      // Loaded here, not imported: a platform without the binary (its `require` throws) still stores gzip.
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      snappyModule = require('snappy') as typeof SnappyModule;
    } catch {
      snappyModule = null;
    }
  }
  return snappyModule;
}

/** Whether this process can write and read snappy blocks (npm `snappy` has a binary for this platform). */
export function snappyAvailable(): boolean {
  return loadSnappy() !== null;
}

/** Four bytes of `n` big-endian as `latin1` characters. */
function u32(n: number): string {
  return String.fromCharCode((n >>> 24) & 0xff, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff);
}

/**
 * Snappy blocks as a `compressedWriter` codec: one block per slab, compressed by `snappy.compress` on libuv's
 * thread pool.
 * @throws Error when npm `snappy` has no binary for this platform (check `snappyAvailable` first)
 */
export function snappyCodec(): SlabCodec {
  const snappy = loadSnappy();
  if (!snappy) throw new Error('snappy is not available on this platform (npm snappy has no binary for it)');
  return {
    encoding: 'snappy+json',
    head: SNAPPY_BLOCKS_MAGIC,
    compress(input, done) {
      snappy.compress(input).then(
        (out) => done(null, u32(out.length) + u32(crc32(out)) + out.toString('latin1')),
        (err: unknown) => done(err instanceof Error ? err : new Error(String(err))),
      );
    },
    tail: (blocks) => u32(0) + u32(blocks),
  };
}

/**
 * How this process compresses a snapshot it stores (`scan_snapshots`, `scan_shards` parts): snappy blocks where npm
 * `snappy` loads (about a quarter of gzip's CPU), gzip level 1 elsewhere; every reader decodes both.
 */
export function preferredSnapshotCodec(): SlabCodec {
  return snappyAvailable() ? snappyCodec() : GZIP_CODEC;
}

/**
 * The text of a snappy-blocks text, block by block (each block's uncompressed bytes, in order).
 * @throws Error naming what is wrong when the bytes are not snappy blocks: no magic, a block cut short or failing its
 *   CRC, no end record or bytes after it, a block count that differs, a block snappy cannot decompress; or when
 *   npm `snappy` has no binary for this platform
 */
export function* unsnappyBlocks(bytes: Buffer): Generator<Buffer> {
  if (bytes.length < 8 || bytes.toString('latin1', 0, 8) !== SNAPPY_BLOCKS_MAGIC) throw new Error('not snappy blocks (no FASNAPB1 magic)');
  const snappy = loadSnappy();
  if (!snappy) throw new Error('snappy is not available on this platform (npm snappy has no binary for it)');
  let blocks = 0;
  for (let at = 8; ; ) {
    if (at + 8 > bytes.length) throw new Error(`snappy blocks cut short after block ${blocks} (no end record)`);
    const length = bytes.readUInt32BE(at);
    const check = bytes.readUInt32BE(at + 4);
    at += 8;
    if (length === 0) {
      if (check !== blocks) throw new Error(`snappy blocks: the end record counts ${check} blocks, ${blocks} were read`);
      if (at !== bytes.length) throw new Error(`snappy blocks: ${bytes.length - at} bytes after the end record`);
      return;
    }
    if (at + length > bytes.length) throw new Error(`snappy block ${blocks} cut short (${length} bytes announced, ${bytes.length - at} left)`);
    const block = bytes.subarray(at, at + length);
    if (crc32(block) !== check) throw new Error(`snappy block ${blocks} fails its CRC-32`);
    at += length;
    blocks += 1;
    yield snappy.uncompressSync(block, { asBuffer: true }) as Buffer;
  }
}
