/**
 * Exit codes of the built `fleet-audit` (the code its `main()` resolves with, run in-process on the suite's build;
 * bin/fleet-audit.js exits with it: the spawned runs of cli.e2e, terminal.e2e and faults/cli-store-failure show it), read
 * from the error's libs/errors code and permanent flag in one place (apps/cli/src/cli-error.ts
 * `exitCodeOf`): 2 for bad input (usage, fleet directory, scan config, environment), 3 for a
 * transient failure (PostgreSQL unreachable). Each failure is one line on stderr, no stack trace.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, runCliInProcess } from './cli-run.util';

/** The one stderr line of a failed run, asserted to be the only one and free of a stack trace. */
function oneErrorLine(stderr: string): string {
  const lines = stderr.trimEnd().split('\n');
  expect(stderr).not.toMatch(/\n\s+at /);
  return lines[0] ?? '';
}

describe('fleet-audit exit codes (built CLI)', () => {
  it('a usage error (no --fleet / --config) exits 2 with one line', async () => {
    const r = await runCliInProcess(['scan']);
    expect(r.status).toBe(2);
    expect(oneErrorLine(r.stderr)).toBe('fleet-audit: error: give exactly one of --fleet DIR (offline) or --config FILE (live)');
    expect(r.stdout).toBe('');
  });

  it('an unknown flag (commander) exits 2', async () => {
    const r = await runCliInProcess(['scan', '--formt', 'json']);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("unknown option '--formt'");
  });

  it('a bad fleet directory exits 2 naming the file and JSON path', async () => {
    const r = await runCliInProcess(['scan', '--fleet', join(ROOT, 'examples', 'fleets', 'wrong-type')]);
    expect(r.status).toBe(2);
    expect(oneErrorLine(r.stderr)).toMatch(/^fleet-audit: error: invalid fleet directory: \S+\.json: \$\S*: expected /);
    expect(r.stdout).toBe('');
  });

  it('a scan config file that cannot be read exits 2', async () => {
    const r = await runCliInProcess(['scan', '--config', join(ROOT, 'no-such-scan-config.yaml')]);
    expect(r.status).toBe(2);
    expect(oneErrorLine(r.stderr)).toMatch(/^fleet-audit: error: invalid config file: .*no-such-scan-config\.yaml: \$: a readable file/);
  });

  it('an invalid environment variable (libs/config ConfigError) exits 2 at boot, naming it', async () => {
    const r = await runCliInProcess(['checks'], { API_PORT: 'not-a-port' });
    expect(r.status).toBe(2);
    expect(oneErrorLine(r.stderr)).toBe('fleet-audit: error: invalid configuration: API_PORT must be a port number from 1 to 65535');
    expect(r.stdout).toBe('');
  });

  it('PostgreSQL unreachable (StoreError UNAVAILABLE, transient) exits 3: a retry may succeed', async () => {
    const r = await runCliInProcess(['migrate', '--database-url', 'postgres://postgres@127.0.0.1:1/fleet_audit_unreachable']);
    expect(r.status).toBe(3);
    expect(oneErrorLine(r.stderr)).toMatch(/^fleet-audit: error: cannot open PostgreSQL at postgres:\/\/postgres@127\.0\.0\.1:1\/fleet_audit_unreachable: /);
  });

  it('--help documents the exit codes', async () => {
    const r = await runCliInProcess(['--help']);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/Exit codes:\n {2}0 {4}ok\n {2}1 .*\n {2}2 .*\n {2}3 {4}a transient failure/);
  });
});
