/** Public entry of libs/store: PostgreSQL access (pg), repositories, migrations, embedded PGlite. */
export { Store, type StoreOptions } from './store';
export { ScanRepository } from './scan.repository';
export {
  ScanTargetRepository,
  type ScanTargetRef,
  type ScanTargetStatus,
  type StoredScanTarget,
  StoredSliceParts,
  type ScanTargetProgress,
  type RunningScanRef,
} from './scan-target.repository';
export { FindingRepository, FINDING_ROWS_PER_INSERT, FINDING_PAGE_CACHE_MAX_FINDINGS } from './finding.repository';
export { ReadGenerations, scopeCacheKey, type ReadGeneration } from './read-generation';
export { QuotaTrendRepository, type QuotaSeriesKey, type QuotaTrendFitFilter, type QuotaTrendStatusFilter, type QuotaTrendWindow } from './quota-trend.repository';
export { QuotaUsageRepository, QUOTA_ROWS_PER_INSERT, type QuotaHistoryQuery, type QuotaHistorySeries } from './quota-usage.repository';
export { mergeSnapshotParts, ScanSnapshotRepository, type StoredSnapshot } from './scan-snapshot.repository';
export {
  ScanShardRepository,
  type ScanShardPart,
  type ScanShardPlace,
  type ShardStoreOutcome,
  type StoredScanShard,
} from './scan-shard.repository';
export { FleetGraphRepository, storedFleetGraph, storedNlbServerGroup, type EcsInstanceListFilter, type GraphAccount, type LoadBalancerListFilter, type NlbListFilter } from './fleet-graph.repository';
export { MAX_GRAPH_PAGE, type GraphEdge, type GraphPage, type GraphPageArgs } from './keyset-page.util';
export {
  DEFAULT_RETENTION_POLICY,
  assertRetentionPolicy,
  dayStartOf,
  planRetention,
  weekStartOf,
  type RetentionPlan,
  type RetentionPolicy,
  type RetentionScan,
} from './retention.policy';
export { PRUNED_SCAN_TABLES, RetentionRepository, type RemovedRows, type RetentionCounter, type RetentionTable } from './retention.repository';
export { RetentionService, type RetentionRunOptions, type RetentionRunResult } from './retention.service';
export { PER_SCAN_TABLES, ScanPartitions, scanPartition, type PerScanTable } from './scan-partition.util';
export { listenForClientErrors, withTransaction } from './transaction.util';
export { isConnectionLoss, withStoreRetry, type StoreRetryOptions } from './store-retry.util';
export { StoreError, redactConnectionString, type StoreErrorCode } from './store.exception';
export { describeRetentionPolicy, ScanPrunedError, type PrunedPolicy } from './scan-pruned.error';
export { defaultTemplateCacheDir, startEmbeddedPostgres, templateFileName, type EmbeddedPostgres, type EmbeddedPostgresOptions } from './embedded-postgres';
export { findMigrationsDir, MIGRATIONS_TABLE } from './migrate.util';
export { DEFAULT_PAGE_LIMIT, MAX_PAGE_LIMIT, isUuid } from './page.util';
export { MAX_BIND_PARAMETERS } from './sql.util';
export { summarizeFindings } from './summary.util';
export { auditActorOf, WaiverRepository, type AuditActor, type StoredWaiver, type CreateWaiverInput, type WaiverChanges, type WaiverHistoryEntry } from './waiver.repository';
export { WaiverService, type WaiverWithState } from './waiver.service';
export { ReportRepository, type ReportDeliveryStatus, type StoredReport, type StoredReportListItem } from './report.repository';
export { OPEN_QUOTA_APPLICATION_STATUSES, QuotaApplicationRepository, type QuotaApplicationKey, type StoredQuotaApplication, type StoredQuotaApplicationStatus } from './quota-application.repository';
export * from './store.types';
export { SCAN_HEARTBEAT_MS, SCAN_LEASE_MS, startScanHeartbeat, startScanReaper, type ScanReaperOptions } from './scan-lease';
export {
  ALL_ACCOUNTS,
  ROLES,
  SYSTEM_PRINCIPAL,
  accountsScope,
  mayManage,
  roleAllows,
  scopeCondition,
  scopeCoversCondition,
  scopeIncludes,
  teamCondition,
  teamScopeIncludes,
  type AccountScope,
  type Principal,
  type Role,
  type Scoped,
} from './principal';
export {
  ApiTokenRepository,
  scopeOfToken,
  teamScopeOfToken,
  type ApiTokenEvent,
  type CreateApiTokenInput,
  type StoredApiToken,
  type TokenDenialReason,
} from './api-token.repository';
export {
  DEFAULT_TOKEN_TTL_DAYS,
  MAX_TOKEN_TTL_DAYS,
  MIN_TOKEN_HASH_KEY_LENGTH,
  TOKEN_PREFIX,
  composeToken,
  generateToken,
  hashTokenSecret,
  looksLikeToken,
  parseToken,
  parseTokenTtl,
} from './api-token.util';
export { SCOPED_ERROR_TEXT } from './scan.repository';
export {
  FINDING_CHANGES,
  MAX_DIFF_PAGE,
  ScanDiffRepository,
  type FindingChange,
  type ScanDiffItem,
  type ScanDiffPage,
  type ScanDiffQuery,
} from './scan-diff.repository';
export { decodeCursor, encodeCursor, keysetAfter, keysetOrderBy, type KeysetColumn, type KeysetValue } from './keyset-cursor.util';
