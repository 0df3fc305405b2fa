/**
 * Accounts by role: a multi-account live scan reads every account through STS AssumeRole of its
 * `auditRoleArn` (the simulator's config lists each account with `acs:ram::<id>:role/fleet-audit-readonly`),
 * temporary credentials of one account cannot read another account's CLBs or clusters, and a
 * failed AssumeRole fails every dataset of its account with STS's code, no secret in any message.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AccountCredentialsResolver,
  callSlb,
  CollectError,
  crawlTarget,
  createAccountClients,
  loadFleetDirectory,
  loadScanConfig,
  readFleetDirectory,
  scanLive,
  alibabaError,
  type AccountCredentials,
  type ScanConfig,
  REGION_DATASETS,
} from '@app/collectors';
import {
  DEFAULT_SIM_ACCESS_KEY_ID,
  DEFAULT_SIM_ACCESS_KEY_SECRET,
  startSimulator,
  type RunningSimulator,
} from '@app/fleet-sim';
import { writeFleet, type AccountSpec } from './fleet-builder.util';
import { testConfig } from './scan-config.util';
import { expectLiveEqualsOffline } from './snapshot-compare.util';

const A = '1000000000000011';
const B = '1000000000000012';
const C = '1000000000000013';

const account = (accountId: string): AccountSpec => ({
  accountId,
  name: `acct-${accountId.slice(-2)}`,
  roles: 3,
  regions: [
    {
      regionId: 'cn-hangzhou',
      ecsInstances: 6,
      loadBalancers: 3,
      groupsPerLb: 1,
      quotas: 2,
      clusters: [{ nodes: 3, services: 2, podsPerNode: 1, events: 2 }],
    },
  ],
});

describe('live scan of several accounts through STS AssumeRole', () => {
  let root: string;
  let sim: RunningSimulator;
  let config: ScanConfig;

  beforeAll(async () => {
    root = writeFleet('accounts', [account(A), account(B), account(C)]);
    sim = await startSimulator({ fleet: readFleetDirectory(root) });
    config = testConfig(loadScanConfig(sim.configPath));
  });
  afterAll(async () => {
    await sim?.close();
  });

  it('reads every account with its own assumed role and equals the offline snapshot', async () => {
    expect(config.accounts.map((a) => [a.accountId, a.auditRoleArn])).toEqual(
      [A, B, C].map((id) => [id, `acs:ram::${id}:role/fleet-audit-readonly`]),
    );
    sim.resetStats();
    const live = await scanLive(config);
    expectLiveEqualsOffline(live, loadFleetDirectory(root));
    const calls = sim.stats().calls;
    // AssumeRole is called with the base key (it reads the management account), once per account:
    // every target of an account reuses the cached token.
    expect(calls[sim.accountId]?.['AssumeRole']).toBe(3);
    // Every account's own APIs were called under that account (the assumed role's visibility).
    for (const id of [A, B, C]) {
      expect(calls[id]?.['DescribeLoadBalancers'], id).toBeGreaterThan(0);
      expect(calls[id]?.['DescribeClusterDetail'], id).toBe(1);
    }
  });

  it("cannot read account B's CLB or cluster with account A's assumed credentials", async () => {
    const resolver = new AccountCredentialsResolver(config);
    const credsA: AccountCredentials = await resolver.credentialsFor(config.accounts[0]);
    expect(credsA).toMatchObject({ kind: 'static', accessKeyId: expect.stringMatching(/^STS\./) as unknown });
    const offline = loadFleetDirectory(root);
    const regionB = offline.accounts.find((a) => a.accountId === B)?.regions[0];
    const lbB = regionB?.loadBalancers?.[0]?.loadBalancerId ?? '';
    const clusterB = regionB?.clusters[0]?.clusterId ?? '';
    expect(lbB).toMatch(/^lb-/);

    // Direct calls with A's token on B's resources: not found for this identity.
    const clients = createAccountClients(config.alibabaCloud, credsA);
    const err = await callSlb(clients.region('cn-hangzhou').slb, 'DescribeLoadBalancerAttribute', {
      RegionId: 'cn-hangzhou',
      LoadBalancerId: lbB,
    }).catch((e: unknown) => alibabaError(e, 'DescribeLoadBalancerAttribute', lbB, clients.secrets));
    expect(err).toBeInstanceOf(CollectError);
    expect(err).toMatchObject({ errorCode: 'InvalidLoadBalancerId.NotFound', notFound: true });

    // The crawl of B's targets with A's credentials: B's cluster does not exist for A (the slice
    // reports it gone), and B's region lists A's CLBs, never B's.
    const asA = () => credsA;
    const cluster = await crawlTarget(
      config,
      { kind: 'cluster', accountId: B, regionId: 'cn-hangzhou', clusterId: clusterB },
      { credentialsFor: asA },
    );
    expect(cluster.cluster).toBeUndefined();
    expect(cluster.coverage).toEqual([]);
    const region = await crawlTarget(
      config,
      { kind: 'region', accountId: B, regionId: 'cn-hangzhou' },
      { credentialsFor: asA },
    );
    const ids = (region.region?.loadBalancers ?? []).map((l) => l.LoadBalancerId);
    expect(ids).not.toContain(lbB);
    expect(region.clusterIds).not.toContain(clusterB);
  });

  it('fails every dataset of an account whose role cannot be assumed, with no secret in any message', async () => {
    const broken: ScanConfig = {
      ...config,
      accounts: config.accounts.map((a) =>
        a.accountId === C ? { ...a, auditRoleArn: `acs:ram::${C}:role/not-a-role` } : a,
      ),
    };
    const resolver = new AccountCredentialsResolver(broken);
    const issued = await resolver.credentialsFor(broken.accounts[0]);
    const live = await scanLive(broken, { credentialsFor: (a) => resolver.credentialsFor(a) });
    const ofC = live.coverage.filter((c) => c.accountId === C);
    expect(ofC.map((c) => c.api).sort()).toEqual(['ram', ...REGION_DATASETS].sort()); // cs, ecs, nlb, quota-applications, quotas, ram, slb, vpc
    for (const c of ofC) {
      expect(c.status).toBe('failed');
      expect(c.errorCode).toBe('EntityNotExist.Role');
      expect(c.message).toMatch(/^AssumeRole 1000000000000013 acs:ram::1000000000000013:role\/not-a-role: /);
    }
    expect(
      live.coverage.filter((c) => c.accountId !== C).every((c) => c.status === 'ok' || c.status === 'absent'),
    ).toBe(true);
    const secrets = [
      DEFAULT_SIM_ACCESS_KEY_ID,
      DEFAULT_SIM_ACCESS_KEY_SECRET,
      ...(issued.kind === 'static'
        ? [issued.accessKeyId, issued.accessKeySecret, issued.securityToken ?? '']
        : []),
    ];
    const text = JSON.stringify(live.coverage);
    for (const s of secrets) expect(text).not.toContain(s);
  });
});
