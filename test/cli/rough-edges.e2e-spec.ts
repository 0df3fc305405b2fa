/**
 * Rough edges a new user hit, each through the built CLI as the user ran it: the demo's hint to reproduce its
 * findings (the same settings), `forecast whatif -o FILE`, `waiver revoke` by a unique id prefix and `waiver list`
 * keeping each id on one line.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { load as parse } from 'js-yaml';
import { loadAuditSettings, runScan } from '@app/audit';
import { demoReproduceCommand, SAMPLE_SETTINGS_FILE } from '../../apps/cli/src/commands/demo.command';
import { shellWords } from '../docs/readme-examples.util';
import { createTestDatabase, type TestDatabase } from '../store/test-database.util';
import { runCliInProcess, SAMPLE_FLEET } from './cli-run.util';

const NOW = '2026-11-23T10:00:00Z';

describe('rough edges of the CLI (e2e)', () => {
  let dir: string;
  let db: TestDatabase;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'fa-rough-'));
    db = await createTestDatabase();
  });
  afterAll(async () => {
    await db?.release();
    rmSync(dir, { recursive: true, force: true });
  });

  it("demo's hint reproduces the demo's findings: same fleet, same settings file", async () => {
    const settingsFile = join(SAMPLE_FLEET, SAMPLE_SETTINGS_FILE);
    const hint = demoReproduceCommand(SAMPLE_FLEET, settingsFile);
    const words = shellWords(hint, {}).map((w) => w.value);
    expect(words.slice(0, 3)).toEqual(['npx', 'fleet-audit', 'scan']);
    expect(words).toContain('--settings');
    const r = await runCliInProcess([...words.slice(2), '--now', NOW]);
    expect(r.status, r.stderr).toBe(0);
    const hinted = (JSON.parse(r.stdout) as { findings: Array<{ fingerprint: string }> }).findings;
    // What the demo scans with: the sample fleet and its settings file.
    const demo = await runScan({ source: { kind: 'offline', fleetDir: SAMPLE_FLEET }, settings: loadAuditSettings(settingsFile), now: new Date(NOW) });
    expect(hinted.map((f) => f.fingerprint).sort()).toEqual(demo.findings.map((f) => f.fingerprint).sort());
  });

  it('forecast whatif -o FILE writes the file and prints its path, like every writing command', async () => {
    const scenario = join(SAMPLE_FLEET, '..', '..', 'scenarios', 'black-friday.yaml');
    const out = join(dir, 'whatif.json');
    const r = await runCliInProcess(['forecast', 'whatif', '--fleet', SAMPLE_FLEET, '--scenario', scenario, '--format', 'json', '-o', out, '--now', NOW]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe(out);
    expect(JSON.parse(readFileSync(out, 'utf8'))).toHaveProperty('steps');
    const table = join(dir, 'whatif.txt');
    const t = await runCliInProcess(['forecast', 'whatif', '--fleet', SAMPLE_FLEET, '--scenario', scenario, '--out', table, '--now', NOW]);
    expect(t.status, t.stderr).toBe(0);
    expect(readFileSync(table, 'utf8')).toContain('Scenario black-friday');
    const headroom = join(dir, 'headroom.json');
    const h = await runCliInProcess(['forecast', 'headroom', '--fleet', SAMPLE_FLEET, '--format', 'json', '-o', headroom, '--now', NOW]);
    expect(h.status, h.stderr).toBe(0);
    expect(JSON.parse(readFileSync(headroom, 'utf8'))).toHaveProperty('headroom');
  });

  it('the what-if table names which quotas changed and counts a Service moved to NLB once', async () => {
    const scenarioFile = join(SAMPLE_FLEET, '..', '..', 'scenarios', 'migrate-to-nlb.yaml');
    const scenario = parse(readFileSync(scenarioFile, 'utf8')) as { steps: Array<{ migrateToNlb?: { services: string[] }; addServices?: { count: number } }> };
    // Every Service the scenario touches, once: the ones moved to NLB plus the ones it adds.
    const distinct = scenario.steps.reduce((n, s) => n + (s.migrateToNlb?.services.length ?? 0) + (s.addServices?.count ?? 0), 0);
    const json = await runCliInProcess(['forecast', 'whatif', '--fleet', SAMPLE_FLEET, '--scenario', scenarioFile, '--format', 'json', '--now', NOW]);
    expect(json.status, json.stderr).toBe(0);
    const result = JSON.parse(json.stdout) as { steps: Array<{ quotas: Array<{ checkId: string }> }>; convergence: { services: number } };
    expect(result.convergence.services).toBe(distinct);
    const table = await runCliInProcess(['forecast', 'whatif', '--fleet', SAMPLE_FLEET, '--scenario', scenarioFile, '--now', NOW], { COLUMNS: '200' });
    expect(table.status, table.stderr).toBe(0);
    expect(table.stdout).toContain(`CCM convergence: ${distinct} Services`);
    const flat = table.stdout.replace(/[│┌┐└┘├┤┬┴┼─]/g, ' ').replace(/\s+/g, '');
    for (const step of result.steps) for (const id of new Set(step.quotas.map((q) => q.checkId))) expect(flat).toContain(id.replace(/\s+/g, ''));
  });

  it('waiver revoke takes a unique id prefix; waiver list keeps each id on one line', async () => {
    const env = { DATABASE_URL: db.url };
    const add = async (resource: string) => {
      const r = await runCliInProcess(
        ['waiver', 'add', '--check', 'LB_ORPHANED', '--account', '1234567890123456', '--resource', resource, '--owner', 'team-x', '--reason', 'accepted for the migration', '--category', 'accepted-risk', '--format', 'json'],
        env,
      );
      expect(r.status, r.stderr).toBe(0);
      return (JSON.parse(r.stdout) as { id: string }).id;
    };
    const ids = [await add('lb-a*'), await add('lb-b*')];
    const list = await runCliInProcess(['waiver', 'list'], { ...env, COLUMNS: '80' });
    expect(list.status, list.stderr).toBe(0);
    for (const id of ids) expect(list.stdout.split('\n').some((l) => l.includes(id.slice(0, 8))), `${id} on one line:\n${list.stdout}`).toBe(true);
    for (const l of list.stdout.split('\n')) expect(l.length).toBeLessThanOrEqual(120);
    const revoked = await runCliInProcess(['waiver', 'revoke', ids[0].slice(0, 8)], env);
    expect(revoked.status, revoked.stderr).toBe(0);
    expect(revoked.stdout).toContain(ids[0]);
    // Too short a prefix is refused (it could name several waivers); an unknown one names what was asked.
    const short = await runCliInProcess(['waiver', 'revoke', ids[1].slice(0, 3)], env);
    expect(short.status).toBe(2);
    expect(short.stderr).toMatch(/at least 4/);
    const none = await runCliInProcess(['waiver', 'revoke', 'ffffffff-no'], env);
    expect(none.status).toBe(2);
    expect(none.stderr).toMatch(/waiver/);
  });
});
