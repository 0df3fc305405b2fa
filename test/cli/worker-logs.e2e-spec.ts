/**
 * `fleet-audit worker` logs JSON lines like `serve`: with stdout redirected (compose,
 * Kubernetes) every stdout line is one JSON object with pino's `level` (label), `time` and `msg`, no ANSI colour
 * codes and no multi-line text; before, the worker wrote Nest's coloured text logger. Its stderr too (the ready and
 * draining lines), and `serve`'s: every line a service writes to a pipe is one JSON object.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../store/test-database.util';
import { deletePrefix, SHARED_REDIS_URL, uniquePrefix } from '../worker/worker-test.util';
import { ROOT } from './cli-run.util';

const BIN = join(ROOT, 'bin', 'fleet-audit.js');

describe('fleet-audit worker: JSON log lines', () => {
  let db: TestDatabase;
  const prefix = uniquePrefix('worker-logs');

  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(async () => {
    await deletePrefix(SHARED_REDIS_URL, prefix);
    await db?.release();
  });

  it('writes only JSON objects on stdout (redirected, NODE_ENV=production), one per line, without colour', async () => {
    const env = { ...process.env, DATABASE_URL: db.url, REDIS_URL: SHARED_REDIS_URL, FLEET_AUDIT_QUEUE_PREFIX: prefix, NODE_ENV: 'production', LOG_LEVEL: 'info' };
    delete (env as Record<string, string | undefined>).NO_COLOR;
    const child = spawn(process.execPath, [BIN, 'worker', '--no-schedule', '--health-port', '0'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    const exited = new Promise<number | string | null>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal)));
    // Ready is announced on stderr once the queues and the health endpoint are up.
    await new Promise<void>((resolve, reject) => {
      child.stderr.on('data', (d: Buffer) => {
        stderr += d.toString();
        if (stderr.includes(' ready (')) resolve();
      });
      void exited.then((code) => reject(new Error(`worker exited ${code} before ready: ${stderr}`)));
    });
    child.kill('SIGTERM');
    expect(await exited, `stderr: ${stderr}`).toBe(0);
    const lines = stdout.split('\n').filter((l) => l !== '');
    // Nest's own bootstrap lines (module initialisation) go through the same logger.
    expect(lines.length, `stdout: ${stdout}\nstderr: ${stderr}`).toBeGreaterThan(0);
    for (const line of lines) {
      expect(line, 'no ANSI colour codes').not.toMatch(new RegExp(String.fromCharCode(27) + '\\['));
      const entry = JSON.parse(line) as Record<string, unknown>;
      if (typeof entry.msg !== 'string' || entry.time === undefined) throw new Error(`not a log line: ${line}`);
      // pino's fields (the level as its label and an ISO time, as `serve` writes them).
      expect(['trace', 'debug', 'info', 'warn', 'error', 'fatal']).toContain(entry.level);
    }
    // No secret of the environment reaches the log.
    expect(stdout).not.toContain(db.url);
    // stderr too: the ready and draining status lines are JSON objects of the same shape, not text between them.
    const status = everyLineJson(stderr);
    expect(status.map((e) => e.event)).toEqual(expect.arrayContaining(['worker.ready', 'worker.draining']));
    // `--health-port 0`: the ready line names the health endpoint on the port the system chose.
    expect(stderr).toMatch(/health: http:\/\/127\.0\.0\.1:[1-9]\d*\/readyz/);
    expect(stderr).not.toContain(db.url);
  }, 60_000);

  it('serve: every line on stdout and stderr (piped) is one JSON object, the listening line and a failure included', async () => {
    const env = { ...process.env, DATABASE_URL: db.url, REDIS_URL: '', API_TOKEN: 'worker-logs-serve-token-0123456789', NODE_ENV: 'production', LOG_LEVEL: 'info' };
    const child = spawn(process.execPath, [BIN, 'serve', '--port', '0'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    const exited = new Promise<number | string | null>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal)));
    await new Promise<void>((resolve, reject) => {
      child.stderr.on('data', (d: Buffer) => {
        stderr += d.toString();
        if (stderr.includes('api.listening')) resolve();
      });
      void exited.then((code) => reject(new Error(`serve exited ${code} before listening: ${stderr}`)));
    });
    child.kill('SIGTERM');
    expect(await exited, `stderr: ${stderr}`).toBe(0);
    everyLineJson(stdout);
    const listening = everyLineJson(stderr).find((e) => e.event === 'api.listening');
    // `--port 0`: the line names the port the system chose, not 0.
    expect(String(listening?.url)).toMatch(/^http:\/\/127\.0\.0\.1:[1-9]\d*$/);
    // A failure (no API_TOKEN) is one JSON line too, with its exit code.
    const failed = spawn(process.execPath, [BIN, 'serve', '--port', '0'], { env: { ...env, API_TOKEN: '' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let failedErr = '';
    failed.stderr.on('data', (d: Buffer) => (failedErr += d.toString()));
    const code = await new Promise<number | null>((resolve) => failed.once('exit', (c) => resolve(c)));
    expect(code).toBe(2);
    const [error] = everyLineJson(failedErr);
    expect(error).toMatchObject({ level: 'error', exitCode: 2 });
    expect(String(error?.msg)).toContain('API_TOKEN');
  }, 60_000);
});

/** Each non-empty line of `text` parsed as a pino-shaped JSON log object (`level` label, `time`, `msg`); throws on any other line. */
function everyLineJson(text: string): Array<Record<string, unknown>> {
  return text
    .split('\n')
    .filter((l) => l !== '')
    .map((line) => {
      expect(line, 'no ANSI colour codes').not.toMatch(new RegExp(String.fromCharCode(27) + '\\['));
      const entry = JSON.parse(line) as Record<string, unknown>;
      if (typeof entry.msg !== 'string' || typeof entry.time !== 'string') throw new Error(`not a log line: ${line}`);
      expect(['trace', 'debug', 'info', 'warn', 'error', 'fatal']).toContain(entry.level);
      return entry;
    });
}
