import {
  CLUSTER_TYPE_DEDICATED,
  MANAGED_CLUSTER_CCM_ROLE,
  ccmRamRequirements,
  masterRoleCandidates,
  missingRamActions,
  kindsInUse,
  newerCcmVersion,
  parseCcmVersion,
  type RamPolicy,
  type RamSnapshot,
  type RamStatement,
} from '@app/domain';
import { scopedCheck } from '../check-scope';
import { DOC_URL, SEED } from '../doc-links.constants';
import { clusterRef, notReadReason } from '../result.util';

/** Outcome of evaluating one role. */
type RoleVerdict =
  { kind: 'ok' } | { kind: 'missing'; now: string[]; target: string[] } | { kind: 'unknown'; reason: string };

function evaluateRole(
  ram: RamSnapshot,
  policiesByName: Map<string, RamPolicy>,
  roleName: string,
  installedActions: readonly string[],
  targetActions: readonly string[],
): RoleVerdict {
  const attached = ram.rolePolicies[roleName];
  if (!attached) return { kind: 'unknown', reason: `policies attached to role ${roleName} were not read` };
  const statements: RamStatement[] = [];
  const unread: string[] = [];
  const unparsable: string[] = [];
  for (const ref of attached) {
    const p = policiesByName.get(ref.policyName);
    if (p?.documentError !== undefined) unparsable.push(`${ref.policyName} (${p.documentError})`);
    else if (p) statements.push(...p.statements);
    else unread.push(ref.policyName);
  }
  const now = missingRamActions(statements, installedActions).map((m) => m.action);
  const nowSet = new Set(now);
  const target = missingRamActions(statements, targetActions)
    .map((m) => m.action)
    .filter((a) => !nowSet.has(a));
  if (now.length === 0 && target.length === 0) return { kind: 'ok' };
  // A policy document we could not read may grant what looks missing (or deny more): cannot tell.
  if (unread.length > 0) {
    return {
      kind: 'unknown',
      reason: `documents of policies ${unread.join(', ')} attached to ${roleName} were not read`,
    };
  }
  // Same for a document that could not be parsed: its statements are unknown, not empty.
  if (unparsable.length > 0) {
    return {
      kind: 'unknown',
      reason: `documents of policies ${unparsable.join(', ')} attached to ${roleName} could not be parsed`,
    };
  }
  return { kind: 'missing', now, target };
}

/**
 * The master RAM role of an ACK dedicated cluster (`cluster_type: Kubernetes`) lacks RAM actions its
 * installed CCM needs (critical: CCM fails now) or the target CCM needs (warning: the upgrade will fail):
 * seeds 000/003 "add the nlb:ListAsynJobs permission ... If you use a Flannel cluster, you must also add the
 * vpc:CreateRouteEntries and vpc:DeleteRouteEntries permissions" before upgrading to v2.11.2 or later.
 * The target is the newer of the installed version and `settings.ccm.ramTargetVersion` (default v2.12.1).
 * Managed clusters pass (CCM runs under `AliyunCSManagedKubernetesRole`); skipped when RAM was not read or
 * the role cannot be identified.
 */
