import { closest, distance } from 'fastest-levenshtein';
import type { QuotaDefinition } from '@app/domain';
import type { CheckDefinition } from './check.types';
import { ccmAnnotationUnsupportedRule } from './rules/ccm-annotation-unsupported.rule';
import { ccmFinalizerMissingRule } from './rules/ccm-finalizer-missing.rule';
import { ccmLargeScaleRiskRule } from './rules/ccm-large-scale-risk.rule';
import { ccmRamPermissionGapRule } from './rules/ccm-ram-permission-gap.rule';
import { ccmVersionBehaviourGapRule } from './rules/ccm-version-behaviour-gap.rule';
import { clbBackendQuotaRule } from './rules/clb-backend-quota.rule';
import { clbInstanceQuotaRule } from './rules/clb-instance-quota.rule';
import { clbListenerQuotaRule } from './rules/clb-listener-quota.rule';
import { clusterModeBlowupRule } from './rules/cluster-mode-blowup.rule';
import { ecsLbAttachmentQuotaRule } from './rules/ecs-lb-attachment-quota.rule';
import { lbCcmCreatedMarkedReusedRule } from './rules/lb-ccm-created-marked-reused.rule';
import { lbConfigDriftRule } from './rules/lb-config-drift.rule';
import { lbListenerPortConflictRule } from './rules/lb-listener-port-conflict.rule';
import { lbNoBackendsRule } from './rules/lb-no-backends.rule';
import { lbNotFoundForServiceRule } from './rules/lb-not-found-for-service.rule';
import { lbOrphanedRule } from './rules/lb-orphaned.rule';
import { lbRenameTagMissingRule } from './rules/lb-rename-tag-missing.rule';
import { lbReuseAddressTypeMismatchRule } from './rules/lb-reuse-address-type-mismatch.rule';
import { lbReuseCrossVpcRule } from './rules/lb-reuse-cross-vpc.rule';
import { lbReuseListenersNotManagedRule } from './rules/lb-reuse-listeners-not-managed.rule';
import { lbReuseNameCollisionRule } from './rules/lb-reuse-name-collision.rule';
import { lbReuseOfApiserverRule } from './rules/lb-reuse-of-apiserver.rule';
import { lbReuseOfCcmCreatedRule } from './rules/lb-reuse-of-ccm-created.rule';
import { lbSharedSpecDiscontinuedRule } from './rules/lb-shared-spec-discontinued.rule';
import { nodeportEphemeralOverlapRule } from './rules/nodeport-ephemeral-overlap.rule';
import { nodeportInEphemeralRangeRule } from './rules/nodeport-in-ephemeral-range.rule';
import { nodeportRangeExhaustionRule } from './rules/nodeport-range-exhaustion.rule';
import { serviceEniOnFlannelRule } from './rules/service-eni-on-flannel.rule';
import { serviceEniStringTargetportRule } from './rules/service-eni-string-targetport.rule';
import { serviceEventErrorRule } from './rules/service-event-error.rule';
import { serviceHttpsToHttpsPortRule } from './rules/service-https-to-https-port.rule';
import { serviceImmutableChangeRule } from './rules/service-immutable-change.rule';
import { serviceLbPendingRule } from './rules/service-lb-pending.rule';
import { serviceLocalInClusterAccessRule } from './rules/service-local-in-cluster-access.rule';
import { serviceNoConnectionDrainRule } from './rules/service-no-connection-drain.rule';
import { vswitchIpExhaustionRule } from './rules/vswitch-ip-exhaustion.rule';
import { nlbServerGroupBackendQuotaRule } from './rules/nlb-server-group-backend-quota.rule';
import { nlbBackendQuotaRule } from './rules/nlb-backend-quota.rule';
import { nlbServerAddedQuotaRule } from './rules/nlb-server-added-quota.rule';
import { nlbServerGroupQuotaRule } from './rules/nlb-server-group-quota.rule';
import { nlbListenerQuotaRule } from './rules/nlb-listener-quota.rule';
import { nlbInstanceQuotaRule } from './rules/nlb-instance-quota.rule';
import { nlbOrphanedRule } from './rules/nlb-orphaned.rule';
import { nlbServerGroupOrphanedRule } from './rules/nlb-server-group-orphaned.rule';
import { nlbZoneMapsMissingRule } from './rules/nlb-zone-maps-missing.rule';
import { nlbCcmUnsupportedRule } from './rules/nlb-ccm-unsupported.rule';
import { quotaApplicationRefusedRule } from './rules/quota-application-refused.rule';
import { KIND_CHECKS } from './kinds';

/**
 * The checks that live in rules/, in catalogue order (`../shared/checks.md` sections and rows): every CLB and NLB
 * check and those of no kind. A kind's checks in its own folder are listed by `KIND_CHECKS` (kinds/index.ts).
 */
