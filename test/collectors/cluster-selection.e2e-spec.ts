/**
 * `clusters.include` / `clusters.exclude` through the official clients against the simulator: an
 * excluded cluster is never dialled, stays in the fleet with `absent` datasets naming the entry that
 * leaves it out (no Kubernetes objects, so checks that need them skip it); `scan --dry-run`'s plan lists the same
 * selection with each cluster's endpoint before anything else is read.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadScanConfig, planClusters, readFleetDirectory, scanLive, type ScanConfig } from '@app/collectors';
import { startSimulator, type RunningSimulator } from '@app/fleet-sim';
import { renderClusterPlan } from '../../apps/cli/src/commands/scan-dry-run';
import { testConfig } from './scan-config.util';

const SAMPLE = join(__dirname, '..', '..', 'examples', 'fleets', 'sample');
const PAYMENTS_LEGACY = 'c1e64668d4e11407d7227bc187533f952';
const PREVIEW_ENVS = 'cf2781b2a1cfd954dddfdbe0be9ab915b';

describe('cluster selection', () => {
  let sim: RunningSimulator;
  let config: ScanConfig;
  beforeAll(async () => {
    sim = await startSimulator({ fleet: readFleetDirectory(SAMPLE) });
    const base = testConfig(loadScanConfig(sim.configPath));
    config = {
      ...base,
      clusters: {
        ...base.clusters,
        // every sample cluster has a `team` tag; web's preview-envs is left out by name, payments by tag
        include: [{ tag: 'team=*' }],
        exclude: [{ name: 'preview-*' }, { tag: 'team=payments', region: 'cn-hangzhou' }],
      },
    };
  });
  afterAll(async () => {
    await sim?.close();
  });

  it('the plan lists what a scan reads, by which endpoint, and what it leaves out and why', async () => {
    const plan = await planClusters(config);
    expect(plan.failures).toEqual([]);
    expect(plan.clusters).toHaveLength(6);
    expect(new Map(plan.clusters.filter((c) => !c.selected).map((c) => [c.clusterId, c.reason]))).toEqual(
      new Map([
        [PAYMENTS_LEGACY, 'excluded by clusters.exclude[1] (region: cn-hangzhou, tag: team=payments)'],
        [PREVIEW_ENVS, 'excluded by clusters.exclude[0] (name: preview-*)'],
      ]),
    );
    // the sample's clusters have no public endpoint: auto picks the intranet one, in the cluster's VPC
    for (const c of plan.clusters) expect(c.endpoint).toMatchObject({ kind: 'intranet', hasPublic: false, vpcId: expect.stringMatching(/^vpc-/) as string });
    const text = renderClusterPlan(config, plan);
    expect(text).toContain('4 of 6 listed clusters would be read, 2 excluded');
    expect(text).toMatch(/storefront \(c81faa03ae9366a2df0093610b2aca766\)\s+intranet https:\/\/10\.10\.0\.253:6443 \(auto, vpc-2zeymvmxmxqt79of2d4dy\)/);
    expect(text).toMatch(/preview-envs \(cf2781b2a1cfd954dddfdbe0be9ab915b\)\s+excluded by clusters\.exclude\[0\] \(name: preview-\*\)/);
    // only the cluster lists were called
    const called = Object.values(sim.stats().calls).flatMap((perAccount) => Object.keys(perAccount));
    expect(new Set(called.filter((a) => a !== 'AssumeRole'))).toEqual(new Set(['DescribeClustersV1']));
  });

  it('a scan never dials an excluded cluster; it stays in the fleet without Kubernetes objects, its datasets absent with the reason', async () => {
    const snap = await scanLive(config);
    const calls = sim.kubernetesCallsByEndpoint();
    expect(calls[PREVIEW_ENVS]).toBeUndefined();
    expect(calls[PAYMENTS_LEGACY]).toBeUndefined();
    const clusters = snap.accounts.flatMap((a) => a.regions.flatMap((r) => r.clusters));
    expect(clusters).toHaveLength(6);
    const preview = clusters.find((c) => c.clusterId === PREVIEW_ENVS);
    expect(preview?.name).toBe('preview-envs');
    expect(preview?.kubernetes).toBeUndefined();
    const coverage = snap.coverage.filter((c) => c.clusterId === PREVIEW_ENVS);
    expect(coverage.map((c) => c.api).sort()).toEqual(['addons', 'cluster', 'kubernetes', 'resources', 'sysctls']);
    for (const c of coverage) expect(c).toMatchObject({ status: 'absent', message: 'not read: excluded by clusters.exclude[0] (name: preview-*)' });
    expect(snap.coverage.filter((c) => c.status === 'failed')).toEqual([]);
    const read = clusters.filter((c) => c.kubernetes).map((c) => c.clusterId);
    expect(read).toHaveLength(4);
  });
});
