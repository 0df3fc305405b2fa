/**
 * STS through the official SDK (`@alicloud/sts20150401`, plain HTTP, endpoint override): AssumeRole
 * into each fleet account's audit role, GetCallerIdentity, and per-account visibility (a key reads
 * only its own account's CLBs and clusters). Also the role rules, V1-signed calls with a
 * `SecurityToken` parameter, token errors, expiry, and the scan config listing every account.
 */
import { readFileSync } from 'node:fs';
import * as $Cs from '@alicloud/cs20151215';
import { ClientError } from '@alicloud/openapi-core';
import * as $Sts from '@alicloud/sts20150401';
import { readFleetDirectory, scanConfigSchema } from '@app/collectors';
import { startSimulator, type RunningSimulator } from '@app/fleet-sim';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callRpc, csClient, stsClient } from './sim-clients.util';
import {
  addOtherAccounts,
  OTHER_ACCOUNT_IDS as O,
  SIM_FLEET_IDS as IDS,
  writeSimFleet,
} from './sim-fleet.factory';

let sim: RunningSimulator;
let fleetRoot: string;

beforeAll(async () => {
  fleetRoot = writeSimFleet();
  addOtherAccounts(fleetRoot);
  sim = await startSimulator({ fleet: readFleetDirectory(fleetRoot) });
});
afterAll(async () => {
  await sim.close();
});

/** STS credentials as SDK config fields (a type alias, so it fits `Record<string, unknown>`). */
type StsKey = {
  accessKeyId: string;
  accessKeySecret: string;
  securityToken: string;
};

async function assume(
  target: RunningSimulator,
  roleArn: string,
  extra: Partial<{ durationSeconds: number; roleSessionName: string }> = {},
): Promise<{ key: StsKey; body: $Sts.AssumeRoleResponseBody }> {
  const r = await stsClient(target).assumeRole(
    new $Sts.AssumeRoleRequest({ roleArn, roleSessionName: 'fleet-audit', ...extra }),
  );
  const c = r.body?.credentials;
  if (!r.body || !c?.accessKeyId || !c.accessKeySecret || !c.securityToken) throw new Error('no credentials');
  return {
    key: { accessKeyId: c.accessKeyId, accessKeySecret: c.accessKeySecret, securityToken: c.securityToken },
    body: r.body,
  };
}

const auditArn = (accountId: string) => `acs:ram::${accountId}:role/fleet-audit-readonly`;

async function clientError(p: Promise<unknown>): Promise<ClientError> {
  const e: unknown = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  if (!(e instanceof ClientError)) throw new Error(`expected a ClientError, got ${String(e)}`);
  return e;
}

const lbIds = (b: Record<string, unknown>) =>
  (b['LoadBalancers'] as { LoadBalancer: { LoadBalancerId: string }[] }).LoadBalancer.map(
    (l) => l.LoadBalancerId,
  );

describe('scan config', () => {
  it('lists every account with its audit role; the base key reads the management account', () => {
    const config = scanConfigSchema.parse(JSON.parse(readFileSync(sim.configPath, 'utf8')));
    expect(config.accounts.map((a) => [a.accountId, a.auditRoleArn])).toEqual([
      [IDS.accountId, auditArn(IDS.accountId)],
      [O.dataAccountId, O.dataAuditRoleArn],
      [O.bareAccountId, auditArn(O.bareAccountId)],
    ]);
    expect(sim.accountIds).toEqual([IDS.accountId, O.dataAccountId, O.bareAccountId]);
    expect(sim.accountId).toBe(IDS.accountId);
  });
});

