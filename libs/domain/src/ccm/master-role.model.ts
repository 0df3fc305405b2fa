import type { ClusterSnapshot, RamSnapshot } from '../snapshot.types';
import { MASTER_POLICY_PREFIX, MASTER_ROLE_PREFIX } from './ccm.constants';

/**
 * Which RAM role the CCM of a dedicated cluster runs under (fleet-format.md "The master RAM role of a
 * dedicated cluster"; seed 000: "In the Cluster Resources area, click the role name for Master RAM Role
 * ... find the custom policy that starts with k8sMasterRolePolicy-Ccm- ... For clusters that were created
 * at an earlier time ... a custom policy whose name starts with k8sMasterRolePolicy-").
 */

/** The candidate master roles of a cluster and how they were found. */
export interface MasterRoleCandidates {
  /** Role names, sorted. Empty when none was found. */
  roleNames: string[];
  /**
   * `cluster-resources`: named by DescribeClusterResources (`ALIYUN::RAM::Role`);
   * `naming-convention`: account roles `KubernetesMasterRole-*` with a `k8sMasterRolePolicy-*` policy.
   */
  basis: 'cluster-resources' | 'naming-convention';
}

function hasMasterPolicy(ram: RamSnapshot, roleName: string): boolean {
  return (ram.rolePolicies[roleName] ?? []).some((p) => p.policyName.startsWith(MASTER_POLICY_PREFIX));
}

/**
 * The master RAM role(s) of a dedicated cluster: among the roles the cluster's resources name, those
 * called `KubernetesMasterRole-*` (else those with a `k8sMasterRolePolicy-*` policy); without resources,
 * every account role `KubernetesMasterRole-*` that has a `k8sMasterRolePolicy-*` policy attached.
 */
export function masterRoleCandidates(
  cluster: Pick<ClusterSnapshot, 'ramRoleNames'>,
  ram: RamSnapshot,
): MasterRoleCandidates {
  const named = cluster.ramRoleNames ?? [];
  if (named.length > 0) {
    const byName = named.filter((n) => n.startsWith(MASTER_ROLE_PREFIX));
    const chosen = byName.length > 0 ? byName : named.filter((n) => hasMasterPolicy(ram, n));
    if (chosen.length > 0) return { roleNames: [...new Set(chosen)].sort(), basis: 'cluster-resources' };
  }
  const roleNames = ram.roles
    .map((r) => r.roleName)
    .filter((n) => n.startsWith(MASTER_ROLE_PREFIX) && hasMasterPolicy(ram, n));
  return { roleNames: [...new Set(roleNames)].sort(), basis: 'naming-convention' };
}
