/**
 * The fleet-audit command (the built CLI): exit codes, one-line errors on bad input, JSON on stdout and nothing
 * else, and offline vs live scans giving the same findings. Output and exit codes are read from in-process runs
 * (`runCliInProcess`); the README's scan command, a large output through a pipe and the simulator's signal
 * handling run as processes (bin/fleet-audit.js).
 */
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { dirname } from 'node:path';
import { tmpdir } from 'node:os';
import { ROOT, SAMPLE_FLEET, runCli, runCliInProcess, startCli } from './cli-run.util';

interface JsonOutput {
  scan: {
    id: string;
    status: string;
    source: string;
    summary: { findings: number; byCheckStatus: Record<string, { pass: number; fail: number; skipped: number }> };
    coverage: ({ status: string } & Record<string, unknown>)[];
    skipped: { checkId: string; resource: { id: string }; reason: string }[];
  };
  findings: { checkId: string; severity: string; fingerprint: string; resource: { kind: string; id: string; accountId: string; regionId: string }; message: string; remediation: string; source: string }[];
}

const TEN_CHECKS = [
  'CLB_BACKEND_QUOTA',
  'ECS_LB_ATTACHMENT_QUOTA',
  'CLUSTER_MODE_BLOWUP',
  'NODEPORT_EPHEMERAL_OVERLAP',
  'NODEPORT_IN_EPHEMERAL_RANGE',
  'LB_ORPHANED',
  'LB_REUSE_OF_CCM_CREATED',
  'LB_REUSE_CROSS_VPC',
  'CCM_ANNOTATION_UNSUPPORTED',
  'CCM_RAM_PERMISSION_GAP',
];

describe('fleet-audit scan --fleet (offline)', () => {
  it('prints JSON only on stdout, with findings of all ten checks on the sample fleet', async () => {
    const r = await runCliInProcess(['scan', '--fleet', SAMPLE_FLEET, '--format', 'json', '--now', '2026-11-22T00:00:00Z']);
    expect(r.status, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as JsonOutput;
    expect(out.scan.status).toBe('succeeded');
    expect(out.scan.source).toBe('offline');
    const ids = new Set(out.findings.map((f) => f.checkId));
    for (const id of TEN_CHECKS) expect(ids, id).toContain(id);
    // What the scan makes no claim about is printed with it: every skipped (check, resource) and why.
    expect(out.scan.skipped.length).toBeGreaterThan(0);
    for (const k of out.scan.skipped) {
      expect(k.checkId).toMatch(/^[A-Z_]+$/);
      expect(k.reason.length).toBeGreaterThan(10);
    }
    const statuses = Object.values(out.scan.summary.byCheckStatus);
    expect(statuses.reduce((n, c) => n + c.skipped, 0)).toBe(out.scan.skipped.length);
    expect(statuses.reduce((n, c) => n + c.fail, 0)).toBe(out.findings.length);
    for (const f of out.findings) {
      expect(f.fingerprint).toMatch(/^[0-9a-f]{32}$/);
      expect(f.remediation.length).toBeGreaterThan(10);
      expect(f.source.length).toBeGreaterThan(3);
      expect(f.resource.accountId).toMatch(/^\d+$/);
    }
  });

  it('writes all of a large output to a pipe before exiting (more than the 128 KiB a premature exit left)', () => {
    const r = runCli(['scan', '--fleet', SAMPLE_FLEET, '--format', 'json', '--now', '2026-11-22T00:00:00Z']);
    expect(Buffer.byteLength(r.stdout)).toBeGreaterThan(128 * 1024);
    expect(() => JSON.parse(r.stdout) as unknown).not.toThrow();
  });

  it('--settings applies a settings file: thresholds, disabled checks, severity overrides', async () => {
    const base = ['scan', '--fleet', SAMPLE_FLEET, '--format', 'json', '--now', '2026-11-22T00:00:00Z'];
    const plain = JSON.parse((await runCliInProcess(base)).stdout) as JsonOutput;
    const r = await runCliInProcess([...base, '--settings', join(SAMPLE_FLEET, 'audit-settings.yaml')]);
    expect(r.status, r.stderr).toBe(0);
    const tuned = JSON.parse(r.stdout) as JsonOutput;
    expect(plain.findings.filter((f) => f.checkId === 'CCM_LARGE_SCALE_RISK')).toEqual([]);
    expect(tuned.findings.filter((f) => f.checkId === 'CCM_LARGE_SCALE_RISK').map((f) => f.resource.id)).toEqual([
      'cf2781b2a1cfd954dddfdbe0be9ab915b',
    ]);
    const dir = mkdtempSync(join(tmpdir(), 'fleet-audit-settings-'));
    const file = join(dir, 'settings.json');
    writeFileSync(file, JSON.stringify({ checks: { SERVICE_NO_CONNECTION_DRAIN: { enabled: false }, LB_ORPHANED: { severity: 'critical' } } }));
    const custom = JSON.parse((await runCliInProcess([...base, '--settings', file])).stdout) as JsonOutput;
    expect(custom.findings.some((f) => f.checkId === 'SERVICE_NO_CONNECTION_DRAIN')).toBe(false);
    expect(custom.findings.filter((f) => f.checkId === 'LB_ORPHANED').map((f) => f.severity)).toEqual(['critical']);
  });

  it('a bad settings file gets one line naming the file and the JSON path, and exit 2', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fleet-audit-settings-'));
    const file = join(dir, 'settings.yaml');
    writeFileSync(file, 'quota:\n  warningRatio: 0.9\n  criticalRatio: 0.85\n');
    const r = await runCliInProcess(['scan', '--fleet', SAMPLE_FLEET, '--settings', file]);
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n')).toEqual([
      `fleet-audit: error: invalid config file: ${file}: $.quota.warningRatio: quota.warningRatio (0.9) must not exceed quota.criticalRatio (0.85)`,
    ]);
  });

  it('--fail-on sets exit code 1 when a finding at or above it exists', async () => {
    expect((await runCliInProcess(['scan', '--fleet', SAMPLE_FLEET, '--format', 'json', '--fail-on', 'warning'])).status).toBe(1);
    expect((await runCliInProcess(['scan', '--fleet', SAMPLE_FLEET, '--format', 'json', '--fail-on', 'none'])).status).toBe(0);
  });

  it('prints a table by default', () => {
    const r = runCli(['scan', '--fleet', SAMPLE_FLEET]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain('CLB_BACKEND_QUOTA');
    expect(r.stdout).toMatch(/Findings: \d+ \(critical \d+, warning \d+, info \d+\)/);
    expect(r.stdout).toMatch(/Not evaluated \(skipped, no claim made\): \d+ results/);
  });

  it.each([
    ['bad-json', /load-balancers\.json|\.json/],
    ['missing-id', /\$\[\d+\]\.LoadBalancerId/],
    ['wrong-type', /\$/],
  ])('a malformed fleet (%s) gets one clear line and exit 2', async (name, pattern) => {
    const r = await runCliInProcess(['scan', '--fleet', join(ROOT, 'examples', 'fleets', name), '--format', 'json']);
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^fleet-audit: error: invalid fleet directory: /);
    expect(lines[0]).toMatch(pattern);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('bad flags exit 2', async () => {
    expect((await runCliInProcess(['scan'])).status).toBe(2);
    expect((await runCliInProcess(['scan', '--fleet', SAMPLE_FLEET, '--format', 'xml'])).status).toBe(2);
    expect((await runCliInProcess(['scan', '--fleet', '/nonexistent/fleet'])).status).toBe(2);
  });
});

