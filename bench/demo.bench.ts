/**
 * `npm run bench:demo`: time of `fleet-audit demo --once` as a user sees it, from process start to the
 * first findings on screen, with the phases the demo reports on stderr (simulator up, embedded
 * PostgreSQL starting / migrated, scan) and the findings table on stdout. Prints one JSON line:
 * `{"bench":"demo","phases":[{"phase":"...","ms":N}],"firstFindingsMs":N,"firstFindingsCpuMs":N,"exitMs":N,"exitCpuMs":N,"loadavg":[..],"targetMs":8000,"withinTarget":bool}`.
 *
 * Wall time depends on what else the machine runs (the 8 s target is for a quiet machine), so the
 * demo process's CPU time (user + system, every thread: the PGlite worker too) is printed beside
 * it, read from `/proc/<pid>/stat` when the findings appear and from `/proc/self/stat` (children)
 * at exit, with the 1-minute load average at start and end (`os.loadavg`; all 0 where unsupported).
 * `--fresh` measures a first run after install: no cached schema template and no compile cache
 * (a temporary XDG_CACHE_HOME / NODE_COMPILE_CACHE, removed afterwards).
 * Runs the built CLI (bin/fleet-audit.js -> dist), so `npm run bench:demo` builds first.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { procCpuMs } from './bench-support';
import { packageRoot } from '../apps/cli/src/package-root.util';

/** The project root, found from this file in dist/ or any other output root of `nest build cli`. */
const ROOT = packageRoot();
const BIN = join(ROOT, 'bin', 'fleet-audit.js');
/** The target: first findings on screen within 8 s. */
const TARGET_MS = 8_000;

async function main(): Promise<void> {
  const load0 = loadavg()[0];
  const children0 = procCpuMs('self', 'children') ?? 0;
  const t0 = performance.now();
  const ms = () => Math.round(performance.now() - t0);
  // --fresh: a first run after install (no cached schema template, no compile cache), in a temporary
  // cache directory so the user's own cache is left alone.
  const fresh = process.argv.includes('--fresh');
  const cacheHome = fresh ? mkdtempSync(join(tmpdir(), 'fleet-audit-bench-cache-')) : undefined;
  const env = { ...process.env, NO_COLOR: '1', ...(cacheHome ? { XDG_CACHE_HOME: cacheHome, NODE_COMPILE_CACHE: join(cacheHome, 'node-compile-cache') } : {}) };
  const child = spawn(process.execPath, [BIN, 'demo', '--once'], { stdio: ['ignore', 'pipe', 'pipe'], env });
  const phases: { phase: string; ms: number }[] = [];
  let firstFindingsMs: number | undefined;
  let firstFindingsCpuMs: number | undefined;
  let errBuf = '';
  child.stderr.on('data', (d: Buffer) => {
    errBuf += d.toString();
    let nl: number;
    while ((nl = errBuf.indexOf('\n')) >= 0) {
      const line = errBuf.slice(0, nl).trim();
      errBuf = errBuf.slice(nl + 1);
      const phase = /^(\w+):/.exec(line)?.[1];
      if (phase) phases.push({ phase: line.slice(0, 80), ms: ms() });
    }
  });
  child.stdout.on('data', (d: Buffer) => {
    if (firstFindingsMs === undefined && /Scan \S+ of fleet|┌/.test(d.toString())) {
      firstFindingsMs = ms();
      if (child.pid !== undefined) firstFindingsCpuMs = procCpuMs(child.pid, 'own');
    }
  });
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  const exitMs = ms();
  const children1 = procCpuMs('self', 'children');
  const exitCpuMs = children1 !== undefined ? children1 - children0 : null;
  const out = {
    bench: 'demo',
    node: process.version,
    phases,
    firstFindingsMs: firstFindingsMs ?? null,
    firstFindingsCpuMs: firstFindingsCpuMs ?? null,
    exitMs,
    exitCpuMs,
    exitCode: code,
    fresh,
    loadavg1m: [Number(load0.toFixed(2)), Number(loadavg()[0].toFixed(2))],
    targetMs: TARGET_MS,
    withinTarget: firstFindingsMs !== undefined && firstFindingsMs <= TARGET_MS,
  };
  if (cacheHome) rmSync(cacheHome, { recursive: true, force: true });
  process.stdout.write(`${JSON.stringify(out)}\n`);
  if (code !== 0) process.exitCode = 1;
}

void main();
