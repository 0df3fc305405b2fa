/**
 * `fleet-audit forecast whatif` with a migrateToNlb scenario on the bundled sample fleet ("Done
 * when"): examples/scenarios/migrate-to-nlb.yaml through the built CLI (in-process, the suite's build). Each step
 * reports the CLB quotas it frees and the NLB quotas it burns, the last one the first breach (the region's
 * nlb_quota_loadbalancers_num, 60), its headroom names the NLB quota that limits NLB Services, and the convergence
 * counts CCM's NLB calls; the table rendering shows the same. A bad Service is exit 2 naming the step and field.
 */
/* eslint-disable @typescript-eslint/no-explicit-any -- the JSON output is walked as the contract shapes it */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, SAMPLE_FLEET, runCliInProcess } from '../cli/cli-run.util';

const SCENARIO = join(ROOT, 'examples', 'scenarios', 'migrate-to-nlb.yaml');
const NOW = '2026-11-20T00:00:00Z';

describe('forecast whatif: migrateToNlb on the sample fleet', () => {
  it('gives per-step quotas, the first breach, NLB headroom and convergence', async () => {
    const r = await runCliInProcess(['forecast', 'whatif', '--fleet', SAMPLE_FLEET, '--scenario', SCENARIO, '--now', NOW, '--format', 'json']);
    expect(r.status, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.steps.map((s: any) => s.name)).toEqual(['1. migrateToNlb', '2. migrateToNlb', '3. addServices']);
    const use = (step: any, checkId: string) => step.quotas.filter((q: any) => q.checkId === checkId).map((q: any) => [q.before.used, q.after.used, q.after.limit]);
    // Step 2: 42 preview environments leave their CLBs (42 of 43 CLB instances of the region) for 42 NLBs.
    const s2 = out.steps[1];
    expect(use(s2, 'CLB_INSTANCE_QUOTA')).toEqual([[43, 1, 50]]);
    expect(use(s2, 'NLB_INSTANCE_QUOTA')).toEqual([[0, 42, 60]]);
    expect(use(s2, 'NLB_SERVER_GROUP_QUOTA')).toEqual([[0, 42, 3000]]);
    expect(s2.firstBreach).toBeNull();
    const h = s2.headroom[0];
    expect(h.clusterName).toBe('preview-envs');
    expect(h.nlbClusterModeServices).toMatchObject({ headroom: 18, limitedBy: { checkId: 'NLB_INSTANCE_QUOTA' } });
    // Step 3: 20 more NLB Services where 18 fit: the first breach is the region's NLB instances.
    expect(out.steps[2].firstBreach).toMatchObject({ checkId: 'NLB_INSTANCE_QUOTA', before: { used: 42 }, after: { used: 62, limit: 60 } });
    expect(out.steps[2].findings.appeared.map((f: any) => f.checkId)).toContain('NLB_INSTANCE_QUOTA');
    // Convergence: CCM deletes the CCM-created CLBs and builds the NLBs with the NLB API.
    expect(out.convergence.callsPerApi).toMatchObject({ DeleteLoadBalancer: 43, 'nlb:CreateLoadBalancer': 64 });
    expect(out.convergence.wallSeconds.p50).toBeGreaterThan(0);

    const table = await runCliInProcess(['forecast', 'whatif', '--fleet', SAMPLE_FLEET, '--scenario', SCENARIO, '--now', NOW]);
    expect(table.status, table.stderr).toBe(0);
    expect(table.stdout).toContain('NLB_INSTANCE_QUOTA');
  }, 300_000);

  it('an unknown Service is exit 2 naming the step, the field and the CLB Services', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'nlbplan-'));
    const bad = join(dir, 'bad.yaml');
    writeFileSync(bad, 'apiVersion: fleet-audit/v1\nkind: Scenario\nname: bad\nsteps:\n  - migrateToNlb: { cluster: data-platform, services: [analytics/nope] }\n');
    const r = await runCliInProcess(['forecast', 'whatif', '--fleet', SAMPLE_FLEET, '--scenario', bad, '--now', NOW]);
    expect(r.status).toBe(2);
    expect(r.stderr).toBe(
      'fleet-audit: error: step 1 (migrateToNlb) field migrateToNlb.services.0: "analytics/nope" is not a Service of the cluster; CLB Services of cluster c75849719d4432e7378507410f099fa74: analytics/superset, monitoring/thanos-query, reporting/metabase\n',
    );
  }, 300_000);
});
