/**
 * `fleet-audit iam-policy` round trip through the simulator: a live scan of the sample fleet
 * through a simulator that enforces exactly the printed least-privilege policy reads every dataset;
 * with one action removed, the scan still completes and its coverage names the missing action.
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { COLLECTOR_CALLS, leastPrivilegePolicy, loadScanConfig, parseScanConfig, quotaRequestPolicy, ramActionOf, readFleetDirectory, scanLive, type RamPolicyDocument } from '@app/collectors';
import { runCliInProcess } from '../cli/cli-run.util';
import { startSimulator, type RunningSimulator } from '@app/fleet-sim';
import { KIND_DATA, LB_KINDS } from '@app/domain';
import { testConfig } from './scan-config.util';

/** The collector settings of a config that sets nothing (the schema's defaults). */
const loadScanConfigDefaults = () => parseScanConfig(JSON.stringify({ accounts: [{ accountId: '1234567890123456', regions: ['cn-hangzhou'] }] }), 'defaults.json').collector;

const SAMPLE = join(__dirname, '..', '..', 'examples', 'fleets', 'sample');

describe('iam-policy round trip through the simulator', () => {
  let sim: RunningSimulator | undefined;
  afterEach(async () => {
    await sim?.close();
    sim = undefined;
  });

  const scanWith = async (policy: RamPolicyDocument, collector: { nodeSysctls?: boolean } = {}) => {
    sim = await startSimulator({ fleet: readFleetDirectory(SAMPLE), ramPolicy: policy });
    return scanLive(testConfig(loadScanConfig(sim.configPath), { collector }));
  };
  // The simulator's config opts in to node sysctl collection (it serves Cloud Assistant from the fleet).
  const withSysctls = () => leastPrivilegePolicy(undefined, { nodeSysctls: true });

  it('the least-privilege policy is enough: no dataset is refused', async () => {
    const policy = withSysctls();
    const snap = await scanWith(policy);
    const refused = snap.coverage.filter((c) => c.status === 'failed');
    expect(refused, JSON.stringify(refused)).toEqual([]);
    expect(snap.coverage.filter((c) => c.status === 'ok').length).toBeGreaterThan(10);
  });

  it('the policy has no action the crawler does not call (every one is needed)', () => {
    const actions = withSysctls().Statement[0].Action as string[];
    expect(actions).toEqual([...new Set(COLLECTOR_CALLS.map(ramActionOf))].sort());
    const services = ['slb', ...KIND_DATA.map((d) => d.product.ramService), 'ecs', 'vpc', 'quotas', 'cs', 'ram'];
    expect(actions.every((a) => new RegExp(`^(${services.join('|')}):[A-Z]\\w+$`).test(a))).toBe(true);
  });

  it('names the NLB read actions the crawl calls, and no NLB write or attribute action', () => {
    const actions = leastPrivilegePolicy().Statement[0].Action as string[];
    expect(actions.filter((a) => a.startsWith('nlb:'))).toEqual([
      'nlb:ListListeners',
      'nlb:ListLoadBalancers',
      'nlb:ListServerGroupServers',
      'nlb:ListServerGroups',
    ]);
    // the NLB quotas are read with the same Quota Center actions as the SLB ones: the quotas and their applications
    expect(actions.filter((a) => a.startsWith('quotas:'))).toEqual(['quotas:ListProductQuotas', 'quotas:ListQuotaApplications']);
  });

  it('quota applications take a separate write policy: the default stays read-only, --quota-requests prints the write one', async () => {
    const readOnly = JSON.stringify(leastPrivilegePolicy({ collector: { ...loadScanConfigDefaults(), nodeSysctls: true } }));
    expect(readOnly).not.toContain('quotas:CreateQuotaApplication');
    expect(leastPrivilegePolicy().Statement[0].Action).toContain('quotas:ListProductQuotas');
    const write = quotaRequestPolicy();
    expect(write.Statement.flatMap((s) => s.Action)).toEqual(['quotas:CreateQuotaApplication', 'quotas:GetQuotaApplication', 'quotas:ListProductQuotas', 'quotas:ListQuotaApplications']);
    // Each load-balancer kind's quotas (CLB `slb`, NLB `nlb`).
    expect(write.Statement[0]!.Resource).toEqual([...new Set(LB_KINDS.map((k) => `acs:quotas:*:*:quota/${k.quotaProductCode}/*`))].sort());
    const printed = await runCliInProcess(['iam-policy', '--quota-requests']);
    expect(printed.status).toBe(0);
    expect(JSON.parse(printed.stdout)).toEqual(write);
    expect(printed.stderr).toContain('write policy');
    const byDefault = await runCliInProcess(['iam-policy']);
    expect(byDefault.stdout).not.toContain('CreateQuotaApplication');
    const mixed = await runCliInProcess(['iam-policy', '--quota-requests', '--node-sysctls']);
    expect(mixed.status).toBe(2);
  });

  it('is read-only by default: no Cloud Assistant action; a config that opts in adds them', () => {
    const actions = leastPrivilegePolicy().Statement[0].Action as string[];
    expect(actions).not.toContain('ecs:RunCommand');
    expect(actions).not.toContain('ecs:DescribeInvocationResults');
    expect(actions).toEqual([...new Set(COLLECTOR_CALLS.filter((c) => !c.onlyWithNodeSysctls).map(ramActionOf))].sort());
    const optedIn = leastPrivilegePolicy({ collector: { ...loadScanConfigDefaults(), nodeSysctls: true } }).Statement[0].Action as string[];
    expect(optedIn).toContain('ecs:RunCommand');
    expect(optedIn).toContain('ecs:DescribeInvocationResults');
  });

  it('with the default (read-only) policy and config the scan reads everything but node sysctls, named absent', async () => {
    const snap = await scanWith(leastPrivilegePolicy(), { nodeSysctls: false });
    expect(snap.coverage.filter((c) => c.status === 'failed')).toEqual([]);
    const sysctls = snap.coverage.filter((c) => c.api === 'sysctls');
    expect(sysctls.length).toBeGreaterThan(0);
    for (const c of sysctls) expect(c).toMatchObject({ status: 'absent', message: expect.stringContaining('collector.nodeSysctls: true') });
  });

  it.each(['slb:DescribeVServerGroups', 'nlb:ListLoadBalancers', 'ecs:DescribeInstances', 'cs:DescribeClusterUserKubeconfig', 'ram:ListRoles'])(
    'without %s the scan completes and the coverage names the missing action',
    async (missing) => {
      const policy = withSysctls();
      const without: RamPolicyDocument = { ...policy, Statement: [{ ...policy.Statement[0], Action: (policy.Statement[0].Action as string[]).filter((a) => a !== missing) }] };
      const snap = await scanWith(without);
      const refused = snap.coverage.filter((c) => c.status === 'failed');
      expect(refused.length).toBeGreaterThan(0);
      for (const r of refused) {
        expect(r.errorCode).toBe('Forbidden.RAM');
        expect(r.message).toContain(missing);
      }
    },
  );
});
