/**
 * Golden outputs: behaviour-preserving changes (refactorings of the rule engine, the scan use case, the
 * generators) must leave what a scan says byte-identical.
 *
 * - `sample-scan.golden.json`: `fleet-audit scan --fleet examples/fleets/sample --settings
 *   examples/fleets/sample/audit-settings.yaml --format json --now 2026-11-22T00:00:00Z` (the settings
 *   `demo` uses), with the scan id and the wall-clock start/finish times replaced by placeholders.
 * - `audit-digests.json`: the sha256 of `runAudit`'s whole output (findings and every pass/fail/skipped
 *   result) as JSON, for every check fixture (libs/checks/test/fixtures, all checks enabled, the
 *   fixture's settings) and for generated fleets shaped like the benchmark's and like the generator spec's.
 *
 * A change that alters findings on purpose (a fingerprint scheme, a CCM model fix) regenerates both with
 * `npm run golden:update` and says why in its commit message; see test/golden/README.md.
 * Needs the built CLI (`npx nest build cli`).
 */
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runAudit, type PartialAuditSettings } from '@app/checks';
import { generateFleet, generateSpecSchema } from '@app/collectors';
import { mapWireFleet, type FleetSnapshot } from '@app/domain';
import { FROZEN_NOW } from '../../libs/checks/test/factories';
import { ROOT, SAMPLE_FLEET, runCli } from '../cli/cli-run.util';

const HERE = __dirname;
const SCAN_GOLDEN = join(HERE, 'sample-scan.golden.json');
const DIGESTS_GOLDEN = join(HERE, 'audit-digests.json');
const UPDATE = process.env['GOLDEN_UPDATE'] === '1';
const FIXTURES = join(ROOT, 'libs', 'checks', 'test', 'fixtures');
const GENERATED_NOW = new Date('2026-11-22T00:00:00Z');

/** The scan JSON with the run-specific values (id, wall-clock times) replaced by placeholders. */
function normaliseScan(stdout: string): string {
  const doc = JSON.parse(stdout) as { scan: Record<string, unknown> };
  doc.scan['id'] = '<scan-id>';
  doc.scan['startedAt'] = '<started-at>';
  doc.scan['finishedAt'] = '<finished-at>';
  return JSON.stringify(doc, null, 2) + '\n';
}

/** sha256 (hex) of a value's JSON text. */
function digest(value: unknown): string {
  return createHash('sha256').update(JSON.stringify(value)).digest('hex');
}

/** Digest of every check fixture's audit output, keyed `<CHECK_ID>/<file>`. */
function fixtureDigests(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const dir of readdirSync(FIXTURES).sort())
    for (const file of readdirSync(join(FIXTURES, dir)).sort()) {
      const doc = JSON.parse(readFileSync(join(FIXTURES, dir, file), 'utf8')) as {
        settings?: PartialAuditSettings;
        snapshot: FleetSnapshot;
      };
      out[`${dir}/${file}`] = digest(runAudit(doc.snapshot, { now: FROZEN_NOW, ...(doc.settings ? { settings: doc.settings } : {}) }));
    }
  return out;
}

/** Digest of generated fleets: the benchmark's shape (scaled down to 40 clusters) and the mixed shape of test/generate. */
function generatedDigests(): Record<string, string> {
  const shapes: Record<string, unknown> = {
    'bench-shape': {
      seed: 42,
      accounts: 10,
      regions: ['cn-hangzhou'],
      clusters: 40,
      nodesPerCluster: 100,
      servicesPerCluster: 11,
      podsPerService: 3,
      trafficPolicy: { cluster: 0.95, local: 0.05, eni: 0 },
      ccmVersions: ['v2.12.3', 'v1.9.3.313-g748f81e-aliyun'],
      shares: { orphaned: 0.02, reused: 0.02, misconfigured: 0.05, consoleReused: 0.05 },
    },
    'mixed-shape': {
      seed: 11,
      accounts: 2,
      regions: ['cn-hangzhou', 'cn-beijing'],
      clusters: 8,
      nodesPerCluster: 6,
      servicesPerCluster: 30,
      trafficPolicy: { cluster: 0.6, local: 0.2, eni: 0.2 },
      ccmVersions: ['v2.12.3', 'v1.9.3.313-g748f81e-aliyun', 'v2.1.0'],
      shares: { orphaned: 0.1, reused: 0.1, misconfigured: 0.2, consoleReused: 0.2 },
    },
  };
  const out: Record<string, string> = {};
  for (const [name, raw] of Object.entries(shapes)) {
    const snapshot = mapWireFleet(generateFleet(generateSpecSchema.parse(raw), name).fleet);
    out[name] = digest(runAudit(snapshot, { now: GENERATED_NOW }));
  }
  return out;
}

describe('golden outputs', () => {
  it('the sample fleet scan JSON is byte-identical to sample-scan.golden.json', () => {
    const r = runCli([
      'scan',
      '--fleet',
      SAMPLE_FLEET,
      '--settings',
      join(SAMPLE_FLEET, 'audit-settings.yaml'),
      '--format',
      'json',
      '--now',
      GENERATED_NOW.toISOString(),
      '--no-progress',
    ]);
    expect(r.stderr).toBe('');
    const actual = normaliseScan(r.stdout);
    if (UPDATE) writeFileSync(SCAN_GOLDEN, actual);
    expect(actual).toBe(readFileSync(SCAN_GOLDEN, 'utf8'));
  });

  it('every check fixture and the generated fleets audit to the digests in audit-digests.json', () => {
    const actual = { fixtures: fixtureDigests(), generated: generatedDigests() };
    const text = JSON.stringify(actual, null, 2) + '\n';
    if (UPDATE) writeFileSync(DIGESTS_GOLDEN, text);
    const golden = JSON.parse(readFileSync(DIGESTS_GOLDEN, 'utf8')) as typeof actual;
    expect(Object.keys(actual.fixtures).length).toBeGreaterThan(100);
    expect(actual).toEqual(golden);
  });
});
