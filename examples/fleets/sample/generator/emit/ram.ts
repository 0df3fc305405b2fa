/**
 * Emitters of an account's RAM files. acme-prod's dedicated cluster payments-legacy has a master role whose
 * CCM policy lacks the actions newer CCMs need (CCM_RAM_PERMISSION_GAP); acme-data has ACK's service roles
 * and the audit role only.
 */
import { CLUSTER_TYPE_DEDICATED, MANAGED_CLUSTER_CCM_ROLE, MASTER_POLICY_PREFIX } from '@app/domain';
import type { SampleFleet } from '../model';
import type { Account } from '../types';
import { D, iso } from '../time';

/** The three RAM files of an account: ListRoles items, custom policies with their document, policies per role. */
export interface Ram {
  roles: object[];
  policies: object[];
  rolePolicies: Record<string, object[]>;
}

// ---------------------------------------------------------------------------------------------
// RAM of account A (the dedicated cluster's master role lacks the Flannel batch-route actions)
// ---------------------------------------------------------------------------------------------
/**
 * The RAM files of an account (`ram/roles.json`, `policies.json`, `role-policies.json`).
 *
 * @throws Error when the account's dedicated cluster has no master/worker role set
 */
export function ramOf(f: SampleFleet, acc: Account): Ram {
  const { int } = f.random;
  const dedicated = Object.values(acc.regions).flatMap((r) => r.clusters).find((c) => c.type === CLUSTER_TYPE_DEDICATED);
  if (!dedicated) return managedOnlyRamOf(acc);
  const { masterRole, workerRole, masterRoleUuid } = dedicated;
  if (!masterRole || !workerRole || !masterRoleUuid) throw new Error(`sample fleet: dedicated cluster ${dedicated.name} needs masterRole, workerRole and masterRoleUuid`);
  const arn = (name: string) => `acs:ram::${acc.id}:role/${name.toLowerCase()}`;
  const roleId = () => String(300_000_000_000_000_000n + BigInt(int(1, 999_999_999)) * 1_000_000_000n + BigInt(int(1, 999_999_999)));
  const role = (name: string, description: string, created: Date) => ({ RoleId: roleId(), RoleName: name, Arn: arn(name), Description: description, CreateDate: iso(created), UpdateDate: iso(created), MaxSessionDuration: 3600 });
  const roles = [
    role('AliyunCSDefaultRole', 'Container Service default role', D('2019-11-04T07:12:44Z')),
    role('AliyunCSKubernetesAuditRole', 'Container Service Kubernetes audit role', D('2020-09-14T03:20:02Z')),
    role(MANAGED_CLUSTER_CCM_ROLE, 'Role used by ACK managed clusters (CCM, ...) to access ECS, VPC, SLB and ACR', D('2020-09-14T03:20:03Z')),
    role('AliyunCSManagedCsiRole', 'Role used by the CSI plug-ins of ACK managed clusters', D('2023-04-11T05:58:40Z')),
    role(masterRole, 'Master RAM role of ACK dedicated cluster payments-legacy', D('2020-09-14T03:27:46Z')),
    role(workerRole, 'Worker RAM role of ACK dedicated cluster payments-legacy', D('2020-09-14T03:27:46Z')),
    role('fleet-audit-readonly', 'Assumed by ack-fleet-audit: read-only access to CS, SLB, ECS, VPC, RAM and Quota Center', D('2026-08-03T09:00:00Z')),
  ];
  const suffix = masterRoleUuid.replace(/-/g, '').slice(0, 12);
  const ccmPolicy = `${MASTER_POLICY_PREFIX}Ccm-${suffix}`;
  const csiPolicy = `${MASTER_POLICY_PREFIX}Csi-${suffix}`;
  const workerPolicy = `k8sWorkerRolePolicy-${suffix}`;
  // The CCM policy of a 2020 dedicated cluster: the actions of CCM v1.9.3 (the action list of
  // docs/examples/master.policy in cloud-provider-alibaba-cloud). It has vpc:CreateRouteEntry /
  // vpc:DeleteRouteEntry but not the batch vpc:CreateRouteEntries / vpc:DeleteRouteEntries that
  // CCM >= v2.11.2 uses for Flannel routes, nor nlb:ListAsynJobs (>= v2.12.1) (seed 000/003).
  const ccmDoc = {
    Version: '1',
    Statement: [
      {
        Action: ['ecs:Describe*', 'ecs:CreateRouteEntry', 'ecs:DeleteRouteEntry', 'ecs:CreateNetworkInterface', 'ecs:DeleteNetworkInterface', 'ecs:CreateNetworkInterfacePermission', 'ecs:DeleteNetworkInterfacePermission', 'ecs:ModifyInstanceAttribute', 'ecs:AttachKeyPair', 'ecs:StopInstance', 'ecs:StartInstance', 'ecs:ReplaceSystemDisk'],
        Resource: ['*'],
        Effect: 'Allow',
      },
      {
        Action: [
          'slb:Describe*',
          'slb:CreateLoadBalancer',
          'slb:DeleteLoadBalancer',
          'slb:ModifyLoadBalancerInternetSpec',
          'slb:RemoveBackendServers',
          'slb:AddBackendServers',
          'slb:RemoveTags',
          'slb:AddTags',
          'slb:StopLoadBalancerListener',
          'slb:StartLoadBalancerListener',
          'slb:SetLoadBalancerHTTPListenerAttribute',
          'slb:SetLoadBalancerHTTPSListenerAttribute',
          'slb:SetLoadBalancerTCPListenerAttribute',
          'slb:SetLoadBalancerUDPListenerAttribute',
          'slb:CreateLoadBalancerHTTPSListener',
          'slb:CreateLoadBalancerHTTPListener',
          'slb:CreateLoadBalancerTCPListener',
          'slb:CreateLoadBalancerUDPListener',
          'slb:DeleteLoadBalancerListener',
          'slb:CreateVServerGroup',
          'slb:DescribeVServerGroups',
          'slb:DeleteVServerGroup',
          'slb:SetVServerGroupAttribute',
          'slb:DescribeVServerGroupAttribute',
          'slb:ModifyVServerGroupBackendServers',
          'slb:AddVServerGroupBackendServers',
          'slb:ModifyLoadBalancerInstanceSpec',
          'slb:SetLoadBalancerModificationProtection',
          'slb:SetLoadBalancerDeleteProtection',
          'slb:SetLoadBalancerName',
          'slb:RemoveVServerGroupBackendServers',
        ],
        Resource: ['*'],
        Effect: 'Allow',
      },
      { Action: ['vpc:Describe*', 'vpc:DeleteRouteEntry', 'vpc:CreateRouteEntry'], Resource: ['*'], Effect: 'Allow' },
    ],
  };
  const csiDoc = {
    Version: '1',
    Statement: [
      { Action: ['ecs:AttachDisk', 'ecs:DetachDisk', 'ecs:DescribeDisks', 'ecs:CreateDisk', 'ecs:ResizeDisk', 'ecs:CreateSnapshot', 'ecs:DeleteSnapshot', 'ecs:DeleteDisk', 'ecs:DescribeInstances', 'ecs:AddTags'], Resource: ['*'], Effect: 'Allow' },
      { Action: ['nas:Describe*', 'nas:CreateMountTarget', 'nas:DeleteMountTarget'], Resource: ['*'], Effect: 'Allow' },
    ],
  };
  const workerDoc = {
    Version: '1',
    Statement: [
      { Action: ['ecs:DescribeInstanceAttribute', 'ecs:DescribeInstances'], Resource: ['*'], Effect: 'Allow' },
      { Action: ['log:GetProject', 'log:GetLogStore', 'log:GetConfig', 'log:GetMachineGroup'], Resource: ['*'], Effect: 'Allow' },
      { Action: ['cr:Get*', 'cr:List*', 'cr:PullRepository'], Resource: ['*'], Effect: 'Allow' },
    ],
  };
  const pol = (name: string, description: string, doc: object, created: Date, attachments: number) => ({
    PolicyName: name,
    PolicyType: 'Custom',
    DefaultVersion: 'v1',
    Description: description,
    PolicyDocument: JSON.stringify(doc, null, 2),
    CreateDate: iso(created),
    UpdateDate: iso(created),
    AttachmentCount: attachments,
  });
  const policies = [
    pol(ccmPolicy, 'CCM permissions of the master RAM role of cluster payments-legacy', ccmDoc, D('2020-09-14T03:27:47Z'), 1),
    pol(csiPolicy, 'CSI permissions of the master RAM role of cluster payments-legacy', csiDoc, D('2020-09-14T03:27:47Z'), 1),
    pol(workerPolicy, 'Worker RAM role policy of cluster payments-legacy', workerDoc, D('2020-09-14T03:27:47Z'), 1),
  ];
  const ref = (name: string, type: string, attach: Date, description = '') => ({ PolicyName: name, PolicyType: type, DefaultVersion: type === 'Custom' ? 'v1' : 'v6', Description: description, AttachDate: iso(attach) });
  // Every role's ListPoliciesForRole answer (a live scan asks for each role it lists).
  const rolePolicies = {
    AliyunCSDefaultRole: [ref('AliyunCSDefaultRolePolicy', 'System', D('2019-11-04T07:12:44Z'), 'Policy of the Container Service default role')],
    AliyunCSKubernetesAuditRole: [ref('AliyunCSKubernetesAuditRolePolicy', 'System', D('2020-09-14T03:20:02Z'), 'Policy of the Container Service Kubernetes audit role')],
    AliyunCSManagedCsiRole: [ref('AliyunCSManagedCsiRolePolicy', 'System', D('2023-04-11T05:58:40Z'), 'Policy of the ACK managed clusters CSI role')],
    [MANAGED_CLUSTER_CCM_ROLE]: [ref('AliyunCSManagedKubernetesRolePolicy', 'System', D('2020-09-14T03:20:03Z'), 'Policy of the ACK managed clusters service role')],
    [masterRole]: [ref(ccmPolicy, 'Custom', D('2020-09-14T03:27:48Z')), ref(csiPolicy, 'Custom', D('2020-09-14T03:27:48Z'))],
    [workerRole]: [ref(workerPolicy, 'Custom', D('2020-09-14T03:27:48Z'))],
    'fleet-audit-readonly': ['AliyunCSReadOnlyAccess', 'AliyunSLBReadOnlyAccess', 'AliyunECSReadOnlyAccess', 'AliyunVPCReadOnlyAccess', 'AliyunRAMReadOnlyAccess', 'AliyunQuotasReadOnlyAccess'].map((p) => ref(p, 'System', D('2026-08-03T09:01:00Z'))),
  };
  return { roles, policies, rolePolicies };
}

