/**
 * The NLB check fixtures (test/fixtures/<CHECK>/*.json) as a starting point for table cases: a fresh copy of a
 * fixture's snapshot with handles on its one region and cluster, and a runner of one check over it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { CHECKS, runAudit, type PartialAuditSettings } from '@app/checks';
import type { CheckResult, ClusterSnapshot, FleetSnapshot, KubernetesSnapshot, RegionSnapshot } from '@app/domain';
import { FROZEN_NOW } from './factories';

/** A fixture's snapshot (a fresh copy per call) and its first region, cluster and Kubernetes objects. */
export interface NlbFixture {
  snapshot: FleetSnapshot;
  region: RegionSnapshot;
  cluster: ClusterSnapshot;
  kubernetes: KubernetesSnapshot;
}

/** Reads `test/fixtures/<checkId>/<file>.json` (a fresh object each call, free to modify). */
export function nlbFixture(checkId: string, file: string): NlbFixture {
  const path = join(__dirname, 'fixtures', checkId, `${file}.json`);
  const { snapshot } = JSON.parse(readFileSync(path, 'utf8')) as { snapshot: FleetSnapshot };
  const region = snapshot.accounts[0]!.regions[0]!;
  const cluster = region.clusters[0]!;
  return { snapshot, region, cluster, kubernetes: cluster.kubernetes! };
}

/** Runs one check (every other disabled) and returns its results. */
export function runCheck(checkId: string, snapshot: FleetSnapshot, settings: PartialAuditSettings = {}): CheckResult[] {
  const checks: NonNullable<PartialAuditSettings['checks']> = { ...settings.checks };
  for (const c of CHECKS) if (c.id !== checkId) checks[c.id] = { enabled: false };
  return runAudit(snapshot, { now: FROZEN_NOW, settings: { ...settings, checks } }).results;
}

/**
 * The one result `checkId` gives on `snapshot` (with `settings`): fails the calling test when there are none or several.
 * @throws the assertion error of `expect` when the check gives other than exactly one result
 */
export function onlyResult(checkId: string, snapshot: FleetSnapshot, settings: PartialAuditSettings = {}): CheckResult {
  const rs = runCheck(checkId, snapshot, settings);
  expect(rs).toHaveLength(1);
  return rs[0]!;
}

/**
 * The results of `checkId` alone on `snapshot` with its fast paths on and off, which must be equal (the calling test
 * fails otherwise): the one result for the resource `resourceId` (undefined when there is none; more than one fails
 * the test) and whether a fast path was taken.
 */
export function judgeWithAndWithoutFastPaths(checkId: string, resourceId: string, snapshot: FleetSnapshot): { result: CheckResult | undefined; fast: boolean } {
  const checks: NonNullable<PartialAuditSettings['checks']> = {};
  for (const c of CHECKS) if (c.id !== checkId) checks[c.id] = { enabled: false };
  const on = { enabled: true, taken: 0 };
  const withFast = runAudit(snapshot, { now: FROZEN_NOW, settings: { checks }, fastPaths: on }).results;
  const off = { enabled: false, taken: 0 };
  const without = runAudit(snapshot, { now: FROZEN_NOW, settings: { checks }, fastPaths: off }).results;
  expect(withFast).toEqual(without);
  expect(off.taken).toBe(0);
  const mine = withFast.filter((r) => r.resource.id === resourceId);
  expect(mine.length).toBeLessThanOrEqual(1);
  return { result: mine[0], fast: on.taken === 1 };
}
