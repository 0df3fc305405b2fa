import type { Severity } from '@app/domain';

/**
 * Settings of an audit (STYLE.md F.26): quota thresholds, check-specific thresholds, and per-check
 * enabled state and severity override. Defaults: `DEFAULT_AUDIT_SETTINGS`.
 */
export interface AuditSettings {
  /**
   * Quota thresholds as fractions of the effective quota (checks.md "Quota checks take thresholds from
   * config (defaults: warning at 80 %, critical at 95 %)").
   */
  quota: {
    /** Warning at or above this ratio (0..1), default 0.8. */
    warningRatio: number;
    /** Critical at or above this ratio (0..1), default 0.95; must be >= warningRatio. */
    criticalRatio: number;
  };
  /** `CLUSTER_MODE_BLOWUP` thresholds. */
  clusterModeBlowup: {
    /** Fail when attached / Local-mode backends is at least this factor, default 2. */
    minFactor: number;
    /** ...and Cluster mode attaches at least this many extra backend entries (count), default 10, at the default
     * quotas; scaled down with the smaller of CLB backend-server quota / 200 and ECS attachment quota / 50. */
    minExtraBackends: number;
  };
  /** `VSWITCH_IP_EXHAUSTION` thresholds: free IP addresses left in a vSwitch (counts). */
  vSwitchIps: {
    /** Warning at or below this many free IPs, default 32. */
    warningFreeIps: number;
    /** Critical at or below this many free IPs, default 0 (the next CLB or ENI pod fails); <= warningFreeIps. */
    criticalFreeIps: number;
  };
  /** `CCM_LARGE_SCALE_RISK` thresholds per cluster (counts). */
  ccmScale: {
    /** Fail at or above this many LoadBalancer Services in one cluster, default 200. */
    maxLoadBalancerServices: number;
    /** Fail at or above this many backend entries CCM keeps in sync for one cluster, default 10,000. */
    maxBackends: number;
  };
  /** `SERVICE_LB_PENDING`: a Service younger than this (seconds) may still be provisioning, default 300. */
  servicePending: {
    graceSeconds: number;
  };
  /** CCM-related settings. */
  ccm: {
    /**
     * Target CCM version of `CCM_RAM_PERMISSION_GAP` besides the installed one (default `v2.12.1`, the
     * first version needing every permission seed 000 documents).
     */
    ramTargetVersion: string;
  };
  /**
   * Owners (libs/domain owners.ts `teamOf`): the ACK cluster tag naming a cluster's team (`tagKey`, default `team`)
   * and teams set by cluster id or name (`clusters`, wins over the tag). Findings, quota samples and headroom rows
   * carry the team.
   */
  owners: { tagKey: string; clusters: Record<string, string> };
  /** Per-check overrides by check id. */
  checks: Record<string, CheckSettings>;
}

/** Per-check settings. */
export interface CheckSettings {
  /** `false` disables the check: no results at all. Default true. */
  enabled?: boolean;
  /** Replaces the severity of every result of the check. */
  severity?: Severity;
}

/** Partial settings as callers pass them (CLI, API, config); merged over the defaults. */
export interface PartialAuditSettings {
  quota?: Partial<AuditSettings['quota']>;
  clusterModeBlowup?: Partial<AuditSettings['clusterModeBlowup']>;
  vSwitchIps?: Partial<AuditSettings['vSwitchIps']>;
  ccmScale?: Partial<AuditSettings['ccmScale']>;
  servicePending?: Partial<AuditSettings['servicePending']>;
  ccm?: Partial<AuditSettings['ccm']>;
  owners?: Partial<AuditSettings['owners']>;
  checks?: Record<string, CheckSettings>;
}
