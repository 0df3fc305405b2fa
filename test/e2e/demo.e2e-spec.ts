/**
 * `npx fleet-audit demo` end to end, as a user runs it: the built CLI (bin/fleet-audit.js, the suite's build through
 * FLEET_AUDIT_DIST) in a child process simulates the bundled sample fleet, scans it live, prints the findings, stores
 * the scan in the embedded PostgreSQL (PGlite over its socket), plans capacity on it, writes the weekly report and
 * serves the API until SIGTERM. The README marks `npx fleet-audit demo` as run here (test/docs/readme-examples).
 *
 * What it guards: the store path on PGlite. A scan stored in one transaction once wrote its snapshot with a binary
 * `COPY ... FROM STDIN (FORMAT binary)`, which PGlite never finishes: the demo printed its findings and hung before
 * the API, and no test noticed. Here the API must answer, and GET /v1/scans must return the scan the demo printed,
 * stored and succeeded, with the sample fleet's findings count (test/golden/sample-scan.golden.json: the same fleet
 * and settings, offline; the live scan finds the same, test/e2e/walking-skeleton).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, ROOT } from '../cli/cli-run.util';

/** Summary of the sample fleet's scan with its audit-settings.yaml (what the demo scans with). */
const GOLDEN = (JSON.parse(readFileSync(join(ROOT, 'test', 'golden', 'sample-scan.golden.json'), 'utf8')) as {
  scan: { summary: { findings: number; bySeverity: Record<'critical' | 'warning' | 'info', number> } };
}).scan.summary;

/**
 * Longest the demo may take to serve its API: some 20 s alone on the 2-core machine (simulator, live scan, PGlite
 * start and store, capacity planning, report, Nest), slower beside the rest of the suite. A demo that hangs storing
 * its scan never gets there: the test then fails with its output instead of running into the file's timeout.
 */
const SERVE_WITHIN_MS = 150_000;

describe('fleet-audit demo (built CLI, embedded PGlite)', { timeout: SERVE_WITHIN_MS + 60_000 }, () => {
  let demo: ChildProcess;
  let exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  let stdout = '';
  let stderr = '';
  let url = '';
  let token = '';
  let scanId = '';
  let workDir = '';

  beforeAll(async () => {
    if (!process.env.FLEET_AUDIT_DIST) throw new Error('FLEET_AUDIT_DIST is not set: run this file through vitest (test/global-setup.ts builds the CLI)');
    workDir = mkdtempSync(join(tmpdir(), 'demo-e2e-'));
    // NODE_ENV as a user's shell has it (unset, not vitest's `test`); the demo's weekly report goes to TMPDIR.
    demo = spawn(process.execPath, [BIN, 'demo', '--port', '0'], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, NODE_ENV: '', NO_COLOR: '1', TMPDIR: workDir, DATABASE_URL: '', REDIS_URL: '' },
    });
    exited = new Promise((resolve) => demo.once('exit', (code, signal) => resolve({ code, signal })));
    demo.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    // Serving once the last line of its banner is out; the exit (or the deadline) first is a failure with the output.
    const serving = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the demo did not serve its API within ${SERVE_WITHIN_MS / 1000} s`)), SERVE_WITHIN_MS);
      demo.stdout!.on('data', (d: Buffer) => {
        stdout += d.toString();
        if (stdout.includes('Press Ctrl+C to stop.')) {
          clearTimeout(timer);
          resolve();
        }
      });
      void exited.then(({ code, signal }) => {
        clearTimeout(timer);
        reject(new Error(`the demo exited (${code ?? signal}) before serving its API`));
      });
    });
    try {
      await serving;
    } catch (e) {
      const findingsShown = /^Findings: /m.test(stdout);
      throw new Error(
        `${(e as Error).message}${findingsShown ? ' after printing its findings (stuck storing the scan in PGlite?)' : ''}\n` +
          `--- stderr (last 3,000 characters) ---\n${stderr.slice(-3000)}\n--- stdout (last 1,500) ---\n${stdout.slice(-1500)}`,
        { cause: e },
      );
    }
    url = /^API: (http:\/\/127\.0\.0\.1:\d+) /m.exec(stdout)?.[1] ?? '';
    token = /^Access token \(this run only\): (\S+)$/m.exec(stdout)?.[1] ?? '';
    scanId = /^Scan (\S+) of fleet "sample" \(live\)/m.exec(stdout)?.[1] ?? '';
  }, SERVE_WITHIN_MS + 30_000);

  afterAll(async () => {
    if (demo && demo.exitCode === null && demo.signalCode === null) {
      demo.kill('SIGKILL');
      await exited;
    }
    if (workDir) rmSync(workDir, { recursive: true, force: true });
  });

  it("prints the sample fleet's findings from its live scan, and stores that scan", () => {
    const { findings, bySeverity } = GOLDEN;
    expect(stdout).toContain(`Findings: ${findings} (critical ${bySeverity.critical}, warning ${bySeverity.warning}, info ${bySeverity.info});`);
    expect(scanId).toMatch(/^[0-9a-f-]{36}$/);
    expect(stderr).toContain('store: embedded PostgreSQL (PGlite) ready');
    expect(stderr).toContain(`store: scan ${scanId} stored`);
  });

  it('serves the API on the free port the system chose (`--port 0`), with a token of this run', () => {
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(url).not.toMatch(/:0$/);
    expect(token.length).toBeGreaterThanOrEqual(24);
  });

  it('answers /healthz', async () => {
    const r = await fetch(`${url}/healthz`);
    expect(r.status).toBe(200);
  });

  it('returns the stored scan from PGlite: GET /v1/scans (the token it printed) and its findings', async () => {
    expect((await fetch(`${url}/v1/scans`)).status).toBe(401);
    const auth = { authorization: `Bearer ${token}` };
    const scans = await fetch(`${url}/v1/scans`, { headers: auth });
    expect(scans.status).toBe(200);
    const { items } = (await scans.json()) as { items: Array<{ id: string; status: string; source: string; fleetName: string; summary: { findings: number } }> };
    // The scan printed, and the generated history the capacity planning stored before the API started.
    expect(items.find((s) => s.id === scanId)).toMatchObject({ status: 'succeeded', source: 'live', fleetName: 'sample', summary: { findings: GOLDEN.findings } });
    const page = await fetch(`${url}/v1/findings?scanId=${scanId}&limit=1`, { headers: auth });
    expect(page.status).toBe(200);
    const body = (await page.json()) as { items: unknown[]; total: number | null };
    expect(body.items).toHaveLength(1);
    expect(body.total).toBe(GOLDEN.findings);
  });

  // Last: it stops the demo.
  it('stops on SIGTERM with exit 0', async () => {
    demo.kill('SIGTERM');
    expect(await exited).toEqual({ code: 0, signal: null });
  });
});
