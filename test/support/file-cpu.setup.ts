/**
 * Per-file CPU of the integration project, for finding what makes the suite slow (`TEST_FILE_CPU_LOG=FILE npm test`,
 * then `npm run test:cpu -- FILE`; vitest.config.mts adds this setup file only with that variable set).
 *
 * Each forked worker runs its files one after another, so the difference of its `/proc/self/stat` times between a
 * file's first and last hook is that file's CPU: `self` is the worker's (its threads included), `children` the child
 * processes it started and reaped meanwhile (CLI runs, worker processes, Chromium, private servers; a child still
 * running when the file ends is not counted). PostgreSQL's and Redis's own CPU are not a file's. Appends one JSON line
 * per file to the log: `{"file", "wall", "self", "children"}` (seconds). Linux only (reads /proc); elsewhere it
 * writes nothing.
 */
import { appendFileSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, expect } from 'vitest';

const LOG = process.env.TEST_FILE_CPU_LOG;

/** Seconds of CPU from /proc/self/stat: this process's (user + system) and its reaped children's, or undefined. */
function cpuSeconds(): { self: number; children: number } | undefined {
  let stat: string;
  try {
    stat = readFileSync('/proc/self/stat', 'utf8');
  } catch {
    return undefined;
  }
  // Fields after the command name (which may hold spaces, in parentheses): utime is field 14, cstime field 17.
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ').map(Number);
  const tick = 100; // USER_HZ: clock ticks per second on Linux
  return { self: (f[11]! + f[12]!) / tick, children: (f[13]! + f[14]!) / tick };
}

let start: { self: number; children: number; at: number } | undefined;

beforeAll(() => {
  const c = cpuSeconds();
  start = c && { ...c, at: performance.now() };
});

afterAll(() => {
  const c = cpuSeconds();
  if (!LOG || !c || !start) return;
  const round = (n: number) => Math.round(n * 100) / 100;
  appendFileSync(
    LOG,
    JSON.stringify({
      file: expect.getState().testPath,
      wall: round((performance.now() - start.at) / 1000),
      self: round(c.self - start.self),
      children: round(c.children - start.children),
    }) + '\n',
  );
});
