/**
 * Endpoint choice through the official clients against the simulator: the simulator serves every
 * cluster's public API server endpoint on its first port and the intranet one on a second port, and
 * counts Kubernetes calls by the port they came in on. The sample fleet's clusters have no public
 * endpoint (`master_url.api_server_endpoint` empty); `storefront` is given one here.
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadScanConfig, readFleetDirectory, scanLive, type ScanConfig } from '@app/collectors';
import type { WireFleet } from '@app/domain';
import { startSimulator, type RunningSimulator } from '@app/fleet-sim';
import { testConfig } from './scan-config.util';

const SAMPLE = join(__dirname, '..', '..', 'examples', 'fleets', 'sample');
const STOREFRONT = 'c81faa03ae9366a2df0093610b2aca766';
const DATA_PLATFORM = 'c75849719d4432e7378507410f099fa74';
const DATA_PLATFORM_VPC = 'vpc-bp1j6rfr7hm3clb1kp00t';

/** The sample fleet with a public endpoint on storefront. */
function fleetWithOnePublicCluster(): WireFleet {
  const fleet = readFleetDirectory(SAMPLE);
  for (const a of fleet.accounts)
    for (const r of a.regions)
      for (const c of r.clusters)
        if (c.detail.cluster_id === STOREFRONT)
          c.detail['master_url'] = JSON.stringify({
            api_server_endpoint: 'https://47.95.1.2:6443',
            intranet_api_server_endpoint: 'https://10.10.0.253:6443',
          });
  return fleet;
}

describe('API server endpoint choice', () => {
  let sim: RunningSimulator | undefined;
  afterEach(async () => {
    await sim?.close();
    sim = undefined;
  });

  const scan = async (clusters: Partial<ScanConfig['clusters']>, unreachableEndpoints?: string[]) => {
    sim = await startSimulator({ fleet: fleetWithOnePublicCluster(), ...(unreachableEndpoints ? { unreachableEndpoints } : {}) });
    const base = testConfig(loadScanConfig(sim.configPath));
    return scanLive({ ...base, clusters: { ...base.clusters, ...clusters } });
  };
  const kubernetesCoverage = (snap: Awaited<ReturnType<typeof scanLive>>, clusterId: string) =>
    snap.coverage.find((c) => c.clusterId === clusterId && c.api === 'kubernetes');

  it('auto (the default) dials the intranet endpoint of a cluster without a public one, the public one otherwise', async () => {
    const snap = await scan({});
    const calls = sim!.kubernetesCallsByEndpoint();
    expect(calls[STOREFRONT]?.public).toBeGreaterThan(0);
    expect(calls[STOREFRONT]?.intranet ?? 0).toBe(0);
    expect(calls[DATA_PLATFORM]?.intranet).toBeGreaterThan(0);
    expect(calls[DATA_PLATFORM]?.public ?? 0).toBe(0);
    expect(snap.coverage.filter((c) => c.status === 'failed')).toEqual([]);
  });

  it('public everywhere: clusters without a public endpoint are coverage gaps naming the endpoint, the VPC and the fix', async () => {
    const snap = await scan({ kubernetesEndpoint: 'public' });
    expect(kubernetesCoverage(snap, STOREFRONT)?.status).toBe('ok');
    const gap = kubernetesCoverage(snap, DATA_PLATFORM);
    expect(gap).toMatchObject({ status: 'failed', errorCode: 'EndpointUnreachable' });
    expect(gap?.message).toMatch(/cannot reach the Kubernetes API server at its public endpoint https:\/\/127\.0\.0\.2:\d+\/k8s\//);
    expect(gap?.message).toContain(DATA_PLATFORM_VPC);
    expect(gap?.message).toMatch(/ECONNREFUSED; fix: the cluster has no public endpoint/);
    expect(gap?.message).not.toMatch(/\n\s+at /);
    expect(gap?.message).toContain('chosen by clusters.kubernetesEndpoint: public');
    expect(sim!.kubernetesCallsByEndpoint()[DATA_PLATFORM]).toBeUndefined();
    // The cluster's other datasets are still read.
    expect(snap.coverage.filter((c) => c.clusterId === DATA_PLATFORM && c.api !== 'kubernetes').every((c) => c.status === 'ok')).toBe(true);
  });

  it('private with one VPC out of reach: that cluster is a gap naming its VPC and WORKER_REACH; the rest is read', async () => {
    const snap = await scan({ kubernetesEndpoint: 'private' }, [DATA_PLATFORM_VPC]);
    const gap = kubernetesCoverage(snap, DATA_PLATFORM);
    expect(gap).toMatchObject({ status: 'failed', errorCode: 'EndpointUnreachable' });
    expect(gap?.message).toContain(`intranet endpoint https://127.0.0.2:`);
    expect(gap?.message).toContain(`(master_url: https://10.20.0.253:6443) in VPC ${DATA_PLATFORM_VPC}`);
    expect(gap?.message).toContain(`WORKER_REACH=${DATA_PLATFORM_VPC}`);
    const failed = snap.coverage.filter((c) => c.status === 'failed');
    expect(failed).toEqual([gap]);
    expect(sim!.kubernetesCallsByEndpoint()[STOREFRONT]).toEqual({ public: 0, intranet: expect.any(Number) as number });
  });
});
