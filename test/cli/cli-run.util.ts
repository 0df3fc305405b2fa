/** Runs the built `fleet-audit` command (bin/fleet-audit.js -> dist) as a user would. */
import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';

/** Repository root. */
export const ROOT = join(__dirname, '..', '..');
/** The bundled sample fleet. */
export const SAMPLE_FLEET = join(ROOT, 'examples', 'fleets', 'sample');
const BIN = join(ROOT, 'bin', 'fleet-audit.js');

/** Result of one CLI run. */
export interface CliRun {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Run `fleet-audit <args>` to completion (environment without DATABASE_URL unless given). */
export function runCli(args: string[], env: NodeJS.ProcessEnv = {}): CliRun {
  const base = { ...process.env };
  delete base.DATABASE_URL;
  const r = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', env: { ...base, ...env }, timeout: 120_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
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
