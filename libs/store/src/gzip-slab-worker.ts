/**
 * Thread entry of the snapshot's gzip (`threadedGzipCodec`, gzip-json.util.ts): piscina loads this module once per
 * thread and calls its default export once per slab of text. The slab is shared memory (a SharedArrayBuffer the
 * writer fills and reuses), so nothing is copied on the way in; the compressed bytes go back as a one-byte string
 * (`latin1`, one character per byte), copied by the structured clone into the caller's heap. Built by `nest build cli`
 * next to gzip-json.util.js.
 *
 * Why a thread rather than libuv's pool: zlib on libuv's pool hands back every compressed member as new Buffers in the
 * caller's isolate (memory outside V8's heap), and V8 answers each 64 MB of that with a full marking of the caller's
 * heap, which holds the whole scan while it is stored (bench fleet at 5,000 clusters: 6 markings of a 4.9 GB heap
 * during the snapshot's encoding). Here those Buffers are this thread's, whose heap is a few MB.
 */
import { gzipSync } from 'node:zlib';

/** One slab to compress. */
export interface GzipSlabTask {
  /** The writer's slab (shared memory, not changed here). */
  slab: SharedArrayBuffer;
  /** Where the text starts in the slab (byte offset). */
  offset: number;
  /** Bytes of text (count). */
  length: number;
  /** zlib's compression level (0-9). */
  level: number;
}

/**
 * Compresses one slab into one gzip member (RFC 1952), synchronously on this thread (piscina's task handler).
 * @returns the member's bytes as a `latin1` string
 * @throws zlib's error (the pool rejects the task with it)
 */
export default function gzipSlab(task: GzipSlabTask): string {
  return gzipSync(new Uint8Array(task.slab, task.offset, task.length), { level: task.level }).toString('latin1');
}
