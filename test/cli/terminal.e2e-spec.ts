/**
 * The built `fleet-audit` at the terminal and in pipes ("CLI for humans and CI"): EPIPE ends
 * quietly with exit 0, Ctrl+C prints one line and exits 130, a bad flag prints one error line plus a
 * hint (not the whole help), every --help has examples and exit codes, `-o FILE` and the CI formats.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { ROOT, SAMPLE_FLEET, runCliInProcess } from './cli-run.util';

const BIN = join(ROOT, 'bin', 'fleet-audit.js');

// Each case spawns the built CLI (1-4 times); on a loaded 2-core machine one run can take 15 s.
vi.setConfig({ testTimeout: 180_000 });

describe('fleet-audit in pipes and at the terminal', () => {
  it('EPIPE: a reader that goes away (`| head -c 1`) ends the scan quietly with exit 0', async () => {
    const child = spawn(process.execPath, [BIN, 'scan', '--fleet', SAMPLE_FLEET, '--format', 'json'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.stdout.once('data', () => child.stdout.destroy());
    const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
    expect(err).toBe('');
    expect(code).toBe(0);
  });

  it('Ctrl+C (SIGINT) during a scan prints one line and exits 130', async () => {
    // A "cloud endpoint" that accepts connections and never answers: the scan waits on it.
    const sockets: Socket[] = [];
    let connected!: () => void;
    const firstConnection = new Promise<void>((r) => (connected = r));
    const server = createServer((s) => {
      sockets.push(s);
      connected();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as { port: number }).port;
    const dir = mkdtempSync(join(tmpdir(), 'fa-sigint-'));
    const config = join(dir, 'scan.yaml');
    writeFileSync(
      config,
      [`alibabaCloud: { endpoint: "127.0.0.1:${port}", protocol: http, readTimeoutMs: 60000 }`, 'credentials: { accessKeyId: AK, accessKeySecret: SK }', 'accounts:', '  - accountId: 1', '    regions: [cn-hangzhou]'].join('\n'),
    );
    const child = spawn(process.execPath, [BIN, 'scan', '--config', config], { stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const closed = new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
    await firstConnection;
    child.kill('SIGINT');
    const code = await closed;
    for (const s of sockets) s.destroy();
    server.close();
    expect(err).toBe('fleet-audit: interrupted\n');
    expect(code).toBe(130);
  });

  it('a bad flag prints one error line and a hint to --help, not the whole help; exit 2', async () => {
    const r = await runCliInProcess(['scan', '--fleet', SAMPLE_FLEET, '--formt', 'json']);
    expect(r.status).toBe(2);
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toBe("fleet-audit: error: unknown option '--formt' (Did you mean --format?)");
    expect(lines[1]).toContain('--help');
    expect(r.stderr).not.toContain('Options:');
  });

  it.each([[['--help']], [['scan', '--help']], [['sim', '--help']], [['sim', 'generate', '--help']], [['demo', '--help']], [['serve', '--help']], [['worker', '--help']], [['checks', '--help']], [['migrate', '--help']], [['iam-policy', '--help']], [['rbac', '--help']], [['waiver', '--help']]])(
    '%j shows examples and exit codes',
    async (args) => {
      const r = await runCliInProcess(args);
      expect(r.status).toBe(0);
      expect(r.stdout).toContain('Examples:');
      expect(r.stdout).toContain('Exit codes:');
      // Environment variables are shown one way: "(env: NAME)", never a resolved default value.
      expect(r.stdout).not.toMatch(/default: "postgres/);
    },
  );

  it('-o writes the report atomically and prints nothing on stdout; formats sarif and junit', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fa-out-'));
    const sarif = join(dir, 'out.sarif');
    const r = await runCliInProcess(['scan', '--fleet', SAMPLE_FLEET, '--format', 'sarif', '-o', sarif]);
    expect(r.status).toBe(0);
    expect(r.stdout).toBe('');
    expect((JSON.parse(readFileSync(sarif, 'utf8')) as { version: string }).version).toBe('2.1.0');
    const junit = await runCliInProcess(['scan', '--fleet', SAMPLE_FLEET, '--format', 'junit']);
    expect(junit.stdout.startsWith('<?xml')).toBe(true);
    const bad = await runCliInProcess(['scan', '--fleet', SAMPLE_FLEET, '-o', join(dir, 'missing', 'x.json')]);
    expect(bad.status).toBe(2);
    expect(bad.stderr.trim()).toMatch(/^fleet-audit: error: --output .*: cannot write \(ENOENT\)$/);
    expect((await runCliInProcess(['scan', '--fleet', SAMPLE_FLEET, '--format', 'csv', '--summary'])).stderr).toContain('--summary works with --format table or json');
  }, 240_000);

  it('a typo in a scan config is refused with the file, the JSON path and the nearest key', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fa-strict-'));
    const config = join(dir, 'scan.yaml');
    writeFileSync(config, ['accounts:', '  - accountId: 1', '    regions: [cn-hangzhou]', 'collecter:', '  qpsPerAccount: 100'].join('\n'));
    const r = await runCliInProcess(['scan', '--config', config]);
    expect(r.status).toBe(2);
    expect(r.stderr.trim()).toMatch(new RegExp(`^fleet-audit: error: invalid config file: ${config.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: \\$: unknown key\\(s\\) collecter; did you mean "collector" for "collecter"\\?`));
  });
});
