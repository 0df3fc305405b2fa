/**
 * Public entry of libs/checks: the check catalogue (one pure unit per check), its registry, the
 * settings and the audit engine. No I/O, no framework (docs/architecture.md "Dependency direction").
 */
export { runAudit, sortFindings, mergeSortedFindings, withClusterName, type RunAuditOptions, type AuditOutput, type StatusCounts, statusCountsOf } from './audit.engine';
export { CHECKS, CHECK_IDS, QUOTA_CENTER_QUOTA_OF_CHECK, QUOTA_USAGE_CHECK_IDS, getCheck, unknownCheckIdReason } from './check.registry';
export { KIND_CHECKS } from './kinds';
export { compareResourceKeys, fingerprintOf, REGION_SCOPED_KINDS, resourceKeyOf } from './fingerprint.util';
export { DEFAULT_AUDIT_SETTINGS } from './audit-settings.constants';
export { resolveAuditSettings } from './audit-settings.util';
export { partialAuditSettingsSchema } from './audit-settings.schema';
export { AuditSettingsError, type AuditSettingsErrorCode } from './audit-settings.exception';
export type { AuditSettings, CheckSettings, PartialAuditSettings } from './audit-settings.types';
export type { CheckCategory, CheckContext, CheckDefinition, FastPathSwitch, ServiceFilter } from './check.types';
export {
  FleetIndex,
  maxCountOutside,
  rankNodes,
  type NodeRanking,
  type ClbEntry,
  type ClusterEntry,
  type EcsAttachment,
  type EcsEntry,
  type FleetIndexOptions,
  type NodeEntry,
  type RegionEntry,
  type ServiceEntry,
} from './fleet-index';
export { buildFleetGraph, buildFleetGraphAsync } from './fleet-graph';
export { clbOwnerClusters, nlbOwnerClusters, withLbOwner } from './clb-owner';
export { DOC_URL, SEED } from './doc-links.constants';
export {
  CHECK_CATEGORY_TITLES,
  DOCS_CHECKS_COMMAND,
  checkCatalogue,
  defaultSettingText,
  renderCheckCatalogueMarkdown,
  type CheckSummary,
} from './check-catalogue.renderer';