export const ccmRamPermissionGapRule = scopedCheck({
  id: 'CCM_RAM_PERMISSION_GAP',
  title: 'Master RAM role of a dedicated cluster lacks actions CCM needs',
  category: 'version',
  resourceKind: 'Cluster',
  defaultSeverity: 'critical',
  description:
    'Finds the master RAM role of each ACK dedicated cluster (the role named in the cluster resources, else ' +
    'KubernetesMasterRole-* with a k8sMasterRolePolicy-* policy) and evaluates its policies (Allow/Deny, wildcards, ' +
    'NotAction) for the RAM actions the installed CCM calls and those a CCM upgrade to the target version adds.',
  remediation:
    'In the ACK console open Cluster Information > Basic Information > Cluster Resources > Master RAM Role; in RAM ' +
    'open the custom policy that starts with k8sMasterRolePolicy-Ccm- (older clusters: k8sMasterRolePolicy-), add ' +
    'nlb:ListAsynJobs to the NLB permissions and, in Flannel clusters, vpc:CreateRouteEntries and ' +
    `vpc:DeleteRouteEntries to the VPC permissions, save, then upgrade CCM. ${DOC_URL.serviceFaq}`,
  source:
    `${SEED.serviceFaq} "How to add required permissions when you upgrade the CCM component to a later version in ` +
    `an ACK dedicated cluster"; ${SEED.serviceFaqClb} same section; CCM docs/examples/master.policy and ` +
    'pkg/provider/alibaba/* API calls (CCM notes 5 (docs/sources.md#ccm-5)), pkg/provider/alibaba/nlb/*.go nlb:* actions per tag (only for clusters with NLB Services); RAM policy language (Action/NotAction, Effect)',
  settings: ['ccm.ramTargetVersion'],
  scope: 'cluster',
  needs: [],
  check({ cluster, account }, out, r, ctx) {
    const ref = clusterRef(cluster);
    if (cluster.clusterType === '') {
      // The cluster's detail could not be read (collector placeholder): its type, so whether CCM runs under a
      // master RAM role, is unknown. Never a silent pass.
      out.push(r.skipped(ref, `cluster ${cluster.clusterId}: its detail (cluster type) was not read`));
      return;
    }
    if (cluster.clusterType !== CLUSTER_TYPE_DEDICATED) {
      out.push(
        r.pass(
          ref,
          `cluster ${cluster.clusterId} is ${cluster.clusterType}, not a dedicated cluster: CCM does not run under a master RAM role ` +
            `(managed clusters use ${MANAGED_CLUSTER_CCM_ROLE})`,
          { clusterType: cluster.clusterType },
        ),
      );
      return;
    }
    const ram = account.ram;
    if (!ram) {
      const why = notReadReason(
        ctx.index,
        `RAM roles and policies of account ${account.accountId}`,
        'ram',
        account.accountId,
      );
      out.push(r.skipped(ref, why));
      return;
    }
    const policiesByName = ctx.index.ramPolicies(ram);
    const installed =
      cluster.ccmVersion && parseCcmVersion(cluster.ccmVersion) ? cluster.ccmVersion : undefined;
    const target =
      newerCcmVersion(installed, ctx.settings.ccm.ramTargetVersion) ?? ctx.settings.ccm.ramTargetVersion;
    // A kind's actions count only in clusters with Services of that kind (research/nlb.md 6: the NLB controller
    // calls the NLB API only for them).
    const lbKinds = kindsInUse(cluster.kubernetes?.services ?? []);
    const installedActions = installed
      ? (ccmRamRequirements(installed, cluster.networkPlugin, { kinds: lbKinds }) ?? []).map((q) => q.action)
      : [];
    const targetActions = (ccmRamRequirements(target, cluster.networkPlugin, { kinds: lbKinds }) ?? []).map((q) => q.action);
    const roles = masterRoleCandidates(cluster, ram);
    if (roles.roleNames.length === 0) {
      out.push(
        r.skipped(
          ref,
          `no master RAM role found for cluster ${cluster.clusterId} (no KubernetesMasterRole-* role with a k8sMasterRolePolicy-* policy` +
            `${cluster.ramRoleNames === undefined ? '; cluster resources were not read' : ''})`,
        ),
      );
      return;
    }
    const verdicts = roles.roleNames.map((name) => ({
      name,
      v: evaluateRole(ram, policiesByName, name, installedActions, targetActions),
    }));
    const figuresBase = {
      roles: roles.roleNames,
      roleBasis: roles.basis,
      ...(installed ? { ccmVersion: installed } : {}),
      targetVersion: target,
      networkPlugin: cluster.networkPlugin,
    };
    const unknown = verdicts.find((x) => x.v.kind === 'unknown');
    if (unknown && unknown.v.kind === 'unknown') {
      out.push(r.skipped(ref, unknown.v.reason, figuresBase));
      return;
    }
    const kinds = new Set(verdicts.map((x) => x.v.kind));
    if (kinds.size > 1) {
      out.push(
        r.skipped(
          ref,
          `${roles.roleNames.length} candidate master roles disagree (${roles.roleNames.join(', ')}); cluster resources are needed to tell which one CCM uses`,
          figuresBase,
        ),
      );
      return;
    }
    const missingNow = new Set<string>();
    const missingTarget = new Set<string>();
    for (const { v } of verdicts) {
      if (v.kind !== 'missing') continue;
      v.now.forEach((a) => missingNow.add(a));
      v.target.forEach((a) => missingTarget.add(a));
    }
    const pluginNote =
      cluster.networkPlugin === 'unknown'
        ? ' (network plugin unknown: Flannel route actions not checked)'
        : '';
    const versionNote = installed ? `installed CCM ${installed}` : 'installed CCM version unknown';
    if (missingNow.size === 0 && missingTarget.size === 0) {
      out.push(
        r.pass(
          ref,
          `master role ${roles.roleNames.join(', ')} of cluster ${cluster.clusterId} allows every action CCM needs (${versionNote}, target ${target})${pluginNote}`,
          figuresBase,
        ),
      );
      return;
    }
    const parts: string[] = [];
    if (missingNow.size) parts.push(`${versionNote} needs ${[...missingNow].join(', ')}`);
    if (missingTarget.size) parts.push(`CCM ${target} also needs ${[...missingTarget].join(', ')}`);
    out.push(
      r.fail(
        ref,
        `master role ${roles.roleNames.join(', ')} of cluster ${cluster.clusterId} lacks RAM actions: ${parts.join('; ')}${pluginNote}`,
        {
          severity: missingNow.size ? 'critical' : 'warning',
          figures: {
            ...figuresBase,
            missingActions: [...missingNow],
            missingForTarget: [...missingTarget],
          },
        },
      ),
    );
  },
});
