/**
 * Runs the built `fleet-audit` command: in this process (`runCliInProcess`: the built `main()` with captured
 * streams, no ~2 s cold start; what output and exit-code tests use) or as a user would (`runCli`, `startCli`:
 * bin/fleet-audit.js in a child process; kept for what only a process shows: signals, pipes, the README's
 * commands). Both run the suite's build (`FLEET_AUDIT_DIST`, dist-test/, built once by test/global-setup.ts).
 */
import { spawn, spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { Writable } from 'node:stream';

/** Repository root. */
export const ROOT = join(__dirname, '..', '..');
/** The bundled sample fleet. */
export const SAMPLE_FLEET = join(ROOT, 'examples', 'fleets', 'sample');
/** The CLI launcher (bin/fleet-audit.js; it runs the suite's build in dist-test/ through FLEET_AUDIT_DIST). */
export const BIN = join(ROOT, 'bin', 'fleet-audit.js');

/** Result of one CLI run. */
export interface CliRun {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** The built CLI's exports used here (apps/cli/src/main.ts). */
interface BuiltCli {
  main(argv: string[], streams: { stdout: NodeJS.WritableStream; stderr: NodeJS.WritableStream }): Promise<number>;
}

let builtCli: BuiltCli | undefined;

/**
 * The built CLI module, loaded once per test file with Node's own `require` (the compiled CommonJS of dist-test/,
 * not the TypeScript sources: the same code `bin/fleet-audit.js` runs).
 * @throws Error when FLEET_AUDIT_DIST is unset (the file did not run through the integration project)
 */
function loadBuiltCli(): BuiltCli {
  const root = process.env.FLEET_AUDIT_DIST;
  if (!root) throw new Error('FLEET_AUDIT_DIST is not set: run this file through vitest (test/global-setup.ts builds the CLI)');
  builtCli ??= createRequire(__filename)(join(root, 'apps', 'cli', 'src', 'main.js')) as BuiltCli;
  return builtCli;
}

/** A writable stream that keeps what is written, as text. */
class Capture extends Writable {
  text = '';
  override _write(chunk: Buffer | string, _enc: BufferEncoding, done: (e?: Error | null) => void): void {
    this.text += chunk.toString();
    done();
  }
}

/** Serialises in-process runs: they share process.env for the duration of a run. */
let queue: Promise<unknown> = Promise.resolve();

/**
 * Run `fleet-audit <args>` in this process to completion: the built `main()` with captured stdout and stderr,
 * under the process environment plus `env` (DATABASE_URL removed unless given, as `runCli`), restored after.
 * `status` is the exit code `main()` resolved with (what bin/fleet-audit.js exits with).
 */
export function runCliInProcess(args: string[], env: NodeJS.ProcessEnv = {}): Promise<CliRun> {
  const run = async (): Promise<CliRun> => {
    const cli = loadBuiltCli();
    const saved = { ...process.env };
    delete process.env.DATABASE_URL;
    Object.assign(process.env, env);
    const stdout = new Capture();
    const stderr = new Capture();
    try {
      const status = await cli.main([process.execPath, 'fleet-audit', ...args], { stdout, stderr });
      return { status, stdout: stdout.text, stderr: stderr.text };
    } finally {
      for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
      Object.assign(process.env, saved);
    }
  };
  const result = queue.then(run, run);
  queue = result.catch(() => undefined);
  return result;
}

/** Run `fleet-audit <args>` to completion in a child process (environment without DATABASE_URL unless given). */
export function runCli(args: string[], env: NodeJS.ProcessEnv = {}): CliRun {
  const base = { ...process.env };
  delete base.DATABASE_URL;
  const r = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', env: { ...base, ...env }, timeout: 120_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** `runCli` without blocking the event loop: several runs (and a server in the same test) proceed concurrently. */
export function runCliAsync(args: string[], env: NodeJS.ProcessEnv = {}): Promise<CliRun> {
  const base = { ...process.env };
  delete base.DATABASE_URL;
  const child = spawn(process.execPath, [BIN, ...args], { env: { ...base, ...env }, stdio: ['ignore', 'pipe', 'pipe'], timeout: 120_000 });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (status) => resolve({ status, stdout, stderr }));
  });
}

/** Start `fleet-audit <args>` and resolve with its first stdout line; `stop()` sends SIGTERM. */
export function startCli(args: string[]): Promise<{ firstLine: string; stop: () => Promise<number | null> }> {
  const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const nl = out.indexOf('\n');
      if (nl >= 0)
        resolve({
          firstLine: out.slice(0, nl),
          stop: () =>
            new Promise((res) => {
              child.once('exit', (code) => res(code));
              child.kill('SIGTERM');
            }),
        });
    });
    child.once('exit', (code) => reject(new Error(`fleet-audit exited with ${code} before printing: ${err}`)));
  });
}
