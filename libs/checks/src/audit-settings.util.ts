import { SEVERITIES, parseCcmVersion, type Severity } from '@app/domain';
import { DEFAULT_AUDIT_SETTINGS } from './audit-settings.constants';
import { AuditSettingsError } from './audit-settings.exception';
import type { AuditSettings, CheckSettings, PartialAuditSettings } from './audit-settings.types';

function ratio(name: string, v: number): number {
  if (!Number.isFinite(v) || v <= 0 || v > 1) {
    throw new AuditSettingsError('INVALID_THRESHOLD', `${name} must be a fraction in (0, 1], got ${v}`);
  }
  return v;
}

function count(name: string, v: number, min = 0): number {
  if (!Number.isInteger(v) || v < min) {
    throw new AuditSettingsError('INVALID_THRESHOLD', `${name} must be an integer >= ${min}, got ${v}`);
  }
  return v;
}

/** Checks that the threshold named `lowName` does not exceed the one named `highName` (a warning before its critical). */
function notAbove(lowName: string, low: number, highName: string, high: number): void {
  if (low > high) {
    throw new AuditSettingsError('INVALID_THRESHOLD', `${lowName} (${low}) must not exceed ${highName} (${high})`);
  }
}

/**
 * Merges partial settings over `DEFAULT_AUDIT_SETTINGS` and validates them.
 *
 * @param knownCheckIds ids of registered checks; per-check settings for other ids are rejected
 * @throws AuditSettingsError on a ratio outside (0, 1], warning > critical, a factor < 1, a negative
 *   or fractional count, critical free IPs above warning free IPs, an unknown check id, a severity outside the enum, or an unparseable target version
 */
export function resolveAuditSettings(
  partial: PartialAuditSettings | undefined,
  knownCheckIds: ReadonlySet<string>,
): AuditSettings {
  const d = DEFAULT_AUDIT_SETTINGS;
  const quota = { ...d.quota, ...partial?.quota };
  ratio('quota.warningRatio', quota.warningRatio);
  ratio('quota.criticalRatio', quota.criticalRatio);
  notAbove('quota.warningRatio', quota.warningRatio, 'quota.criticalRatio', quota.criticalRatio);
  const clusterModeBlowup = { ...d.clusterModeBlowup, ...partial?.clusterModeBlowup };
  if (!Number.isFinite(clusterModeBlowup.minFactor) || clusterModeBlowup.minFactor < 1) {
    throw new AuditSettingsError(
      'INVALID_THRESHOLD',
      `clusterModeBlowup.minFactor must be >= 1, got ${clusterModeBlowup.minFactor}`,
    );
  }
  if (!Number.isInteger(clusterModeBlowup.minExtraBackends) || clusterModeBlowup.minExtraBackends < 0) {
    throw new AuditSettingsError(
      'INVALID_THRESHOLD',
      `clusterModeBlowup.minExtraBackends must be a non-negative integer, got ${clusterModeBlowup.minExtraBackends}`,
    );
  }
  const vSwitchIps = { ...d.vSwitchIps, ...partial?.vSwitchIps };
  count('vSwitchIps.warningFreeIps', vSwitchIps.warningFreeIps);
  count('vSwitchIps.criticalFreeIps', vSwitchIps.criticalFreeIps);
  notAbove('vSwitchIps.criticalFreeIps', vSwitchIps.criticalFreeIps, 'vSwitchIps.warningFreeIps', vSwitchIps.warningFreeIps);
  const ccmScale = { ...d.ccmScale, ...partial?.ccmScale };
  count('ccmScale.maxLoadBalancerServices', ccmScale.maxLoadBalancerServices, 1);
  count('ccmScale.maxBackends', ccmScale.maxBackends, 1);
  const servicePending = { ...d.servicePending, ...partial?.servicePending };
  count('servicePending.graceSeconds', servicePending.graceSeconds);
  const ccm = { ...d.ccm, ...partial?.ccm };
  if (!parseCcmVersion(ccm.ramTargetVersion)) {
    throw new AuditSettingsError(
      'INVALID_VERSION',
      `ccm.ramTargetVersion is not a CCM version: ${ccm.ramTargetVersion}`,
    );
  }
  const owners = { tagKey: partial?.owners?.tagKey ?? d.owners.tagKey, clusters: { ...d.owners.clusters, ...partial?.owners?.clusters } };
  const checks: Record<string, CheckSettings> = {};
  for (const [id, s] of Object.entries(partial?.checks ?? {})) {
    if (!knownCheckIds.has(id))
      throw new AuditSettingsError('UNKNOWN_CHECK', `unknown check id in settings: ${id}`);
    if (s.severity !== undefined && !SEVERITIES.includes(s.severity as Severity)) {
      throw new AuditSettingsError(
        'INVALID_SEVERITY',
        `checks.${id}.severity must be one of ${SEVERITIES.join(', ')}`,
      );
    }
    checks[id] = { ...s };
  }
  return { quota, clusterModeBlowup, vSwitchIps, ccmScale, servicePending, ccm, owners, checks };
}
