/**
 * The sample fleet's contract with the check catalogue (examples/fleets/sample/README.md): each of the
 * ten headline checks finds the resource the README names, and the controls beside them stay silent.
 * If a check id here loses its finding, first suspect the data (regenerate with generate.mjs), then
 * the check.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runAudit } from '@app/checks';
import { loadFleetDirectory } from '@app/collectors';
import type { CheckResult, Finding, FleetSnapshot } from '@app/domain';

const SAMPLE = join(__dirname, '..', '..', 'examples', 'fleets', 'sample');
const NOW = new Date('2026-11-22T00:00:00Z');

const TEN_CHECKS = [
  'CLB_BACKEND_QUOTA',
  'ECS_LB_ATTACHMENT_QUOTA',
  'CLUSTER_MODE_BLOWUP',
  'NODEPORT_EPHEMERAL_OVERLAP',
  'NODEPORT_IN_EPHEMERAL_RANGE',
  'LB_ORPHANED',
  'LB_REUSE_OF_CCM_CREATED',
  'LB_REUSE_CROSS_VPC',
  'CCM_ANNOTATION_UNSUPPORTED',
  'CCM_RAM_PERMISSION_GAP',
] as const;

interface ClusterIds {
  clusterId: string;
  apiServerLoadBalancerId: string;
  services: Record<string, { uid: string; loadBalancerId?: string }>;
  orphanLoadBalancerId?: string;
}
interface Ids {
  'payments-legacy': ClusterIds;
  storefront: ClusterIds;
  'data-platform': ClusterIds;
  'preview-envs': ClusterIds;
  consoleLoadBalancer: { loadBalancerId: string };
  sharedServicesLoadBalancer: { loadBalancerId: string };
}

let snapshot: FleetSnapshot;
let findings: Finding[];
let results: CheckResult[];
let ids: Ids;

const of = (checkId: string) => findings.filter((f) => f.checkId === checkId);
const resourceIds = (checkId: string) => of(checkId).map((f) => f.resource.id);

beforeAll(() => {
  snapshot = loadFleetDirectory(SAMPLE);
  ({ findings, results } = runAudit(snapshot, { now: NOW }));
  ids = JSON.parse(readFileSync(join(SAMPLE, 'ids.json'), 'utf8')) as Ids;
});

describe('sample fleet x check catalogue: every headline check fires', () => {
  it.each(TEN_CHECKS)('%s has at least one finding', (checkId) => {
    expect(of(checkId).length).toBeGreaterThanOrEqual(1);
  });

  it('none of the ten checks skips anything on the sample fleet (the data they need is all there)', () => {
    const skipped = results.filter(
      (r) => (TEN_CHECKS as readonly string[]).includes(r.checkId) && r.status === 'skipped',
    );
    expect(skipped.map((r) => `${r.checkId} ${r.resource.id}: ${r.reason ?? ''}`)).toEqual([]);
  });

  it('the findings are on the resources the README names', () => {
    const pl = ids['payments-legacy'];
    expect(resourceIds('CLB_BACKEND_QUOTA')).toContain(
      pl.services['payments/checkout-gateway'].loadBalancerId,
    );
    expect(resourceIds('CLUSTER_MODE_BLOWUP')).toContain('payments/checkout-gateway');
    expect(resourceIds('NODEPORT_EPHEMERAL_OVERLAP')).toContain(pl.clusterId);
    expect(resourceIds('NODEPORT_IN_EPHEMERAL_RANGE')).toEqual(
      expect.arrayContaining(['payments/ledger-api', 'kube-system/nginx-ingress-lb']),
    );
    expect(resourceIds('CCM_ANNOTATION_UNSUPPORTED')).toContain('payments/ledger-api');
    expect(resourceIds('CCM_RAM_PERMISSION_GAP')).toContain(pl.clusterId);
    expect(resourceIds('LB_ORPHANED')).toContain(ids.storefront.orphanLoadBalancerId);
    expect(resourceIds('LB_REUSE_OF_CCM_CREATED')).toContain('reporting/metabase');
    expect(resourceIds('LB_REUSE_CROSS_VPC')).toContain('monitoring/thanos-query');
    const previewNodes = snapshot.accounts
      .flatMap((a) => a.regions.flatMap((r) => r.clusters))
      .find((c) => c.clusterId === ids['preview-envs'].clusterId)
      ?.kubernetes?.nodes.map((n) => n.ecsInstanceId);
    expect(resourceIds('ECS_LB_ATTACHMENT_QUOTA').sort()).toEqual([...(previewNodes ?? [])].sort());
  });

  it('the quota findings carry the figures the README quotes', () => {
    const clb = of('CLB_BACKEND_QUOTA').find(
      (f) => f.resource.id === ids['payments-legacy'].services['payments/checkout-gateway'].loadBalancerId,
    );
    expect({ used: clb?.used, limit: clb?.limit, severity: clb?.severity }).toEqual({
      used: 168,
      limit: 200,
      severity: 'warning',
    });
    for (const f of of('ECS_LB_ATTACHMENT_QUOTA'))
      expect({ used: f.used, limit: f.limit }).toEqual({ used: 42, limit: 50 });
  });
});

describe('sample fleet x check catalogue: the controls stay silent', () => {
  it('LB_ORPHANED: API server CLBs, the console-created CLB and the reused shared-services CLB are not orphans', () => {
    const orphans = resourceIds('LB_ORPHANED');
    const controls = [
      ...(['payments-legacy', 'storefront', 'data-platform', 'preview-envs'] as const).map(
        (c) => ids[c].apiServerLoadBalancerId,
      ),
      ids.consoleLoadBalancer.loadBalancerId,
      ids.sharedServicesLoadBalancer.loadBalancerId,
    ];
    for (const id of controls) expect(orphans, id).not.toContain(id);
    expect(orphans).toEqual([ids.storefront.orphanLoadBalancerId]);
  });

  it('CLUSTER_MODE_BLOWUP: Local-mode and ENI-mode Services, and the 3-node preview cluster, have no blowup', () => {
    const blown = resourceIds('CLUSTER_MODE_BLOWUP');
    for (const s of [
      'payments/ledger-api',
      'kube-system/nginx-ingress-lb',
      'ingress-nginx/ingress-nginx-controller',
      'analytics/superset',
    ])
      expect(blown, s).not.toContain(s);
    expect(
      of('CLUSTER_MODE_BLOWUP').filter((f) => f.resource.clusterId === ids['preview-envs'].clusterId),
    ).toEqual([]);
  });

  it('CCM_RAM_PERMISSION_GAP: managed clusters (ACK Pro / Basic) have no RAM gap', () => {
    for (const c of ['storefront', 'data-platform', 'preview-envs'] as const)
      expect(resourceIds('CCM_RAM_PERMISSION_GAP')).not.toContain(ids[c].clusterId);
  });

  it('NodePort checks: clusters with the default range and Services with NodePorts below 32768 are clean', () => {
    for (const c of ['storefront', 'data-platform', 'preview-envs'] as const) {
      expect(resourceIds('NODEPORT_EPHEMERAL_OVERLAP')).not.toContain(ids[c].clusterId);
      expect(
        of('NODEPORT_IN_EPHEMERAL_RANGE').filter((f) => f.resource.clusterId === ids[c].clusterId),
      ).toEqual([]);
    }
    expect(resourceIds('NODEPORT_IN_EPHEMERAL_RANGE')).not.toContain('payments/checkout-gateway');
  });

  it('quota checks: only the checkout-gateway CLB is near its backend quota; payments-legacy nodes are far from the attachment quota', () => {
    expect(resourceIds('CLB_BACKEND_QUOTA')).toEqual([
      ids['payments-legacy'].services['payments/checkout-gateway'].loadBalancerId,
    ]);
    expect(of('ECS_LB_ATTACHMENT_QUOTA').filter((f) => f.resource.regionId === 'cn-hangzhou')).toEqual([]);
  });

  it('reuse checks: each fires on its own Service only (the CCM-created CLB is not cross-VPC, the other VPC CLB is not CCM-created)', () => {
    expect(resourceIds('LB_REUSE_OF_CCM_CREATED')).toEqual(['reporting/metabase']);
    expect(resourceIds('LB_REUSE_CROSS_VPC')).toEqual(['monitoring/thanos-query']);
    expect(of('LB_REUSE_OF_APISERVER')).toEqual([]);
  });

  it('CCM_ANNOTATION_UNSUPPORTED: annotations the installed CCM supports (spec on v1.9.3, reuse on v2.12.3) are not flagged', () => {
    expect(resourceIds('CCM_ANNOTATION_UNSUPPORTED')).toEqual(['payments/ledger-api']);
  });
});
