/**
 * Negative control for LB_ORPHANED: a CCM-created NLB whose Service is gone is NLB_ORPHANED's finding,
 * never LB_ORPHANED's as well (LB_ORPHANED judges CLBs only), so one orphan is reported once. Input: the fixture
 * `LB_ORPHANED/pass.nlb-orphan-is-not-a-clb-orphan.json` (an orphaned NLB and a CLB owned by a live Service).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { FleetSnapshot } from '@app/domain';
import { runAudit } from '@app/checks';
import { FROZEN_NOW } from './factories';

const FIXTURE = join(__dirname, 'fixtures', 'LB_ORPHANED', 'pass.nlb-orphan-is-not-a-clb-orphan.json');
const NLB_ID = 'nlb-web0000000000000001';

describe('LB_ORPHANED and NLB_ORPHANED on an orphaned NLB', () => {
  const { snapshot } = JSON.parse(readFileSync(FIXTURE, 'utf8')) as { snapshot: FleetSnapshot };
  const { results, findings } = runAudit(snapshot, { now: FROZEN_NOW });

  it('NLB_ORPHANED reports the NLB whose Service is gone', () => {
    const nlbOrphan = results.filter((r) => r.checkId === 'NLB_ORPHANED' && r.resource.id === NLB_ID);
    expect(nlbOrphan.map((r) => r.status)).toEqual(['fail']);
  });

  it('LB_ORPHANED has no result for the NLB, only a pass for the owned CLB, and the NLB is one finding', () => {
    const lbOrphaned = results.filter((r) => r.checkId === 'LB_ORPHANED');
    expect(lbOrphaned.map((r) => [r.resource.kind, r.resource.id, r.status])).toEqual([
      ['LoadBalancer', 'lb-owned', 'pass'],
    ]);
    expect(
      findings
        .filter((f) => f.resource.id === NLB_ID && f.checkId.endsWith('_ORPHANED'))
        .map((f) => f.checkId),
    ).toEqual(['NLB_ORPHANED']);
  });
});