// RAM of an account with managed clusters only: ACK's service roles with their system policies
// (CCM runs under AliyunCSManagedKubernetesRole there, so there is no master role to audit) and
// the audit role. Role ids are derived from the account id (no random draws: the ids of the
// other account's objects stay as they were).
function managedOnlyRamOf(acc: Account): Ram {
  const arn = (name: string) => `acs:ram::${acc.id}:role/${name.toLowerCase()}`;
  let n = 0;
  const role = (name: string, description: string, created: Date) => ({ RoleId: `3${acc.id.slice(-9)}${String(++n).padStart(9, '0')}`, RoleName: name, Arn: arn(name), Description: description, CreateDate: iso(created), UpdateDate: iso(created), MaxSessionDuration: 3600 });
  const roles = [
    role('AliyunCSDefaultRole', 'Container Service default role', D('2021-03-02T02:10:11Z')),
    role(MANAGED_CLUSTER_CCM_ROLE, 'Role used by ACK managed clusters (CCM, ...) to access ECS, VPC, SLB and ACR', D('2021-03-02T02:10:12Z')),
    role('fleet-audit-readonly', 'Assumed by ack-fleet-audit: read-only access to CS, SLB, ECS, VPC, RAM and Quota Center', D('2026-08-03T09:00:00Z')),
  ];
  const ref = (name: string, attach: Date, description = '') => ({ PolicyName: name, PolicyType: 'System', DefaultVersion: 'v6', Description: description, AttachDate: iso(attach) });
  const rolePolicies = {
    AliyunCSDefaultRole: [ref('AliyunCSDefaultRolePolicy', D('2021-03-02T02:10:11Z'), 'Policy of the Container Service default role')],
    [MANAGED_CLUSTER_CCM_ROLE]: [ref('AliyunCSManagedKubernetesRolePolicy', D('2021-03-02T02:10:12Z'), 'Policy of the ACK managed clusters service role')],
    'fleet-audit-readonly': ['AliyunCSReadOnlyAccess', 'AliyunSLBReadOnlyAccess', 'AliyunECSReadOnlyAccess', 'AliyunVPCReadOnlyAccess', 'AliyunRAMReadOnlyAccess', 'AliyunQuotasReadOnlyAccess'].map((p) => ref(p, D('2026-08-03T09:01:00Z'))),
  };
  return { roles, policies: [], rolePolicies };
}
