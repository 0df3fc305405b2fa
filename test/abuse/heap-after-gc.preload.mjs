/**
 * Test-only preload of the API process of graphql-flood.e2e-spec.ts (`node --expose-gc --import <this>`): a heap
 * reading taken right after a full garbage collection, on request over the IPC channel the spec opens (spawn's
 * `'ipc'` stdio). On the message `{ heapAfterGc: <n> }` it runs `gc()` (a full, mark-compact collection of both
 * generations, synchronous) and answers `{ heapAfterGc: <n>, heapUsed }` with `process.memoryUsage().heapUsed`
 * (bytes; what prom-client reports as `nodejs_heap_size_used_bytes`) read right after it: what the heap retains,
 * without the not-yet-collected garbage a reading at an arbitrary moment includes.
 *
 * Nothing of it is in the application: the API is the built CLI unchanged, and only a process started with this
 * preload and an IPC channel (a test's child) answers. In a worker thread it does nothing.
 */
import { isMainThread } from 'node:worker_threads';

if (isMainThread && typeof process.send === 'function' && typeof globalThis.gc === 'function') {
  const gc = globalThis.gc;
  process.on('message', (m) => {
    if (m === null || typeof m !== 'object' || !('heapAfterGc' in m)) return;
    gc();
    process.send({ heapAfterGc: m.heapAfterGc, heapUsed: process.memoryUsage().heapUsed });
  });
}
