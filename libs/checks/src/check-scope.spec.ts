/**
 * The one-Service filter of an audit run (`RunAuditOptions.serviceFilter`, check-scope.ts): the `service` scope checks
 * it names judge only the Services it accepts, each with the same result as in a run without it; every other check,
 * and every result that is not a Service's, is as in a run without it.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadFleetDirectory } from '@app/collectors';
import type { CheckResult } from '@app/domain';
import { runAudit, statusCountsOf } from './audit.engine';
import { resolveAuditSettings } from './audit-settings.util';
import { CHECKS, CHECK_IDS } from './check.registry';
import { FleetIndex } from './fleet-index';
import { resultSinkOf } from './check-scope';

const SAMPLE = join(__dirname, '..', '..', '..', 'examples', 'fleets', 'sample');
const NOW = new Date('2026-11-22T00:00:00Z');

describe('ServiceFilter', () => {
  it('narrows the named service-scope checks to the accepted Services; the rest of the run is unchanged', () => {
    const snapshot = loadFleetDirectory(SAMPLE);
    const all = runAudit(snapshot, { now: NOW });
    const blowup = all.results.filter((r) => r.checkId === 'CLUSTER_MODE_BLOWUP' && r.resource.kind === 'Service');
    expect(blowup.length).toBeGreaterThan(2);
    const chosen = blowup[1]!.resource;
    const filtered = runAudit(snapshot, {
      now: NOW,
      serviceFilter: {
        checkIds: new Set(['CLUSTER_MODE_BLOWUP']),
        accepts: (se) => se.cluster.cluster.clusterId === chosen.clusterId && se.service.namespace === chosen.namespace && se.service.name === chosen.name,
      },
    });
    const judged = (out: typeof all) => out.results.filter((r) => r.checkId === 'CLUSTER_MODE_BLOWUP' && r.resource.kind === 'Service');
    expect(judged(filtered)).toEqual([blowup[1]]);
    const rest = (out: typeof all) => JSON.stringify(out.results.filter((r) => !(r.checkId === 'CLUSTER_MODE_BLOWUP' && r.resource.kind === 'Service')));
    expect(rest(filtered)).toBe(rest(all));
    const otherFindings = (out: typeof all) => JSON.stringify(out.findings.filter((f) => f.checkId !== 'CLUSTER_MODE_BLOWUP'));
    expect(otherFindings(filtered)).toBe(otherFindings(all));
  });
});

describe('pass tally (CheckContext.passTally, resultSinkOf)', () => {
  const result = (status: CheckResult['status'], id: string): CheckResult => ({
    checkId: 'X',
    status,
    severity: 'warning',
    resource: { kind: 'Service', id, accountId: '1', regionId: 'r' },
    message: id,
  });

  it('without a tally, the sink is the list; with one, passes are counted and every other result kept in order', () => {
    const plain = resultSinkOf(undefined);
    expect(plain.sink).toBe(plain.results);
    const tally = { passes: 0 };
    const { sink, results } = resultSinkOf(tally);
    const pushed = [result('pass', 'a'), result('fail', 'b'), result('pass', 'c'), result('skipped', 'd'), result('fail', 'e')];
    for (const r of pushed) sink.push(r);
    expect(tally.passes).toBe(2);
    expect(results).toEqual([pushed[1], pushed[3], pushed[4]]);
  });

  it('every check of the sample fleet, given a tally, counts the passes it returns without one and returns the rest in order', () => {
    const snapshot = loadFleetDirectory(SAMPLE);
    const ctx = { snapshot, index: FleetIndex.build(snapshot), now: NOW, settings: resolveAuditSettings(undefined, CHECK_IDS) };
    let counted = 0;
    for (const check of CHECKS) {
      const every = check.evaluate(ctx);
      const tally = { passes: 0 };
      const rest = check.evaluate({ ...ctx, passTally: tally });
      expect(rest, check.id).toEqual(every.filter((r) => r.status !== 'pass'));
      expect(tally.passes, check.id).toBe(every.filter((r) => r.status === 'pass').length);
      if (tally.passes > 0) counted++;
    }
    // Most checks pass somewhere on this fleet, combined CLB + NLB checks included.
    expect(counted).toBeGreaterThan(30);
    const lean = runAudit(snapshot, { now: NOW, keepResultsOf: new Set() });
    const all = runAudit(snapshot, { now: NOW });
    expect(lean.counts).toEqual(statusCountsOf(all.results));
    expect(lean.findings).toEqual(all.findings);
  });
});
