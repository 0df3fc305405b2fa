/**
 * The one-Service filter of an audit run (`RunAuditOptions.serviceFilter`, check-scope.ts): the `service` scope checks
 * it names judge only the Services it accepts, each with the same result as in a run without it; every other check,
 * and every result that is not a Service's, is as in a run without it.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadFleetDirectory } from '@app/collectors';
import { runAudit } from './audit.engine';

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
