/**
 * Reads an account's RAM roles and the policies attached to them (RAM 2015-05-01, research 5):
 *  - ListRoles, paged with `Marker` / `IsTruncated` (`MaxItems` per page);
 *  - ListPoliciesForRole per role (no paging);
 *  - GetPolicy for every attached `Custom` policy, and GetPolicyVersion of its `DefaultVersion`
 *    when GetPolicy does not carry the default version's document.
 * The result has the `ram/*.json` shapes of the fleet format: roles, policies
 * `{PolicyName, PolicyType, DefaultVersion, Description, PolicyDocument}` (the document is the
 * JSON string) and role name -> attached policies. System policies are not fetched (their
 * documents are Alibaba's, not the account's).
 */
import {
  wireRamPolicyRefSchema,
  wireRamPolicySchema,
  wireRamRoleSchema,
  type WireRam,
  type WireRamPolicy,
  type WireRamPolicyRef,
} from '@app/domain';
import { z } from 'zod';
import { Absent, absentIfNotFound, aliCall, type AccountScope } from './collect-scope.util';
import { CollectError } from './collect-error.util';
import { dara, ramSdk } from './sdk-modules';
import { readAllByToken } from './paging.util';
import { dig, listAt, stringAt, validateWire } from './wire-validate.util';

const runtime = () => new (dara().RuntimeOptions)({});

/** Map `fn` over `items` with every call in flight at once (the runner bounds real concurrency). */
function all<T, R>(items: readonly T[], fn: (t: T) => Promise<R>): Promise<R[]> {
  return Promise.all(items.map(fn));
}

async function readPolicy(scope: AccountScope, ref: WireRamPolicyRef): Promise<WireRamPolicy> {
  const target = `${scope.accountId}/${ref.PolicyType}:${ref.PolicyName}`;
  const resp = await aliCall(scope, 'GetPolicy', target, () =>
    scope.clients.ram.getPolicyWithOptions(
      new (ramSdk().GetPolicyRequest)({ policyName: ref.PolicyName, policyType: ref.PolicyType }),
      runtime(),
    ),
  );
  const body = resp.body?.toMap() ?? {};
  const policy = dig(body, 'Policy');
  if (policy === undefined)
    throw new CollectError(
      'InvalidResponse',
      `GetPolicy ${target}: malformed response at $.Policy: expected an object`,
    );
  const defaultVersion = stringAt(policy, 'DefaultVersion') ?? ref.DefaultVersion;
  let document =
    stringAt(body, 'DefaultPolicyVersion', 'PolicyDocument') ?? stringAt(policy, 'PolicyDocument');
  if (document === undefined) {
    if (defaultVersion === undefined)
      throw new CollectError(
        'InvalidResponse',
        `GetPolicy ${target}: no DefaultVersion to read the document of`,
      );
    const v = await aliCall(scope, 'GetPolicyVersion', `${target}@${defaultVersion}`, () =>
      scope.clients.ram.getPolicyVersionWithOptions(
        new (ramSdk().GetPolicyVersionRequest)({
          policyName: ref.PolicyName,
          policyType: ref.PolicyType,
          versionId: defaultVersion,
        }),
        runtime(),
      ),
    );
    document = stringAt(v.body?.toMap(), 'PolicyVersion', 'PolicyDocument');
  }
  const description = stringAt(policy, 'Description');
  return validateWire(
    wireRamPolicySchema,
    {
      PolicyName: stringAt(policy, 'PolicyName') ?? ref.PolicyName,
      PolicyType: stringAt(policy, 'PolicyType') ?? ref.PolicyType,
      ...(defaultVersion !== undefined ? { DefaultVersion: defaultVersion } : {}),
      ...(description !== undefined && description !== '' ? { Description: description } : {}),
      PolicyDocument: document,
    },
    'GetPolicy',
    target,
    ['Policy'],
  );
}

/**
 * Read the account's RAM data.
 * @returns the RAM data, or Absent when ListRoles says RAM has nothing for this account (404)
 * @throws CollectError on any failed call (the whole `ram` dataset is then `failed`)
 */
export async function readRam(scope: AccountScope): Promise<WireRam | Absent> {
  const target = scope.accountId;
  const pageSize = scope.settings.pageSizes.ram;
  const rawRoles = await absentIfNotFound(() =>
    readAllByToken(async (marker) => {
      const resp = await aliCall(scope, 'ListRoles', target, () =>
        scope.clients.ram.listRolesWithOptions(
          new (ramSdk().ListRolesRequest)({ maxItems: pageSize, ...(marker ? { marker } : {}) }),
          runtime(),
        ),
      );
      const body = resp.body?.toMap() ?? {};
      return {
        items: listAt(body, 'ListRoles', target, 'Roles', 'Role'),
        nextToken: dig(body, 'IsTruncated') === true ? stringAt(body, 'Marker') : undefined,
      };
    }, `ListRoles ${target}`),
  );
  if (rawRoles instanceof Absent) return rawRoles;
  const roles = validateWire(z.array(wireRamRoleSchema), rawRoles, 'ListRoles', target, ['Roles', 'Role']);
  const attachments = await all(roles, async (role) => {
    const roleTarget = `${target}/role:${role.RoleName}`;
    try {
      const resp = await aliCall(scope, 'ListPoliciesForRole', roleTarget, () =>
        scope.clients.ram.listPoliciesForRoleWithOptions(
          new (ramSdk().ListPoliciesForRoleRequest)({ roleName: role.RoleName }),
          runtime(),
        ),
      );
      const raw = listAt(resp.body?.toMap(), 'ListPoliciesForRole', roleTarget, 'Policies', 'Policy');
      return {
        role,
        refs: validateWire(z.array(wireRamPolicyRefSchema), raw, 'ListPoliciesForRole', roleTarget, [
          'Policies',
          'Policy',
        ]),
      };
    } catch (e) {
      if (e instanceof CollectError && e.notFound) return undefined; // role deleted while we read
      throw e;
    }
  });
  const rolePolicies: Record<string, WireRamPolicyRef[]> = {};
  const custom = new Map<string, WireRamPolicyRef>();
  const liveRoles = [];
  for (const a of attachments) {
    if (!a) continue;
    liveRoles.push(a.role);
    rolePolicies[a.role.RoleName] = a.refs;
    for (const ref of a.refs)
      if (ref.PolicyType === 'Custom' && !custom.has(ref.PolicyName)) custom.set(ref.PolicyName, ref);
  }
  const policies = await all([...custom.values()], async (ref) => {
    try {
      return await readPolicy(scope, ref);
    } catch (e) {
      if (e instanceof CollectError && e.notFound) return undefined; // policy deleted while we read
      throw e;
    }
  });
  return {
    roles: liveRoles,
    policies: policies.filter((p): p is WireRamPolicy => p !== undefined),
    rolePolicies,
  };
}