describe('fleet-audit sim + scan --config (live, official clients)', () => {
  it('reports exactly the offline findings for the same fleet', async () => {
    const sim = await startCli(['sim', '--fleet', SAMPLE_FLEET, '--port', '0']);
    try {
      const ready = JSON.parse(sim.firstLine) as { endpoint: string; config: string };
      expect(ready.endpoint).toMatch(/^127\.0\.0\.1:\d+$/);
      expect(JSON.parse(readFileSync(ready.config, 'utf8'))).toHaveProperty('accounts');
      const now = '2026-11-22T00:00:00Z';
      const live = await runCliInProcess(['scan', '--config', ready.config, '--format', 'json', '--now', now, '--no-progress']);
      expect(live.status, live.stderr).toBe(0);
      const offline = await runCliInProcess(['scan', '--fleet', SAMPLE_FLEET, '--format', 'json', '--now', now]);
      const liveOut = JSON.parse(live.stdout) as JsonOutput;
      const offOut = JSON.parse(offline.stdout) as JsonOutput;
      expect(liveOut.scan.source).toBe('live');
      expect(liveOut.scan.coverage.filter((c) => c.status === 'failed')).toEqual([]);
      expect(liveOut.findings).toEqual(offOut.findings);
      const key = (c: { status: string } & Record<string, unknown>) => [c.accountId, c.regionId, c.clusterId, c.api, c.status].join('|');
      expect(liveOut.scan.coverage.map(key)).toEqual(offOut.scan.coverage.map(key));
    } finally {
      expect(await sim.stop()).toBe(0);
    }
  });
});

describe('fleet-audit sim removes its temporary scan config (it holds the AccessKey)', () => {
  it.each(['SIGTERM', 'SIGINT'] as const)('on %s: the config file and its temporary directory are gone, exit 0', async (signal) => {
    const child = spawn(process.execPath, [join(ROOT, 'bin/fleet-audit.js'), 'sim', '--fleet', SAMPLE_FLEET, '--port', '0'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const exited = new Promise<number | null>((res) => child.once('exit', (code) => res(code)));
    const line = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        if (out.includes('\n')) resolve(out.slice(0, out.indexOf('\n')));
      });
      void exited.then((code) => reject(new Error(`sim exited ${code} before its ready line: ${err}`)));
    });
    const { config } = JSON.parse(line) as { config: string };
    expect(existsSync(config)).toBe(true);
    expect(readFileSync(config, 'utf8')).toContain('accessKeySecret');
    child.kill(signal);
    expect(await exited).toBe(0);
    expect(existsSync(config)).toBe(false);
    expect(existsSync(dirname(config))).toBe(false);
    expect(err).toBe('');
  });
});
