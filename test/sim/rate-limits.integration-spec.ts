/**
 * OpenAPI QPS limits per account and action through the official SDKs: over-limit calls get
 * `Throttling.User` (HTTP 400, or 429 when configured) with `x-acs-retry-after`, which openapi-core
 * raises as `ThrottlingError` with `retryAfter`; `sim.stats()` counts the calls. The simulator clock
 * is frozen inside one second so the windows never roll over during a test.
 */
import * as $Ecs from '@alicloud/ecs20140526';
import { ThrottlingError } from '@alicloud/openapi-core';
import * as $Sts from '@alicloud/sts20150401';
import { readFileSync } from 'node:fs';
import { readFleetDirectory, scanConfigSchema } from '@app/collectors';
import { startSimulator, UNLIMITED_SIM_BUDGET, type RunningSimulator } from '@app/fleet-sim';
import { afterEach, describe, expect, it } from 'vitest';
import { callRpc, ecsClient, stsClient } from './sim-clients.util';
import {
  addOtherAccounts,
  OTHER_ACCOUNT_IDS as O,
  SIM_FLEET_IDS as IDS,
  writeSimFleet,
} from './sim-fleet.factory';

const fleetRoot = writeSimFleet();
addOtherAccounts(fleetRoot);
/** A frozen clock 200 ms into a whole second: the next window starts in 800 ms. */
const FROZEN = new Date(Math.floor(Date.now() / 1000) * 1000 + 200);

let sim: RunningSimulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

async function throttlingError(p: Promise<unknown>): Promise<ThrottlingError> {
  const e: unknown = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  if (!(e instanceof ThrottlingError)) throw new Error(`expected a ThrottlingError, got ${String(e)}`);
  return e;
}

const describeInstances = (s: RunningSimulator, config?: Record<string, unknown>) =>
  ecsClient(s, config).describeInstances(new $Ecs.DescribeInstancesRequest({ regionId: IDS.regionId }));
const describeLoadBalancers = (s: RunningSimulator, config?: Record<string, unknown>) =>
  callRpc(s, 'DescribeLoadBalancers', '2014-05-15', { RegionId: IDS.regionId }, config ? { config } : {});

describe('QPS limits', () => {
  it('throttle each (account, action) over its limit with Throttling.User 400 and x-acs-retry-after', async () => {
    const s = await startSimulator({
      fleet: readFleetDirectory(fleetRoot),
      now: () => FROZEN,
      qps: { default: 3, perApi: { DescribeInstances: 1 } },
    });
    sim = s;
    await describeInstances(s);
    const e = await throttlingError(describeInstances(s));
    expect(e).toMatchObject({ code: 'Throttling.User', statusCode: 400, retryAfter: 800 });
    expect(e.message).toContain('Request was denied due to user flow control.');

    // DescribeLoadBalancers has the default limit, counted on its own
    for (let i = 0; i < 3; i++) await describeLoadBalancers(s);
    await throttlingError(describeLoadBalancers(s));

    // another account (through STS) has its own budget; AssumeRole counts for the caller's account
    const r = await stsClient(s).assumeRole(
      new $Sts.AssumeRoleRequest({
        roleArn: `acs:ram::${O.dataAccountId}:role/fleet-audit-readonly`,
        roleSessionName: 'qps-test',
      }),
    );
    const c = r.body?.credentials;
    const key = {
      accessKeyId: c?.accessKeyId,
      accessKeySecret: c?.accessKeySecret,
      securityToken: c?.securityToken,
    };
    await describeInstances(s, key);
    await throttlingError(describeInstances(s, key));

    expect(s.stats()).toEqual({
      calls: {
        [IDS.accountId]: { DescribeInstances: 2, DescribeLoadBalancers: 4, AssumeRole: 1 },
        [O.dataAccountId]: { DescribeInstances: 2 },
      },
      throttled: 3,
      faults: {},
      maxObservedQps: { [IDS.accountId]: 7, [O.dataAccountId]: 2 },
      maxObservedQpsByAction: {
        [IDS.accountId]: { DescribeInstances: 2, DescribeLoadBalancers: 4, AssumeRole: 1 },
        [O.dataAccountId]: { DescribeInstances: 2 },
      },
    });
    s.resetStats();
    expect(s.stats().calls).toEqual({});
  });

  it('answers 429 with throttlingStatus: 429 (still a ThrottlingError for openapi-core)', async () => {
    const s = await startSimulator({
      fleet: readFleetDirectory(fleetRoot),
      now: () => FROZEN,
      qps: { default: 1 },
      throttlingStatus: 429,
    });
    sim = s;
    await describeLoadBalancers(s);
    const e = await throttlingError(describeLoadBalancers(s));
    expect(e).toMatchObject({ code: 'Throttling.User', statusCode: 429, retryAfter: 800 });
  });

  it('without qps nothing is throttled, and calls are still counted', async () => {
    const s = await startSimulator({ fleet: readFleetDirectory(fleetRoot), now: () => FROZEN });
    sim = s;
    for (let i = 0; i < 20; i++) await describeLoadBalancers(s);
    expect(s.stats()).toMatchObject({
      calls: { [IDS.accountId]: { DescribeLoadBalancers: 20 } },
      throttled: 0,
      maxObservedQps: { [IDS.accountId]: 20 },
    });
  });

  it('the scan config it writes lifts the collector budget only where nothing is throttled', async () => {
    const budgetOf = (s: RunningSimulator) => {
      const { collector } = scanConfigSchema.parse(JSON.parse(readFileSync(s.configPath, 'utf8')));
      return { qpsPerAccount: collector.qpsPerAccount, maxConcurrentPerAccount: collector.maxConcurrentPerAccount, nodeSysctls: collector.nodeSysctls };
    };
    const unlimited = await startSimulator({ fleet: readFleetDirectory(fleetRoot) });
    try {
      expect(budgetOf(unlimited)).toEqual({ ...UNLIMITED_SIM_BUDGET, nodeSysctls: true });
    } finally {
      await unlimited.close();
    }
    const limited = await startSimulator({ fleet: readFleetDirectory(fleetRoot), qps: { default: 5 } });
    try {
      // The product defaults (collectorSettingsSchema): the scans of a limited simulator show its pacing.
      expect(budgetOf(limited)).toEqual({ qpsPerAccount: 20, maxConcurrentPerAccount: 16, nodeSysctls: true });
    } finally {
      await limited.close();
    }
  });

  it('rejects invalid limits at start', async () => {
    await expect(
      startSimulator({ fleet: readFleetDirectory(fleetRoot), qps: { default: 0 } }),
    ).rejects.toThrow('qps.default must be a positive integer');
  });
});
