/**
 * The sample fleet scanned live under injected faults (the simulator's deterministic `--faults`
 * per seed): throttling, 5xx, held-then-dropped connections (longer than the client's read
 * timeout), truncated bodies, and in a second run also slow answers, HTML bodies and expired
 * Kubernetes `continue` tokens (410).
 *
 * The contract: the scan never throws, and every dataset is either read exactly as without faults
 * (its coverage entry `ok`/`absent` as in the fault-free scan, its part of the snapshot equal), or
 * listed as `failed` with the account, region, cluster, dataset and error code. No dataset is
 * silently empty.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadFleetDirectory, loadScanConfig, readFleetDirectory, scanLive } from '@app/collectors';
import type { ClusterSnapshot, CoverageEntry, FleetSnapshot } from '@app/domain';
import { startSimulator, type RunningSimulator } from '@app/fleet-sim';
import { testConfig } from './scan-config.util';
import { coverageKeyOf, expectLiveEqualsOffline } from './snapshot-compare.util';

const SAMPLE = join(__dirname, '..', '..', 'examples', 'fleets', 'sample');
const FAULTS = 'throttle=0.3,server-error=0.05,timeout=0.01,truncate=0.01';
const ALL_FAULTS = `${FAULTS},slow=0.05,non-json=0.02,expire-continue=0.2`;

/** The part of a snapshot one coverage entry vouches for. */
function partOf(s: FleetSnapshot, c: CoverageEntry): unknown {
  const account = s.accounts.find((a) => a.accountId === c.accountId);
  if (c.api === 'ram') return account?.ram;
  const region = account?.regions.find((r) => r.regionId === c.regionId);
  switch (c.api) {
    case 'slb':
      return region?.loadBalancers;
    case 'nlb':
      return region?.nlbs === undefined ? undefined : { nlbs: region.nlbs, serverGroups: region.nlbServerGroups };
    case 'ecs':
      return region?.ecsInstances;
    case 'vpc':
      return region?.vSwitches;
    case 'quotas':
      return region?.quotas;
    case 'cs':
      return region?.clusters.map((k) => k.clusterId);
    default:
  }
  const cluster = region?.clusters.find((k) => k.clusterId === c.clusterId);
  if (!cluster) return undefined;
  const pick = (keys: (keyof ClusterSnapshot)[]) => Object.fromEntries(keys.map((k) => [k, cluster[k]]));
  switch (c.api) {
    case 'cluster':
      return pick([
        'name',
        'clusterType',
        'clusterSpec',
        'state',
        'currentVersion',
        'created',
        'vpcId',
        'apiServerLoadBalancerId',
      ]);
    case 'addons':
      return pick(['addons', 'networkPlugin', 'ccmVersion']);
    case 'resources':
      return cluster.ramRoleNames;
    case 'sysctls':
      return cluster.nodeLocalPortRanges;
    case 'kubernetes':
      return cluster.kubernetes;
    default:
      return undefined;
  }
}

/** Assert the fault contract of `faulty` against the fault-free scan `clean`. */
function expectReadOrListedAsFailed(
  faulty: FleetSnapshot,
  clean: FleetSnapshot,
): { failed: CoverageEntry[] } {
  expect(faulty.coverage.map(coverageKeyOf).sort()).toEqual(clean.coverage.map(coverageKeyOf).sort());
  const cleanByKey = new Map(clean.coverage.map((c) => [coverageKeyOf(c), c]));
  const failed: CoverageEntry[] = [];
  for (const c of faulty.coverage) {
    const k = coverageKeyOf(c);
    if (c.status === 'failed') {
      expect(c.errorCode, k).toMatch(/\S/);
      expect(c.message, k).toMatch(/\S/);
      failed.push(c);
      continue;
    }
    expect(c.status, k).toBe(cleanByKey.get(k)?.status);
    expect(partOf(faulty, c), k).toEqual(partOf(clean, c));
  }
  // The NodePort range comes from the detail and the kube-apiserver pods: equal when both were read.
  for (const a of faulty.accounts)
    for (const r of a.regions)
      for (const k of r.clusters) {
        const ok = (api: string) =>
          faulty.coverage.some((c) => c.clusterId === k.clusterId && c.api === api && c.status === 'ok');
        if (ok('cluster') && ok('kubernetes')) {
          const cleanCluster = clean.accounts
            .find((x) => x.accountId === a.accountId)
            ?.regions.find((x) => x.regionId === r.regionId)
            ?.clusters.find((x) => x.clusterId === k.clusterId);
          expect(k.nodePortRange, k.clusterId).toEqual(cleanCluster?.nodePortRange);
        }
      }
  if (failed.length === 0) expect(faulty).toEqual(clean);
  return { failed };
}

describe('live scan of the sample fleet under injected faults', () => {
  const sims: RunningSimulator[] = [];
  let clean: FleetSnapshot;

  beforeAll(async () => {
    const sim = await startSimulator({ fleet: readFleetDirectory(SAMPLE) });
    sims.push(sim);
    clean = await scanLive(testConfig(loadScanConfig(sim.configPath)));
    expectLiveEqualsOffline(clean, loadFleetDirectory(SAMPLE));
  });
  afterAll(async () => {
    await Promise.all(sims.map((s) => s.close()));
  });

  const run = async (seed: number, faults: string, kubernetesPageSize = 500) => {
    const sim = await startSimulator({
      fleet: readFleetDirectory(SAMPLE),
      faults,
      seed,
      timeoutHoldMs: 1500,
      slowDelayMs: { min: 20, max: 80 },
    });
    sims.push(sim);
    const config = testConfig(loadScanConfig(sim.configPath), {
      readTimeoutMs: 400,
      collector: { kubernetesTimeoutMs: 400, retryMaxDelayMs: 20 },
      pageSizes: { kubernetes: kubernetesPageSize },
    });
    const live = await scanLive(config);
    return { live, stats: sim.stats() };
  };

  for (const seed of [1, 2, 3, 4])
    it(`seed ${seed}: ${FAULTS}: every dataset read as without faults, or listed as failed`, async () => {
      const { live, stats } = await run(seed, FAULTS);
      expect(stats.faults.throttle ?? 0).toBeGreaterThan(0);
      const { failed } = expectReadOrListedAsFailed(live, clean);
      for (const f of failed)
        expect(f.errorCode).toMatch(
          /Throttling|TooManyRequests|ServiceUnavailable|Timeout|ECONNRESET|InvalidJson|UND_ERR|socket/i,
        );
    });

  it(`seed 5: ${ALL_FAULTS}: the same contract with slow answers, HTML bodies and expired continue tokens`, async () => {
    // Kubernetes pages of 3 items, so lists carry `continue` tokens that can expire.
    const { live, stats } = await run(5, ALL_FAULTS, 3);
    expect(stats.faults['expire-continue'] ?? 0).toBeGreaterThan(0);
    expect(stats.faults['non-json'] ?? 0).toBeGreaterThan(0);
    expectReadOrListedAsFailed(live, clean);
  });
});
