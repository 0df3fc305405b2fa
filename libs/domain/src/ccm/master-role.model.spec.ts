import { describe, expect, it } from 'vitest';
import type { RamSnapshot } from '../snapshot.types';
import { masterRoleCandidates } from './master-role.model';

const ram: RamSnapshot = {
  roles: [
    { roleName: 'KubernetesMasterRole-aaa' },
    { roleName: 'KubernetesMasterRole-bbb' },
    { roleName: 'KubernetesWorkerRole-aaa' },
    { roleName: 'AliyunCSManagedKubernetesRole' },
  ],
  policies: [],
  rolePolicies: {
    'KubernetesMasterRole-aaa': [{ policyName: 'k8sMasterRolePolicy-Ccm-aaa', policyType: 'Custom' }],
    'KubernetesMasterRole-bbb': [{ policyName: 'AliyunECSFullAccess', policyType: 'System' }],
  },
};

describe('masterRoleCandidates (fleet-format.md; seed 000)', () => {
  it('uses the role named by the cluster resources', () => {
    expect(
      masterRoleCandidates({ ramRoleNames: ['KubernetesMasterRole-bbb', 'KubernetesWorkerRole-aaa'] }, ram),
    ).toEqual({
      roleNames: ['KubernetesMasterRole-bbb'],
      basis: 'cluster-resources',
    });
  });

  it('falls back to KubernetesMasterRole-* with a k8sMasterRolePolicy-* policy', () => {
    expect(masterRoleCandidates({}, ram)).toEqual({
      roleNames: ['KubernetesMasterRole-aaa'],
      basis: 'naming-convention',
    });
    expect(masterRoleCandidates({ ramRoleNames: [] }, ram).basis).toBe('naming-convention');
  });
});