describe('AssumeRole and GetCallerIdentity (@alicloud/sts20150401)', () => {
  it('the base key is the management account itself', async () => {
    const me = await stsClient(sim).getCallerIdentity();
    expect(me.body?.toMap()).toMatchObject({
      AccountId: IDS.accountId,
      Arn: `acs:ram::${IDS.accountId}:root`,
      IdentityType: 'Account',
    });
  });

  it('issues STS credentials for the role account; GetCallerIdentity reports the assumed role', async () => {
    const before = Date.now();
    const { key, body } = await assume(sim, O.dataAuditRoleArn);
    expect(key.accessKeyId).toMatch(/^STS\./);
    expect(body.assumedRoleUser?.arn).toBe(`acs:ram::${O.dataAccountId}:role/custom-audit/fleet-audit`);
    expect(body.assumedRoleUser?.assumedRoleId).toMatch(/^\d+:fleet-audit$/);
    const expiration = Date.parse(body.credentials?.expiration ?? '');
    expect(body.credentials?.expiration).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(expiration).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000 + 3600_000);
    expect(expiration).toBeLessThanOrEqual(Date.now() + 3600_000);

    const me = await stsClient(sim, key).getCallerIdentity();
    expect(me.body?.toMap()).toEqual({
      RequestId: expect.any(String),
      AccountId: O.dataAccountId,
      Arn: `acs:ram::${O.dataAccountId}:assumed-role/custom-audit/fleet-audit`,
      IdentityType: 'AssumedRoleUser',
      PrincipalId: body.assumedRoleUser?.assumedRoleId,
      RoleId: body.assumedRoleUser?.assumedRoleId?.split(':')[0],
    });
  });

  it("an account's resources are invisible to another account's credentials", async () => {
    const data = (await assume(sim, auditArn(O.dataAccountId))).key;
    const mgmt = (await assume(sim, auditArn(IDS.accountId))).key;

    // CLBs: each key lists only its own account's; the other account's id is not found.
    expect(
      lbIds(
        await callRpc(
          sim,
          'DescribeLoadBalancers',
          '2014-05-15',
          { RegionId: O.dataRegionId },
          { config: data },
        ),
      ),
    ).toEqual([O.dataLbId]);
    expect(
      lbIds(
        await callRpc(
          sim,
          'DescribeLoadBalancers',
          '2014-05-15',
          { RegionId: O.dataRegionId },
          { config: mgmt },
        ),
      ),
    ).toEqual([]);
    expect(
      lbIds(
        await callRpc(
          sim,
          'DescribeLoadBalancers',
          '2014-05-15',
          { RegionId: IDS.regionId },
          { config: mgmt },
        ),
      ),
    ).toEqual([...IDS.lbIds]);
    for (const [key, foreignLb, region] of [
      [data, IDS.lbIds[0], IDS.regionId],
      [mgmt, O.dataLbId, O.dataRegionId],
      [{}, O.dataLbId, O.dataRegionId],
    ] as const) {
      const e = await clientError(
        callRpc(
          sim,
          'DescribeLoadBalancerAttribute',
          '2014-05-15',
          { RegionId: region, LoadBalancerId: foreignLb },
          { config: key },
        ),
      );
      expect(e.code).toBe('InvalidLoadBalancerId.NotFound');
    }

    // Clusters: listed per account; the other account's cluster is 404 (detail and kubeconfig).
    const listed = await csClient(sim, data).describeClustersV1(new $Cs.DescribeClustersV1Request({}));
    expect(listed.body?.clusters?.map((c) => c.clusterId)).toEqual([O.dataClusterId]);
    const ownKubeconfig = await csClient(sim, data).describeClusterUserKubeconfig(
      O.dataClusterId,
      new $Cs.DescribeClusterUserKubeconfigRequest({}),
    );
    expect(ownKubeconfig.body?.config).toContain(`/k8s/${O.dataClusterId}`);
    for (const [key, foreign] of [
      [data, IDS.clusterId],
      [mgmt, O.dataClusterId],
      [{}, O.dataClusterId],
    ] as const) {
      const e = await clientError(csClient(sim, key).describeClusterDetail(foreign));
      expect([e.statusCode, e.code]).toEqual([404, 'ErrorClusterNotFound']);
      const k = await clientError(
        csClient(sim, key).describeClusterUserKubeconfig(
          foreign,
          new $Cs.DescribeClusterUserKubeconfigRequest({}),
        ),
      );
      expect(k.statusCode).toBe(404);
    }
  });

  it('accepts V1-signed calls with the SecurityToken parameter', async () => {
    const { key } = await assume(sim, auditArn(O.dataAccountId));
    const v1 = { ...key, signatureAlgorithm: 'v2' };
    const me = await stsClient(sim, v1).getCallerIdentity();
    expect(me.body?.accountId).toBe(O.dataAccountId);
    const b = await callRpc(
      sim,
      'DescribeLoadBalancers',
      '2014-05-15',
      { RegionId: O.dataRegionId },
      { config: v1 },
    );
    expect(lbIds(b)).toEqual([O.dataLbId]);
  });

  it('rejects an STS key without its token or with another token', async () => {
    const { key } = await assume(sim, auditArn(O.dataAccountId));
    const other = (await assume(sim, auditArn(O.dataAccountId))).key;
    const missing = await clientError(
      stsClient(sim, {
        accessKeyId: key.accessKeyId,
        accessKeySecret: key.accessKeySecret,
      }).getCallerIdentity(),
    );
    expect(missing.code).toBe('MissingSecurityToken');
    const mismatch = await clientError(
      stsClient(sim, { ...key, securityToken: other.securityToken }).getCallerIdentity(),
    );
    expect(mismatch.code).toBe('InvalidSecurityToken.MismatchWithAccessKey');
  });

  it.each([
    ['an account outside the fleet', 'acs:ram::1212121212121212:role/fleet-audit-readonly'],
    ['a role missing from the account roles.json', `acs:ram::${O.dataAccountId}:role/not-there`],
    ['another account audit role name', `acs:ram::${IDS.accountId}:role/custom-audit`],
  ])('404 EntityNotExist.Role for %s', async (_name, roleArn) => {
    const e = await clientError(assume(sim, roleArn));
    expect([e.statusCode, e.code]).toEqual([404, 'EntityNotExist.Role']);
  });

  it('accepts listed roles, the audit roles (any case), and any role of an account without roles.json', async () => {
    for (const arn of [
      `acs:ram::${O.dataAccountId}:role/${O.dataRoleName}`,
      `acs:ram::${O.dataAccountId}:role/Fleet-Audit-ReadOnly`,
      `acs:ram::${IDS.accountId}:role/${IDS.roleName}`,
      `acs:ram::${O.bareAccountId}:role/anything`,
    ]) {
      const { body } = await assume(sim, arn);
      expect(body.assumedRoleUser?.arn?.startsWith(arn.replace(/role\/.*/, 'role/'))).toBe(true);
    }
  });

  it('DurationSeconds: 900 up to the role MaxSessionDuration (3600 without one)', async () => {
    const now = Date.now();
    const short = await assume(sim, auditArn(O.dataAccountId), { durationSeconds: 900 });
    expect(Date.parse(short.body.credentials?.expiration ?? '')).toBeLessThanOrEqual(now + 901_000);
    await assume(sim, `acs:ram::${O.dataAccountId}:role/${O.dataRoleName}`, { durationSeconds: 7200 });
    for (const [arn, seconds] of [
      [auditArn(O.dataAccountId), 899],
      [auditArn(O.dataAccountId), 3601],
      [`acs:ram::${O.dataAccountId}:role/${O.dataRoleName}`, 7201],
    ] as const) {
      const e = await clientError(assume(sim, arn, { durationSeconds: seconds }));
      expect(e.code).toBe('InvalidParameter.DurationSeconds');
    }
  });

  it('validates RoleArn and RoleSessionName', async () => {
    expect((await clientError(assume(sim, 'arn:aws:iam::1:role/x'))).code).toBe('InvalidParameter.RoleArn');
    expect((await clientError(assume(sim, auditArn(IDS.accountId), { roleSessionName: 'a' }))).code).toBe(
      'InvalidParameter.RoleSessionName',
    );
    const missing = await clientError(
      stsClient(sim).assumeRole(new $Sts.AssumeRoleRequest({ roleSessionName: 'fleet-audit' })),
    );
    expect(missing.code).toBe('MissingRoleArn');
  });
});

describe('STS expiry', () => {
  it('answers InvalidSecurityToken.Expired once the credentials expired', async () => {
    let offsetMs = 0;
    const clocked = await startSimulator({
      fleet: readFleetDirectory(fleetRoot),
      now: () => new Date(Date.now() + offsetMs),
    });
    try {
      const { key } = await assume(clocked, auditArn(O.dataAccountId), { durationSeconds: 900 });
      expect((await stsClient(clocked, key).getCallerIdentity()).body?.accountId).toBe(O.dataAccountId);
      offsetMs = 901_000;
      const e = await clientError(stsClient(clocked, key).getCallerIdentity());
      expect([e.statusCode, e.code]).toEqual([400, 'InvalidSecurityToken.Expired']);
    } finally {
      await clocked.close();
    }
  });
});
