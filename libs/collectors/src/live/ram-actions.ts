/**
 * The Alibaba Cloud OpenAPI actions the live collectors call (CALL-PLAN.md), as RAM actions
 * (`<service>:<Action>`, the RAM policy language: https://www.alibabacloud.com/help/en/ram/user-guide/policy-elements),
 * and the least-privilege policy a scan config needs: `fleet-audit iam-policy [--config FILE]`.
 *
 * test/collectors/iam-policy.e2e-spec.ts keeps this list honest: a scan through the simulator enforcing
 * exactly this policy reads everything, and with any one action removed the coverage names that action.
 */
import { KIND_DATA, LB_KINDS, type CoverageDataset } from '@app/domain';
import type { ScanConfig } from './scan-config';

/**
 * RAM service code of each OpenAPI product the collectors call: the fixed products, and each load-balancer kind's
 * (`KindProduct.ramService`, e.g. `nlb`).
 */
export type RamService = 'slb' | 'ecs' | 'vpc' | 'quotas' | 'cs' | 'ram' | (string & {});

/** One OpenAPI action the collectors call. */
export interface CollectorCall {
  service: RamService;
  /** API action name (`DescribeLoadBalancers`). */
  action: string;
  /** The dataset (coverage entry) that cannot be read without it. */
  dataset: CoverageDataset;
  /** Only called when the scan config's `collector.nodeSysctls` is on (ECS Cloud Assistant). */
  onlyWithNodeSysctls?: true;
}

/**
 * Every OpenAPI action of a live crawl, by product (CALL-PLAN.md tables "Per account", "Per region",
 * "Per CLB", "Per NLB region", "Per cluster"); each load-balancer kind's crawl actions come from its data path
 * (`LoadBalancerKindData.actions`), after the SLB ones. Quota Center's `quotas:ListProductQuotas` reads every kind's
 * quotas (one action for every product code). STS `AssumeRole` is not here: it is granted to the base identity on the
 * audit roles, not to the audit role itself (see `assumeRoleStatement`).
 */
export const COLLECTOR_CALLS: readonly CollectorCall[] = [
  { service: 'ram', action: 'ListRoles', dataset: 'ram' },
  { service: 'ram', action: 'ListPoliciesForRole', dataset: 'ram' },
  { service: 'ram', action: 'GetPolicy', dataset: 'ram' },
  { service: 'ram', action: 'GetPolicyVersion', dataset: 'ram' },
  { service: 'slb', action: 'DescribeLoadBalancers', dataset: 'slb' },
  { service: 'slb', action: 'DescribeLoadBalancerAttribute', dataset: 'slb' },
  { service: 'slb', action: 'DescribeVServerGroups', dataset: 'slb' },
  { service: 'slb', action: 'DescribeVServerGroupAttribute', dataset: 'slb' },
  ...KIND_DATA.flatMap((d) => d.actions.map((action): CollectorCall => ({ service: d.product.ramService, action, dataset: d.dataset }))),
  { service: 'ecs', action: 'DescribeInstances', dataset: 'ecs' },
  { service: 'vpc', action: 'DescribeVSwitches', dataset: 'vpc' },
  { service: 'quotas', action: 'ListProductQuotas', dataset: 'quotas' },
  { service: 'quotas', action: 'ListQuotaApplications', dataset: 'quota-applications' },
  { service: 'cs', action: 'DescribeClustersV1', dataset: 'cs' },
  { service: 'cs', action: 'DescribeClusterDetail', dataset: 'cluster' },
  { service: 'cs', action: 'DescribeClusterUserKubeconfig', dataset: 'kubernetes' },
  { service: 'cs', action: 'ListClusterAddonInstances', dataset: 'addons' },
  { service: 'cs', action: 'DescribeClusterResources', dataset: 'resources' },
  { service: 'ecs', action: 'RunCommand', dataset: 'sysctls', onlyWithNodeSysctls: true },
  { service: 'ecs', action: 'DescribeInvocationResults', dataset: 'sysctls', onlyWithNodeSysctls: true },
];

/** `service:Action` of a call. */
export function ramActionOf(call: Pick<CollectorCall, 'service' | 'action'>): string {
  return `${call.service}:${call.action}`;
}

/** A RAM policy document (the subset the tool writes and the simulator enforces). */
export interface RamPolicyDocument {
  Version: '1';
  Statement: { Effect: 'Allow' | 'Deny'; Action: string | string[]; Resource: string | string[] }[];
}

/**
 * The least-privilege policy of the audit role for a scan config: every action the collectors call,
 * read-only, sorted; the Cloud Assistant actions (`ecs:RunCommand`, `ecs:DescribeInvocationResults`: they run
 * a command on the nodes) only when node sysctl collection is on.
 * @param config the scan config (default: the defaults, `nodeSysctls` off)
 * @param opts `nodeSysctls: true` adds the Cloud Assistant actions whatever the config says (`iam-policy --node-sysctls`)
 */
export function leastPrivilegePolicy(config?: Pick<ScanConfig, 'collector'>, opts: { nodeSysctls?: boolean } = {}): RamPolicyDocument {
  const sysctls = opts.nodeSysctls === true || (config?.collector?.nodeSysctls ?? false);
  const actions = [...new Set(COLLECTOR_CALLS.filter((c) => sysctls || !c.onlyWithNodeSysctls).map(ramActionOf))].sort();
  return { Version: '1', Statement: [{ Effect: 'Allow', Action: actions, Resource: '*' }] };
}

