/**
 * The plan as the webhook keeps it (admission-plan.ts) gives the same verdict inputs as the whole plan: the first
 * breach, the findings, and, narrowed to a token's scope (`whatIfInScope`), the same first breach in scope, also when
 * the plan's own first breach is outside the scope.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadFleetDirectory } from '@app/collectors';
import type { ClusterSnapshot, ResourceRef } from '@app/domain';
import { planManifests, readManifests, type PlanResult, type QuotaChange } from '@app/forecast';
import { ALL_ACCOUNTS } from '@app/store';
import { whatIfInScope } from '../forecasts/forecast-scope';
import { admissionPlanOf } from './admission-plan';

const SAMPLE = join(__dirname, '..', '..', '..', '..', 'examples', 'fleets', 'sample');
const NOW = new Date('2026-11-22T00:00:00Z');

/** What the verdict and the scope narrowing read of a plan. */
function verdictInputs(p: PlanResult, inScope?: ReadonlyMap<string, ClusterSnapshot>) {
  const step = inScope ? whatIfInScope({ scenario: 'plan', steps: [p.step], convergence: p.convergence }, inScope, { accountScope: ALL_ACCOUNTS }).steps[0]! : p.step;
  return { cluster: p.cluster, firstBreach: step.firstBreach, findings: step.findings };
}

function quota(id: string, clusterId: string, used: number, limit: number): QuotaChange {
  const resource: ResourceRef = { kind: 'EcsInstance', id, accountId: '1', regionId: 'cn-hangzhou', clusterId };
  return { checkId: 'ECS_LB_ATTACHMENT_QUOTA', resource, before: { used: used - 1, limit, ratio: (used - 1) / limit }, after: { used, limit, ratio: used / limit } };
}

describe('admissionPlanOf', () => {
  it('keeps what the verdict reads of real plans and drops the quotas under their limit', () => {
    const snapshot = loadFleetDirectory(SAMPLE);
    const cluster = snapshot.accounts.flatMap((a) => a.regions.flatMap((r) => r.clusters)).find((c) => c.kubernetes)!;
    const ports = (n: number) => `[${Array.from({ length: n }, (_, i) => `{name: p${i}, port: ${8000 + i}, targetPort: 8080}`).join(', ')}]`;
    let dropped = 0;
    for (const spec of [`ports: ${ports(1)}`, `ports: ${ports(51)}`, `externalTrafficPolicy: Local, ports: ${ports(2)}`]) {
      const text = `apiVersion: v1\nkind: Service\nmetadata: {name: rv, namespace: shop}\nspec: {type: LoadBalancer, selector: {app: rv}, ${spec}}\n`;
      const plan = planManifests(snapshot, readManifests([{ source: 'test', text }]), { cluster: cluster.clusterId, now: NOW });
      const kept = admissionPlanOf(plan);
      expect(verdictInputs(kept)).toEqual(verdictInputs(plan));
      expect(kept.step.quotas).toEqual(plan.step.quotas.filter((q) => q.after.used > q.after.limit));
      dropped += plan.step.quotas.length - kept.step.quotas.length;
    }
    expect(dropped, 'the sample plans move quotas under their limit').toBeGreaterThan(0);
  });

  it('narrows to a scope as the whole plan does when the first breach is outside it', () => {
    const inScope = new Map([['c-in', { clusterId: 'c-in' } as ClusterSnapshot]]);
    const quotas = [quota('i-under', 'c-in', 10, 50), quota('i-out', 'c-out', 51, 50), quota('i-in', 'c-in', 52, 50), quota('i-in-2', 'c-in', 53, 50)];
    const plan = {
      cluster: { id: 'c-in', name: 'in' },
      services: [],
      step: { name: 'plan', quotas, firstBreach: quotas[1]!, findings: { appeared: [], resolved: [], severityChanged: [] }, headroom: [] },
      convergence: {} as PlanResult['convergence'],
      ignored: {},
    } satisfies PlanResult;
    const kept = admissionPlanOf(plan);
    expect(kept.step.quotas.map((q) => q.resource.id)).toEqual(['i-out', 'i-in', 'i-in-2']);
    expect(verdictInputs(kept, inScope)).toEqual(verdictInputs(plan, inScope));
    expect(verdictInputs(kept, inScope).firstBreach?.resource.id).toBe('i-in');
  });
});
