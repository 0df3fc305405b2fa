/**
 * The machine probe the benches print beside their figures (bench:analyze, bench:admission): what this VM gives at the
 * hour of a run, so that figures of different days can be compared (docs/benchmarks.md). Not part of the product;
 * compiled with the benches by `nest build cli`. Run as a child with `--probe`, it sends its probe to the parent.
 */
import { fork } from 'node:child_process';

/**
 * What this machine gives right now, so that figures taken on different days or machines can be compared: the
 * seconds to touch 1 GiB of fresh memory (page faults: a VM whose host backs guest memory lazily can take seconds
 * per GiB, and the 5,000-cluster analysis touches about 1.5 GiB), the milliseconds of a fixed CPU-bound loop, and
 * the nanoseconds of one dependent random read from memory far larger than the caches (`memoryLatencyNs`): the
 * analysis walks a 1.9 GiB snapshot of scattered objects, and on the project's VMs the same code's 5,000-cluster
 * figure moved 16.8-20.6 s within an hour with the first two figures unchanged.
 */
export interface MachineProbe {
  firstTouchSecondsPerGiB: number;
  cpuLoopMs: number;
  memoryLatencyNs: number;
}

/** Runs in a child of its own (fresh memory): `MachineProbe`. */
export function probeMachine(): MachineProbe {
  const t0 = process.hrtime.bigint();
  const b = Buffer.alloc(1 << 30);
  b.fill(1);
  const firstTouchSecondsPerGiB = Number(process.hrtime.bigint() - t0) / 1e9;
  // The best of 12 runs of a 10M-step loop, times 10: one long loop varied 4x with where V8 entered optimised code.
  let best = Infinity;
  let sink = 0;
  for (let k = 0; k < 12; k++) {
    const t1 = process.hrtime.bigint();
    sink ^= cpuLoop(10_000_000);
    best = Math.min(best, Number(process.hrtime.bigint() - t1) / 1e6);
  }
  return { firstTouchSecondsPerGiB, cpuLoopMs: best * 10 + (sink === 0.5 ? 1 : 0), memoryLatencyNs: memoryLatency() };
}

/** Entries of the pointer chase (`memoryLatency`): 32M 4-byte slots, 128 MiB, far beyond any cache. */
const CHASE_SLOTS = 1 << 25;

/**
 * Nanoseconds per step of a pointer chase through one random cycle over `CHASE_SLOTS` slots (Sattolo's shuffle):
 * each read depends on the one before, so the time is the memory latency, cache and TLB misses included. The best
 * of 3 runs of 2M steps.
 */
function memoryLatency(): number {
  const next = new Int32Array(CHASE_SLOTS);
  for (let i = 0; i < CHASE_SLOTS; i++) next[i] = i;
  let seed = 42;
  for (let i = CHASE_SLOTS - 1; i > 0; i--) {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    const j = seed % i;
    const t = next[i]!;
    next[i] = next[j]!;
    next[j] = t;
  }
  let best = Infinity;
  let at = 0;
  for (let k = 0; k < 3; k++) {
    const t0 = process.hrtime.bigint();
    for (let s = 0; s < 2_000_000; s++) at = next[at]!;
    best = Math.min(best, Number(process.hrtime.bigint() - t0) / 2_000_000);
  }
  return best + (at === -1 ? 1 : 0);
}

/** A fixed integer-mixing loop of `n` steps (the CPU half of `MachineProbe`); returns its result so it is not dropped. */
function cpuLoop(n: number): number {
  let x = 0;
  for (let i = 0; i < n; i++) x = (Math.imul(x, 31) + i) | 0;
  return x;
}

/** `probeMachine` in a child process of its own (fresh memory, its own heap): this module run with `--probe`. */
export async function runProbe(): Promise<MachineProbe> {
  return new Promise((resolve, reject) => {
    const child = fork(__filename, ['--probe']);
    child.once('message', (m) => resolve(m as MachineProbe));
    child.once('exit', (code) => (code === 0 ? undefined : reject(new Error(`probe child exited with ${code}`))));
  });
}

/** A probe's figures, rounded, for the JSON line. */
export function probeJson(p: MachineProbe): MachineProbe {
  return {
    firstTouchSecondsPerGiB: Number(p.firstTouchSecondsPerGiB.toFixed(3)),
    cpuLoopMs: Number(p.cpuLoopMs.toFixed(1)),
    memoryLatencyNs: Number(p.memoryLatencyNs.toFixed(1)),
  };
}

if (process.argv.includes('--probe') && require.main === module) process.send?.(probeMachine());
