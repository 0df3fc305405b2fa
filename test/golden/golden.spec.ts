/**
 * Golden outputs: behaviour-preserving changes (refactorings of the rule engine, the scan use case, the
 * generators) must leave what a scan says byte-identical.
 *
 * - `sample-scan.golden.json`: `fleet-audit scan --fleet examples/fleets/sample --settings
 *   examples/fleets/sample/audit-settings.yaml --format json --now 2026-11-22T00:00:00Z` (the settings
 *   `demo` uses), with the scan id and the wall-clock start/finish times replaced by placeholders.
 * - `audit-digests.json`: per check, the sha256 of its part of `runAudit`'s output (its pass/fail/skipped
 *   results and its findings, in output order) as JSON, for every check fixture (libs/checks/test/fixtures and a
 *   kind folder's `src/kinds/<kind>/fixtures`: check-fixture-folders.util.ts;
 *   all checks enabled, the fixture's settings) and for generated fleets shaped like the benchmark's and like
 *   the generator spec's. Every check still runs on every input; a check with no output on an input has no
 *   line, so a new check (with its fixtures) adds lines and rewrites none. The order across checks, which the
 *   per-check digests do not see, is asserted as a property (`expectOutputOrder`).
 *
 * A change that alters findings on purpose (a fingerprint scheme, a CCM model fix) regenerates both with
 * `npm run golden:update` and says why in its commit message; see test/golden/README.md.
 * Needs the built CLI (`npx nest build cli`).
 */
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CHECKS, runAudit, type AuditOutput, type PartialAuditSettings } from '@app/checks';
import { generateFleet, generateSpecSchema } from '@app/collectors';
import { mapWireFleet, severityRank, type CheckResult, type Finding, type FleetSnapshot } from '@app/domain';
import { checkFixtureFolders } from '../../libs/checks/test/check-fixture-folders.util';
import { FROZEN_NOW } from '../../libs/checks/test/factories';
import { SAMPLE_FLEET, runCliInProcess } from '../cli/cli-run.util';

const HERE = __dirname;
const SCAN_GOLDEN = join(HERE, 'sample-scan.golden.json');
const DIGESTS_GOLDEN = join(HERE, 'audit-digests.json');
const UPDATE = process.env['GOLDEN_UPDATE'] === '1';
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

/**
 * Per-check digests of one input, keyed by check id: the first 16 hex digits (64 bits: enough to detect a
 * change, and the file stays readable) of the sha256 of that check's results and findings, in output order.
 */
type CheckDigests = Record<string, string>;

/**
 * Split an audit output by check and digest each part (checks without any result or finding are left out).
 * Also asserts the order across checks (see `expectOutputOrder`), which the per-check parts no longer carry.
 */
function digestsByCheck(out: AuditOutput): CheckDigests {
  expectOutputOrder(out);
  const parts = new Map<string, { results: CheckResult[]; findings: Finding[] }>();
  const part = (checkId: string) => {
    let p = parts.get(checkId);
    if (!p) parts.set(checkId, (p = { results: [], findings: [] }));
    return p;
  };
  for (const r of out.results) part(r.checkId).results.push(r);
  for (const f of out.findings) part(f.checkId).findings.push(f);
  const digests: CheckDigests = {};
  for (const id of [...parts.keys()].sort()) digests[id] = digest(parts.get(id)).slice(0, 16);
  return digests;
}

/** `runAudit`'s documented order: results by check id (then resource), findings by severity (critical first), then check id. */
function expectOutputOrder(out: AuditOutput): void {
  const resultChecks = out.results.map((r) => r.checkId);
  expect(resultChecks).toEqual([...resultChecks].sort());
  const findingKeys = out.findings.map((f) => [-severityRank(f.severity), f.checkId] as const);
  const sorted = [...findingKeys].sort((a, b) => a[0] - b[0] || (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0));
  expect(findingKeys).toEqual(sorted);
}

/** Per-check digests of every check fixture's audit output, keyed `<CHECK_ID>/<file>` (the fixture). */
function fixtureDigests(): Record<string, CheckDigests> {
  const out: Record<string, CheckDigests> = {};
  for (const { checkId, dir } of checkFixtureFolders())
    for (const file of readdirSync(dir).sort()) {
      const doc = JSON.parse(readFileSync(join(dir, file), 'utf8')) as {
        settings?: PartialAuditSettings;
        snapshot: FleetSnapshot;
      };
      out[`${checkId}/${file}`] = digestsByCheck(runAudit(doc.snapshot, { now: FROZEN_NOW, ...(doc.settings ? { settings: doc.settings } : {}) }));
    }
  return out;
}

/** Per-check digests of generated fleets: the benchmark's shape (scaled down to 40 clusters) and the mixed shape of test/generate. */
function generatedDigests(): Record<string, CheckDigests> {
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
  const out: Record<string, CheckDigests> = {};
  for (const [name, raw] of Object.entries(shapes)) {
    const snapshot = mapWireFleet(generateFleet(generateSpecSchema.parse(raw), name).fleet);
    out[name] = digestsByCheck(runAudit(snapshot, { now: GENERATED_NOW }));
  }
  return out;
}

describe('golden outputs', () => {
  it('the sample fleet scan JSON is byte-identical to sample-scan.golden.json', async () => {
    const r = await runCliInProcess([
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

  it('every check audits every check fixture and the generated fleets to its digests in audit-digests.json', () => {
    const actual = { fixtures: fixtureDigests(), generated: generatedDigests() };
    const text = JSON.stringify(actual, null, 2) + '\n';
    if (UPDATE) writeFileSync(DIGESTS_GOLDEN, text);
    const golden = JSON.parse(readFileSync(DIGESTS_GOLDEN, 'utf8')) as typeof actual;
    expect(Object.keys(actual.fixtures).length).toBeGreaterThan(100);
    // Every registered check has output on at least one input: none escapes the golden outputs.
    const covered = new Set(Object.values({ ...actual.fixtures, ...actual.generated }).flatMap((d) => Object.keys(d)));
    expect(CHECKS.map((c) => c.id).filter((id) => !covered.has(id))).toEqual([]);
    expect(actual).toEqual(golden);
  });
});
