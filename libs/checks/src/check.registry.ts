import type { CheckDefinition } from './check.types';
import { ccmAnnotationUnsupportedRule } from './rules/ccm-annotation-unsupported.rule';
import { ccmRamPermissionGapRule } from './rules/ccm-ram-permission-gap.rule';
import { clbBackendQuotaRule } from './rules/clb-backend-quota.rule';
import { clusterModeBlowupRule } from './rules/cluster-mode-blowup.rule';
import { ecsLbAttachmentQuotaRule } from './rules/ecs-lb-attachment-quota.rule';
import { lbOrphanedRule } from './rules/lb-orphaned.rule';
import { lbReuseCrossVpcRule } from './rules/lb-reuse-cross-vpc.rule';
import { lbReuseOfApiserverRule } from './rules/lb-reuse-of-apiserver.rule';
import { lbReuseOfCcmCreatedRule } from './rules/lb-reuse-of-ccm-created.rule';
import { nodeportEphemeralOverlapRule } from './rules/nodeport-ephemeral-overlap.rule';
import { nodeportInEphemeralRangeRule } from './rules/nodeport-in-ephemeral-range.rule';

/**
 * Every registered check, in catalogue order (checks.md). The one place checks are registered
 * (STYLE.md F.27): the engine, the API's check listing and generated docs all read this list.
 */
export const CHECKS: readonly CheckDefinition[] = Object.freeze([
  // Quotas and capacity
  clbBackendQuotaRule,
  ecsLbAttachmentQuotaRule,
  clusterModeBlowupRule,
  nodeportEphemeralOverlapRule,
  nodeportInEphemeralRangeRule,
  // Ownership and reuse
  lbOrphanedRule,
  lbReuseOfCcmCreatedRule,
  lbReuseOfApiserverRule,
  lbReuseCrossVpcRule,
  // CCM version and RAM permissions
  ccmAnnotationUnsupportedRule,
  ccmRamPermissionGapRule,
]);

const BY_ID = new Map(CHECKS.map((c) => [c.id, c]));

/** A registered check by id, or `undefined`. */
export function getCheck(id: string): CheckDefinition | undefined {
  return BY_ID.get(id);
}

/** The ids of all registered checks. */
export const CHECK_IDS: ReadonlySet<string> = new Set(BY_ID.keys());
