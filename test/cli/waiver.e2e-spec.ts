/**
 * Waivers from the command line: `scan --waivers FILE` for offline CI (strict file, waived
 * findings ignored by --fail-on, expired waivers count again), and `waiver add|list|revoke` on real
 * PostgreSQL applied by `scan --database-url --fail-on`. Runs the built CLI in-process (test/cli/cli-run.util.ts).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Finding } from '@app/domain';
import { createTestDatabase, type TestDatabase } from '../store/test-database.util';
import { runCliInProcess, SAMPLE_FLEET } from './cli-run.util';

const NOW = '2026-06-01T00:00:00Z';

describe('fleet-audit waivers (e2e)', () => {
  let dir: string;
  let critical: Finding[];
  let db: TestDatabase;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'fa-waivers-'));
    const r = await runCliInProcess(['scan', '--fleet', SAMPLE_FLEET, '--format', 'json', '--now', NOW]);
    critical = (JSON.parse(r.stdout) as { findings: Finding[] }).findings.filter((f) => f.severity === 'critical');
    expect(critical.length).toBeGreaterThan(0);
    db = await createTestDatabase();
  });
  afterAll(async () => {
    await db?.release();
  });

  const fileFor = (findings: Finding[], expiresAt: string) =>
    [
      'waivers:',
      ...findings.flatMap((f) => [
        `  - checkId: ${f.checkId}`,
        `    accountId: "${f.resource.accountId}"`,
        `    resource: "${f.resource.id}"`,
        '    owner: team-platform',
        '    reason: accepted until the Q3 migration',
        '    category: accepted-risk',
        `    expiresAt: ${expiresAt}`,
      ]),
    ].join('\n');

  it('--waivers FILE: waived critical findings do not fail --fail-on critical; expired ones do', async () => {
    const base = ['scan', '--fleet', SAMPLE_FLEET, '--now', NOW, '--fail-on', 'critical'];
    expect((await runCliInProcess(base)).status).toBe(1);
    const active = join(dir, 'active.yaml');
    writeFileSync(active, fileFor(critical, '2026-07-01'));
    const ok = await runCliInProcess([...base, '--waivers', active, '--format', 'json']);
    expect(ok.stderr).toBe('');
    expect(ok.status).toBe(0);
    const shown = (JSON.parse(ok.stdout) as { findings: (Finding & { status: string; waiver?: { owner: string } })[] }).findings;
    const waived = shown.filter((f) => f.status === 'waived');
    expect(waived.map((f) => f.fingerprint).sort()).toEqual(critical.map((f) => f.fingerprint).sort());
    expect(waived.every((f) => f.severity === 'critical' && f.waiver?.owner === 'team-platform')).toBe(true);

    const expired = join(dir, 'expired.yaml');
    writeFileSync(expired, fileFor(critical, '2026-05-01'));
    const back = await runCliInProcess([...base, '--waivers', expired]);
    expect(back.status).toBe(1);
    expect(back.stdout).toContain('waiver expired');
  }, 180_000);

  it('rejects a bad waivers file with one line naming the file and the field (exit 2)', async () => {
    const bad = join(dir, 'bad.yaml');
    writeFileSync(bad, fileFor(critical.slice(0, 1), '2026-07-01').replace('reason: accepted until the Q3 migration', 'reason: short'));
    const r = await runCliInProcess(['scan', '--fleet', SAMPLE_FLEET, '--now', NOW, '--waivers', bad]);
    expect(r.status).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain(`${bad}: $.waivers[0].reason`);
    const far = join(dir, 'far.yaml');
    writeFileSync(far, fileFor(critical.slice(0, 1), '2027-06-01'));
    expect((await runCliInProcess(['scan', '--fleet', SAMPLE_FLEET, '--now', NOW, '--waivers', far])).stderr).toContain('at most 180 days');
  }, 120_000);

  it('waiver add|list|revoke on PostgreSQL; scan --database-url --fail-on applies stored waivers', async () => {
    const env = { DATABASE_URL: db.url };
    const ids: string[] = [];
    // One glob waiver per (check, account) of the critical findings.
    const scopes = [...new Map(critical.map((f) => [`${f.checkId} ${f.resource.accountId}`, f])).values()];
    for (const f of scopes) {
      const r = await runCliInProcess(
        ['waiver', 'add', '--check', f.checkId, '--account', f.resource.accountId, '--resource', '*', '--owner', 'team-platform', '--reason', 'accepted until the Q3 migration', '--category', 'mitigated', '--format', 'json', '--by', 'ci'],
        env,
      );
      expect(r.stderr).toBe('');
      expect(r.status).toBe(0);
      ids.push((JSON.parse(r.stdout) as { id: string }).id);
    }
    const short = await runCliInProcess(['waiver', 'add', '--check', 'LB_ORPHANED', '--account', '1', '--resource', '*', '--owner', 'o', '--reason', 'short', '--category', 'mitigated'], env);
    expect(short.status).toBe(2);
    expect(short.stderr).toContain('reason must be at least 10 characters');

    const list = await runCliInProcess(['waiver', 'list', '--format', 'json'], env);
    expect((JSON.parse(list.stdout) as { id: string }[]).map((w) => w.id).sort()).toEqual([...ids].sort());
    expect((await runCliInProcess(['waiver', 'list'], env)).stdout).toContain(`${ids.length} waiver(s)`);

    const scan = ['scan', '--fleet', SAMPLE_FLEET, '--now', NOW, '--fail-on', 'critical'];
    expect((await runCliInProcess(scan, env)).status).toBe(0);
    expect((await runCliInProcess(['waiver', 'revoke', ids[0], '--by', 'ci'], env)).status).toBe(0);
    expect((await runCliInProcess(scan, env)).status).toBe(1);
    expect((await runCliInProcess(['waiver', 'revoke', ids[0]], env)).status).toBe(2);
    expect((await runCliInProcess(['waiver', 'list'], {})).stderr).toContain('--database-url');
  }, 300_000);
});
