/**
 * `fleet-audit plan` on the bundled sample fleet, as CI runs it (the built CLI): manifests from files, directories
 * and stdin; the verdict and its exit code; each CI format (SARIF against the 2.1.0 schema, JUnit against the Ant XSD);
 * the latest stored scan as the target; bad input as one error line.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateXML } from 'xmllint-wasm';
import { createTestDatabase, type TestDatabase } from '../store/test-database.util';
import { BIN, ROOT, runCliInProcess, SAMPLE_FLEET } from './cli-run.util';

const SCHEMAS = join(ROOT, 'test', 'fixtures', 'schemas');
const SETTINGS = join(SAMPLE_FLEET, 'audit-settings.yaml');
const NOW = '2026-06-01T00:00:00Z';
const common = ['--cluster', 'storefront', '--settings', SETTINGS, '--now', NOW];

/** A LoadBalancer Service of `ports` ports in Cluster mode, and the Deployment selecting it. */
function manifest(name: string, ports: number, extra = ''): string {
  const list = Array.from({ length: ports }, (_, i) => `  - {name: p${i}, port: ${8000 + i}, targetPort: 8080}`).join('\n');
  return [
    'apiVersion: v1',
    'kind: Service',
    `metadata: {name: ${name}, namespace: shop${extra}}`,
    'spec:',
    '  type: LoadBalancer',
    `  selector: {app: ${name}}`,
    '  ports:',
    list,
    '---',
    'apiVersion: apps/v1',
    'kind: Deployment',
    `metadata: {name: ${name}, namespace: shop}`,
    `spec: {replicas: 3, selector: {matchLabels: {app: ${name}}}, template: {metadata: {labels: {app: ${name}}}}}`,
  ].join('\n');
}

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'plan-e2e-'));
  writeFileSync(join(dir, 'small.yaml'), manifest('checkout', 2));
  // 51 listeners on one CLB: over the 50-listener quota (slb_quota_listeners_num); Local mode, so its backends (51
  // ports x the 3 nodes of its pods) stay under the 200-backend quota and the listeners are the first breach.
  writeFileSync(join(dir, 'wide.yaml'), manifest('wide', 51).replace('  type: LoadBalancer', '  type: LoadBalancer\n  externalTrafficPolicy: Local'));
  mkdirSync(join(dir, 'tree', 'nested'), { recursive: true });
  writeFileSync(join(dir, 'tree', 'a.yaml'), manifest('a', 1));
  writeFileSync(join(dir, 'tree', 'nested', 'b.yml'), manifest('b', 1));
  writeFileSync(join(dir, 'tree', 'notes.txt'), 'not a manifest');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('fleet-audit plan', () => {
  it('passes a small Service: the quotas it moves, no breach, exit 0', async () => {
    const r = await runCliInProcess(['plan', '-f', join(dir, 'small.yaml'), '--fleet', SAMPLE_FLEET, ...common, '--fail-on', 'warning']);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('shop/checkout');
    expect(r.stdout).toMatch(/CLB_INSTANCE_QUOTA\s+│ cn-beijing\s+│ 13\/30 \(43%\)\s+│ 14\/30 \(47%\)/);
    expect(r.stdout).toContain('First breach: none');
    expect(r.stdout).toContain('Verdict: pass');
  });

  it('fails a Service that breaches the listener quota, in JSON with the reason; --fail-on none never fails', async () => {
    const r = await runCliInProcess(['plan', '-f', join(dir, 'wide.yaml'), '--fleet', SAMPLE_FLEET, ...common, '--fail-on', 'critical', '--format', 'json']);
    expect(r.status).toBe(1);
    const plan = JSON.parse(r.stdout) as { step: { firstBreach: { checkId: string; after: { used: number; limit: number } } }; verdict: { failed: boolean; reasons: string[] } };
    expect(plan.step.firstBreach).toMatchObject({ checkId: 'CLB_LISTENER_QUOTA', after: { used: 51, limit: 50 } });
    expect(plan.verdict.failed).toBe(true);
    expect(plan.verdict.reasons[0]).toMatch(/^breach: CLB_LISTENER_QUOTA lb-\S+ 0 -> 51 of 50$/);
    const lenient = await runCliInProcess(['plan', '-f', join(dir, 'wide.yaml'), '--fleet', SAMPLE_FLEET, ...common, '--fail-on', 'none']);
    expect(lenient.status).toBe(0);
    expect(lenient.stdout).toContain('First breach: CLB_LISTENER_QUOTA');
  });

  it('SARIF validates against the 2.1.0 schema and locates the breach in the manifest file', async () => {
    const r = await runCliInProcess(['plan', '-f', join(dir, 'wide.yaml'), '--fleet', SAMPLE_FLEET, ...common, '--format', 'sarif']);
    const ajv = new Ajv({ strict: false });
    addFormats(ajv);
    const validate = ajv.compile(JSON.parse(readFileSync(join(SCHEMAS, 'sarif-schema-2.1.0.json'), 'utf8')) as object);
    const log = JSON.parse(r.stdout) as { runs: { results: { ruleId: string; level: string; locations: { physicalLocation: { artifactLocation: { uri: string } } }[] }[] }[] };
    expect(validate(log), JSON.stringify(validate.errors)).toBe(true);
    const breach = log.runs[0]!.results.find((x) => x.ruleId === 'CLB_LISTENER_QUOTA')!;
    expect(breach.level).toBe('error');
    expect(breach.locations[0]!.physicalLocation.artifactLocation.uri).toBe(join(dir, 'wide.yaml'));
  });

  it('JUnit validates against the Ant XSD, the breach a failure', async () => {
    const r = await runCliInProcess(['plan', '-f', join(dir, 'wide.yaml'), '--fleet', SAMPLE_FLEET, ...common, '--format', 'junit', '--fail-on', 'critical']);
    const xsd = readFileSync(join(SCHEMAS, 'JUnit.xsd'), 'utf8');
    const v = await validateXML({ xml: [{ fileName: 'plan.xml', contents: r.stdout }], schema: [{ fileName: 'JUnit.xsd', contents: xsd }] });
    expect(v.errors, v.rawOutput).toEqual([]);
    expect(r.stdout).toMatch(/<testcase classname="CLB_LISTENER_QUOTA" [^>]*>\s*<failure type="breach" message="0 -&gt; 51 of 50"/);
  });

  it('reads a directory as kubectl does: -R for subdirectories, only manifest files', async () => {
    const flat = await runCliInProcess(['plan', '-f', join(dir, 'tree'), '--fleet', SAMPLE_FLEET, ...common, '--format', 'json']);
    expect((JSON.parse(flat.stdout) as { services: { service: string }[] }).services.map((s) => s.service)).toEqual(['shop/a']);
    const deep = await runCliInProcess(['plan', '-f', join(dir, 'tree'), '-R', '--fleet', SAMPLE_FLEET, ...common, '--format', 'json']);
    expect((JSON.parse(deep.stdout) as { services: { service: string; source: string }[] }).services.map((s) => [s.service, s.source])).toEqual([
      ['shop/a', `${join(dir, 'tree', 'a.yaml')} document 1`],
      ['shop/b', `${join(dir, 'tree', 'nested', 'b.yml')} document 1`],
    ]);
  });

  it('reads Helm output on stdin (-f -), as a pipe in CI', () => {
    const r = spawnSync(process.execPath, [BIN, 'plan', '-f', '-', '--fleet', SAMPLE_FLEET, ...common, '--format', 'markdown'], { input: manifest('piped', 1), encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('### fleet-audit plan: passes on cluster storefront');
    expect(r.stdout).toContain('| shop/piped | create | 3 |');
  });

  it('bad input is one error line naming the file, the document and the field, exit 2', async () => {
    const bad = join(dir, 'bad.yaml');
    writeFileSync(bad, manifest('bad', 1).replace('port: 8000', 'port: "http"'));
    const r = await runCliInProcess(['plan', '-f', bad, '--fleet', SAMPLE_FLEET, ...common]);
    expect(r.status).toBe(2);
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/^fleet-audit: error: .*bad\.yaml document 1: invalid Service field spec\.ports\.0\.port: /);
    const unknown = await runCliInProcess(['plan', '-f', join(dir, 'small.yaml'), '--fleet', SAMPLE_FLEET, '--cluster', 'nope']);
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toContain('--cluster: ');
    const missing = await runCliInProcess(['plan', '-f', join(dir, 'missing.yaml'), '--fleet', SAMPLE_FLEET, '--cluster', 'storefront']);
    expect(missing.stderr.trim()).toBe(`fleet-audit: error: -f ${join(dir, 'missing.yaml')}: no such file or directory`);
  });

  describe('against the latest stored scan', () => {
    let db: TestDatabase;
    beforeAll(async () => {
      db = await createTestDatabase();
      const stored = await runCliInProcess(['scan', '--fleet', SAMPLE_FLEET, '--settings', SETTINGS, '--now', NOW, '--database-url', db.url, '--format', 'json']);
      expect(stored.status, stored.stderr).toBe(0);
    });
    afterAll(async () => db?.release());

    it('gives the same answer as the fleet directory it was scanned from, and deletes a Service', async () => {
      const fromDir = await runCliInProcess(['plan', '-f', join(dir, 'small.yaml'), '--fleet', SAMPLE_FLEET, ...common, '--format', 'json']);
      const fromDb = await runCliInProcess(['plan', '-f', join(dir, 'small.yaml'), '--database-url', db.url, '--cluster', 'storefront', '--settings', SETTINGS, '--format', 'json']);
      expect(fromDb.stderr).toBe('');
      expect((JSON.parse(fromDb.stdout) as { step: unknown }).step).toEqual((JSON.parse(fromDir.stdout) as { step: unknown }).step);
      const del = await runCliInProcess(['plan', '-f', join(dir, 'small.yaml'), '--delete', 'shop/nope', '--database-url', db.url, '--cluster', 'storefront']);
      expect(del.status).toBe(2);
      expect(del.stderr).toContain('"shop/nope" is not a Service of cluster c81faa03ae9366a2df0093610b2aca766');
    });
  });
});