/** The statement the base identity needs to assume the configured audit roles (none without `auditRoleArn`). */
export function assumeRoleStatement(config: Pick<ScanConfig, 'accounts'>): RamPolicyDocument | undefined {
  const arns = [...new Set(config.accounts.flatMap((a) => (a.auditRoleArn ? [a.auditRoleArn] : [])))].sort();
  return arns.length === 0 ? undefined : { Version: '1', Statement: [{ Effect: 'Allow', Action: ['sts:AssumeRole'], Resource: arns }] };
}

/**
 * Whether a policy allows `service:Action` (Allow statements with exact names, `service:*`, `*` or a
 * trailing-`*` prefix; an explicit Deny wins). Used by the simulator to enforce a policy.
 */
export function policyAllows(policy: RamPolicyDocument, ramAction: string): boolean {
  const matches = (pattern: string) => {
    const p = pattern.toLowerCase();
    const a = ramAction.toLowerCase();
    return p === '*' || p === a || (p.endsWith('*') && a.startsWith(p.slice(0, -1)));
  };
  const list = (x: string | string[]) => (Array.isArray(x) ? x : [x]);
  if (policy.Statement.some((s) => s.Effect === 'Deny' && list(s.Action).some(matches))) return false;
  return policy.Statement.some((s) => s.Effect === 'Allow' && list(s.Action).some(matches));
}

/**
 * A RAM role's trust policy (research/reach.md 3.1, https://www.alibabacloud.com/help/en/ram/user-guide/edit-the-trust-policy-of-a-ram-role):
 * who may call `sts:AssumeRole` on the role.
 */
export interface RamTrustPolicyDocument {
  Version: '1';
  Statement: { Effect: 'Allow'; Action: 'sts:AssumeRole'; Principal: { RAM: string[] } }[];
}

/** A trust principal: an account id (`acs:ram::<uid>:root`) or a RAM role ARN (`acs:ram::<uid>:role/<name>`). */
const TRUSTED = /^(\d+|acs:ram::\d+:role\/.+)$/;

/**
 * The trust policy of the audit role in each audited account, for cross-account AssumeRole: the audit
 * account (any of its RAM users and roles: `acs:ram::<uid>:root`) or, narrower, the audit account's own role
 * ARN. A root account cannot call AssumeRole; the caller also needs `sts:AssumeRole` on the role
 * (`assumeRoleStatement`).
 * @param trusted account ids or role ARNs
 * @throws Error naming the first value that is neither
 */
export function trustPolicy(trusted: readonly string[]): RamTrustPolicyDocument {
  const bad = trusted.find((t) => !TRUSTED.test(t));
  if (bad !== undefined || trusted.length === 0)
    throw new Error(`expected an account id (digits) or a RAM role ARN acs:ram::<uid>:role/<name>, got "${bad ?? ''}"`);
  const principals = [...new Set(trusted.map((t) => (/^\d+$/.test(t) ? `acs:ram::${t}:root` : t)))].sort();
  return { Version: '1', Statement: [{ Effect: 'Allow', Action: 'sts:AssumeRole', Principal: { RAM: principals } }] };
}

/**
 * The RAM policy of whoever grants the audit ClusterRole in the clusters (research/reach.md 2.1, 2.3): list
 * the clusters, read and add a uid's ACK permissions. A write policy, kept apart from the read-only audit role;
 * the caller also needs RBAC admin in each target cluster.
 */
export function grantPolicy(): RamPolicyDocument {
  return {
    Version: '1',
    Statement: [
      {
        Effect: 'Allow',
        Action: ['cs:DescribeClustersV1', 'cs:DescribeUserPermission', 'cs:GrantPermissions', 'cs:UpdateUserPermissions'],
        Resource: '*',
      },
    ],
  };
}

/**
 * The RAM policy of whoever files quota applications (`fleet-audit quota request --apply`): a write policy, kept apart
 * from the read-only audit role (`leastPrivilegePolicy` never holds `quotas:CreateQuotaApplication`). Actions and
 * resources from research/quota-center.md 5: CreateQuotaApplication and GetQuotaApplication on the `QuotaApplication`
 * resource `acs:quotas:{region}:{account}:quota/{ProductCode}/{QuotaActionCode}`, limited to the products whose quotas
 * the plan covers (each kind's `quotaProductCode`: `slb` for CLB, `nlb`); ListQuotaApplications and ListProductQuotas, whose resource-level scoping is
 * not confirmed, on every resource.
 */
export function quotaRequestPolicy(): RamPolicyDocument {
  return {
    Version: '1',
    Statement: [
      {
        Effect: 'Allow',
        Action: ['quotas:CreateQuotaApplication', 'quotas:GetQuotaApplication'],
        Resource: [...new Set(LB_KINDS.map((k) => `acs:quotas:*:*:quota/${k.quotaProductCode}/*`))].sort(),
      },
      { Effect: 'Allow', Action: ['quotas:ListProductQuotas', 'quotas:ListQuotaApplications'], Resource: '*' },
    ],
  };
}
