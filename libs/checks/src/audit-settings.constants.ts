import type { AuditSettings } from './audit-settings.types';

/**
 * Default audit settings. Quota thresholds: checks.md "Severity" (warning 80 %, critical 95 %).
 * Cluster-mode blowup: fail at factor >= 2 and >= 10 extra backend entries, so a small cluster with a
 * couple of nodes without pods is not reported (the waste is one or two backends), while a Service on
 * 3 of 100 nodes is. RAM target: v2.12.1 (seed 000 "v2.11.2 for route management in Flannel networks and
 * v2.12.1 for batch management of NLB").
 */
export const DEFAULT_AUDIT_SETTINGS: Readonly<AuditSettings> = Object.freeze({
  quota: Object.freeze({ warningRatio: 0.8, criticalRatio: 0.95 }),
  clusterModeBlowup: Object.freeze({ minFactor: 2, minExtraBackends: 10 }),
  ccm: Object.freeze({ ramTargetVersion: 'v2.12.1' }),
  checks: Object.freeze({}),
}) as Readonly<AuditSettings>;
