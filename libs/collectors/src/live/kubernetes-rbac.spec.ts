import { describe, expect, it } from 'vitest';
import { clusterRoleBinding, leastPrivilegeClusterRole, rbacAllows } from './kubernetes-rbac';
import { grantPolicy, trustPolicy } from './ram-actions';

describe('rbacAllows', () => {
  const rules = leastPrivilegeClusterRole().rules;
  it('allows what the rules name, * as any, nothing else', () => {
    expect(rbacAllows(rules, 'list', '', 'nodes')).toBe(true);
    expect(rbacAllows(rules, 'list', 'discovery.k8s.io', 'endpointslices')).toBe(true);
    expect(rbacAllows(rules, 'get', '', 'nodes')).toBe(false);
    expect(rbacAllows(rules, 'list', '', 'secrets')).toBe(false);
    expect(rbacAllows(rules, 'list', '', 'endpointslices')).toBe(false);
    expect(rbacAllows([{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }], 'delete', 'apps', 'deployments')).toBe(true);
  });
});

describe('clusterRoleBinding', () => {
  it('binds the role to the RAM ids as Users', () => {
    expect(clusterRoleBinding(['300000000000000001'])).toMatchObject({
      roleRef: { kind: 'ClusterRole', name: 'fleet-audit-read' },
      subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: '300000000000000001' }],
    });
  });
});

describe('trustPolicy', () => {
  it('trusts an account (its root principal) or a role ARN', () => {
    expect(trustPolicy(['1234567890123456'])).toEqual({
      Version: '1',
      Statement: [{ Effect: 'Allow', Action: 'sts:AssumeRole', Principal: { RAM: ['acs:ram::1234567890123456:root'] } }],
    });
    expect(trustPolicy(['acs:ram::1234567890123456:role/fleet-audit', '1234567890123456']).Statement[0].Principal.RAM).toEqual([
      'acs:ram::1234567890123456:role/fleet-audit',
      'acs:ram::1234567890123456:root',
    ]);
  });
  it('refuses anything else, naming it', () => {
    expect(() => trustPolicy(['prod'])).toThrow(/got "prod"/);
    expect(() => trustPolicy([])).toThrow(/expected an account id/);
  });
});

describe('grantPolicy', () => {
  it('is the write side only: the ACK permission actions and the cluster list', () => {
    expect(grantPolicy().Statement[0].Action).toEqual(['cs:DescribeClustersV1', 'cs:DescribeUserPermission', 'cs:GrantPermissions', 'cs:UpdateUserPermissions']);
  });
});