const RULES_CHECKS: readonly CheckDefinition[] = Object.freeze([
  // Quotas and capacity
  clbBackendQuotaRule,
  ecsLbAttachmentQuotaRule,
  clbListenerQuotaRule,
  clbInstanceQuotaRule,
  vswitchIpExhaustionRule,
  clusterModeBlowupRule,
  nodeportEphemeralOverlapRule,
  nodeportInEphemeralRangeRule,
  nodeportRangeExhaustionRule,
  ccmLargeScaleRiskRule,
  nlbServerGroupBackendQuotaRule,
  nlbBackendQuotaRule,
  nlbServerAddedQuotaRule,
  nlbServerGroupQuotaRule,
  nlbListenerQuotaRule,
  nlbInstanceQuotaRule,
  quotaApplicationRefusedRule,
  // Ownership and reuse
  lbOrphanedRule,
  lbNotFoundForServiceRule,
  lbReuseOfCcmCreatedRule,
  lbReuseOfApiserverRule,
  lbReuseCrossVpcRule,
  lbReuseAddressTypeMismatchRule,
  lbListenerPortConflictRule,
  lbReuseNameCollisionRule,
  lbReuseListenersNotManagedRule,
  lbCcmCreatedMarkedReusedRule,
  lbRenameTagMissingRule,
  lbSharedSpecDiscontinuedRule,
  lbNoBackendsRule,
  lbConfigDriftRule,
  serviceLbPendingRule,
  nlbOrphanedRule,
  nlbServerGroupOrphanedRule,
  // CCM version and RAM permissions
  ccmAnnotationUnsupportedRule,
  ccmVersionBehaviourGapRule,
  ccmRamPermissionGapRule,
  ccmFinalizerMissingRule,
  nlbCcmUnsupportedRule,
  // Service configuration
  serviceEniOnFlannelRule,
  serviceEniStringTargetportRule,
  serviceHttpsToHttpsPortRule,
  serviceImmutableChangeRule,
  serviceNoConnectionDrainRule,
  serviceLocalInClusterAccessRule,
  serviceEventErrorRule,
  nlbZoneMapsMissingRule,
]);

/**
 * `base` with each of `added` placed after the last check of its category (the end of that section of the
 * catalogue), in `added` order; a category `base` does not have goes at the end. Linear in the checks.
 */
function inSections(base: readonly CheckDefinition[], added: readonly CheckDefinition[]): CheckDefinition[] {
  const sections = new Map<string, CheckDefinition[]>();
  for (const c of [...base, ...added]) {
    const section = sections.get(c.category);
    if (section) section.push(c);
    else sections.set(c.category, [c]);
  }
  return [...sections.values()].flat();
}

/**
 * Every registered check, in catalogue order: the rules/ checks (`RULES_CHECKS`), then each kind folder's
 * (`KIND_CHECKS`) at the end of its category's section. The one place checks are registered (STYLE.md F.27): the
 * engine, the CLI's `checks` listing, the API's check listing and the generated `docs/checks.md` all read this list.
 */
export const CHECKS: readonly CheckDefinition[] = Object.freeze(inSections(RULES_CHECKS, KIND_CHECKS));

const BY_ID: ReadonlyMap<string, CheckDefinition> = new Map(CHECKS.map((c) => [c.id, c]));

/** A registered check by id, or `undefined`. */
export function getCheck(id: string): CheckDefinition | undefined {
  return BY_ID.get(id);
}

/** The ids of all registered checks. */
export const CHECK_IDS: ReadonlySet<string> = new Set(BY_ID.keys());

/**
 * The checks whose results measure a quota or capacity in `used` / `limit` figures (counts), pass or fail:
 * what `quotaUsageOf` samples for metrics, alerts and forecasts. Each says so in its metadata (`quotaUsage: true`),
 * in registry order. CLUSTER_MODE_BLOWUP quotes its CLB's backend
 * quota but does not own it (CLB_BACKEND_QUOTA does), so it is not here. The NLB quota checks (NLB "NLB quotas",
 * research/nlb.md 5: servers per server group and per NLB, server groups per server, server groups and NLB instances
 * per account and region, listeners per NLB) are sampled the same way, so `forecast trends` and time to exhaustion
 * cover them.
 */
export const QUOTA_USAGE_CHECK_IDS: ReadonlySet<string> = new Set(
  CHECKS.filter((c) => c.quotaUsage).map((c) => c.id),
);

/**
 * The Quota Center quota each quota check measures (check id -> `CheckDefinition.quota`), in registry order: what a
 * quota plan turns a check's quota samples into (an account, region, product and quota code to apply for).
 */
export const QUOTA_CENTER_QUOTA_OF_CHECK: ReadonlyMap<string, QuotaDefinition> = new Map(
  CHECKS.flatMap((c) => (c.quota ? [[c.id, c.quota] as const] : [])),
);

/**
 * Why `id` is not a check of the catalogue, with the nearest id when one is close (Levenshtein distance
 * at most a third of its length, at least 3): `unknown check id "CLB_BACKEND_QOTA"; did you mean
 * "CLB_BACKEND_QUOTA"?`. Waivers of a check that does not exist would match nothing and only surface
 * later as stale; the CLI, the REST API and waivers files refuse them with this text.
 * @returns undefined for a known id, else the one-line reason
 */
export function unknownCheckIdReason(id: string): string | undefined {
  if (BY_ID.has(id)) return undefined;
  const ids = [...BY_ID.keys()];
  const nearest = closest(id.toUpperCase(), ids);
  const near = distance(id.toUpperCase(), nearest) <= Math.max(3, Math.floor(id.length / 3));
  return `unknown check id "${id}"; ${near ? `did you mean "${nearest}"?` : 'the ids are listed by `fleet-audit checks`'}`;
}
