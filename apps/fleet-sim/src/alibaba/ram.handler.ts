/**
 * RAM 2015-05-01 (RPC): ListRoles, GetRole, ListPoliciesForRole, GetPolicy, GetPolicyVersion.
 *
 * Source: `research/alibaba-cloud-api.md` section 5 and the @alicloud/ram20150501 1.2.1 models:
 * - ListRoles pages with `Marker` / `MaxItems` (1-1000, default 100) and `IsTruncated`;
 * - ListPoliciesForRole is not paged;
 * - GetPolicy returns `Policy` and `DefaultPolicyVersion` (its `PolicyDocument` is a JSON string);
 * - unknown role / policy / version: 404 `EntityNotExist.Role` / `EntityNotExist.Policy` /
 *   `EntityNotExist.PolicyVersion`.
 * An account without `ram/roles.json` answers 403 `NoPermission` (RAM's code for a caller
 * lacking the permission).
 */
import type { WireRamPolicy } from '@app/domain';
import { policyKey, type RamEntry } from '../fleet/fleet-index.repository';
import { AcsError } from './acs-error.exception';
import type { AcsRequest, RpcHandler, RpcProduct } from './acs-request';
import { tokenPage } from './paging.util';

function ram(req: AcsRequest): RamEntry {
  const r = req.account.ram;
  if (!r)
    throw new AcsError(
      403,
      'NoPermission',
      'You are not authorized to do this action. You should be authorized by RAM. (RAM data is not in the simulated fleet)',
    );
  return r;
}

const listRoles: RpcHandler = (req) => {
  const r = ram(req);
  const maxItems = req.params.int('MaxItems') ?? 100;
  if (maxItems < 1 || maxItems > 1000)
    throw AcsError.invalidParameter('MaxItems', 'It must be between 1 and 1000.');
  const scope = `ram:ListRoles:${req.account.accountId}`;
  const { items, next } = tokenPage(r.roles, maxItems, scope, req.params.str('Marker'), 'Marker');
  return {
    IsTruncated: next !== undefined,
    ...(next !== undefined ? { Marker: next } : {}),
    Roles: { Role: items },
  };
};

function findRoleName(req: AcsRequest, r: RamEntry): string {
  const name = req.params.required('RoleName');
  if (!r.roleByName.has(name))
    throw new AcsError(404, 'EntityNotExist.Role', `The role does not exist: ${name}.`);
  return name;
}

const getRole: RpcHandler = (req) => {
  const r = ram(req);
  return { Role: r.roleByName.get(findRoleName(req, r)) };
};

const listPoliciesForRole: RpcHandler = (req) => {
  const r = ram(req);
  const name = findRoleName(req, r);
  return { Policies: { Policy: r.rolePolicies.get(name) ?? [] } };
};

function findPolicy(req: AcsRequest): WireRamPolicy {
  const r = ram(req);
  const name = req.params.required('PolicyName');
  const type = req.params.required('PolicyType');
  if (type !== 'System' && type !== 'Custom')
    throw AcsError.invalidParameter('PolicyType', 'It must be System or Custom.');
  const policy = r.policies.get(policyKey(type, name));
  if (!policy) throw new AcsError(404, 'EntityNotExist.Policy', `The policy does not exist: ${name}.`);
  return policy;
}

function defaultVersion(policy: WireRamPolicy): Record<string, unknown> {
  const src: Record<string, unknown> = policy;
  return {
    VersionId: policy.DefaultVersion ?? 'v1',
    IsDefaultVersion: true,
    PolicyDocument: policy.PolicyDocument,
    ...(typeof src['CreateDate'] === 'string' ? { CreateDate: src['CreateDate'] } : {}),
  };
}

const getPolicy: RpcHandler = (req) => {
  const policy = findPolicy(req);
  return {
    Policy: { ...policy, DefaultVersion: policy.DefaultVersion ?? 'v1' },
    DefaultPolicyVersion: defaultVersion(policy),
  };
};

const getPolicyVersion: RpcHandler = (req) => {
  const policy = findPolicy(req);
  const versionId = req.params.required('VersionId');
  const version = defaultVersion(policy);
  if (versionId !== version['VersionId'])
    throw new AcsError(
      404,
      'EntityNotExist.PolicyVersion',
      `The policy version does not exist: ${policy.PolicyName} ${versionId}.`,
    );
  return { PolicyVersion: version };
};

/** The simulated RAM product. */
export const RAM_PRODUCT: RpcProduct = {
  product: 'Ram',
  version: '2015-05-01',
  hostId: 'ram.aliyuncs.com',
  actions: {
    ListRoles: listRoles,
    GetRole: getRole,
    ListPoliciesForRole: listPoliciesForRole,
    GetPolicy: getPolicy,
    GetPolicyVersion: getPolicyVersion,
  },
};
