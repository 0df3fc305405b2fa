/**
 * `npm run bench:cli`: how long the offline commands take as a user runs them, process start to exit:
 * `fleet-audit --version`, `fleet-audit checks` and `fleet-audit scan --fleet examples/fleets/sample --format json`
 * (the bundled sample fleet: 4 regions, 94 files, 32 of them YAML). Each command runs `--runs N` times (default 5)
 * one after the other, through bin/fleet-audit.js on the built CLI (dist/), with its output discarded.
 *
 * What it shows: the start-up cost of an offline command is module loading, and an offline command must not load
 * what only a live crawl needs (the Alibaba Cloud SDKs and client-node: libs/collectors/src/live/sdk-modules.ts;
 * test/cli/startup-modules.e2e-spec.ts holds the rule). Prints one line per command and, last, one JSON object:
 * `{"bench":"cli","runs":N,"commands":[{"command":"...","wallMs":{"min":n,"median":n,"max":n},"cpuMs":{"median":n},"exitCode":n}],"loadAvg1m":x}`.
 * `cpuMs` is the child's user + system time (/proc/self/stat, waited-for children), which stays meaningful when the
 * machine is busy (`loadAvg1m`).
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { intFlag, loadAvg1m, median, procCpuMs } from './bench-support';
import { packageRoot } from '../apps/cli/src/package-root.util';

/** The project root, found from this file in dist/ or any other output root of `nest build cli`. */
const ROOT = packageRoot();
const BIN = join(ROOT, 'bin', 'fleet-audit.js');
const SAMPLE = join(ROOT, 'examples', 'fleets', 'sample');

/** The commands timed, as argv after `fleet-audit`. */
const COMMANDS: string[][] = [
  ['--version'],
  ['checks'],
  ['scan', '--fleet', SAMPLE, '--format', 'json'],
];

function main(): number {
  const runs = intFlag('runs', 5);
  const results = [];
  for (const args of COMMANDS) {
    const wall: number[] = [];
    const cpu: number[] = [];
    let exitCode = 0;
    for (let i = 0; i < runs; i++) {
      const cpu0 = procCpuMs('self', 'children') ?? 0;
      const t0 = performance.now();
      const r = spawnSync(process.execPath, [BIN, ...args], { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, NO_COLOR: '1' } });
      wall.push(Math.round(performance.now() - t0));
      cpu.push((procCpuMs('self', 'children') ?? 0) - cpu0);
      if (r.status === null || r.status > 1) {
        process.stderr.write(`bench:cli: fleet-audit ${args.join(' ')} failed (${r.status ?? r.signal}): ${r.stderr.toString().trim()}\n`);
        return 1;
      }
      exitCode = r.status;
    }
    const command = `fleet-audit ${args.map((a) => (a === SAMPLE ? 'examples/fleets/sample' : a)).join(' ')}`;
    const row = { command, wallMs: { min: Math.min(...wall), median: median(wall), max: Math.max(...wall) }, cpuMs: { median: median(cpu) }, exitCode };
    console.log(`${command}: median ${row.wallMs.median} ms wall (min ${row.wallMs.min}, max ${row.wallMs.max}), ${row.cpuMs.median} ms CPU, exit ${exitCode}`);
    results.push(row);
  }
  console.log(JSON.stringify({ bench: 'cli', runs, commands: results, loadAvg1m: loadAvg1m() }));
  return 0;
}

process.exitCode = main();
