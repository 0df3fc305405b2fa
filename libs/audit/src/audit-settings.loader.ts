/**
 * Loads an audit settings file (`--settings FILE` of `scan`, `demo`, `serve` and `worker`): YAML or
 * JSON in the shape of `PartialAuditSettings` (libs/checks/src/audit-settings.types.ts), e.g.
 *
 * ```yaml
 * quota: { warningRatio: 0.7 }
 * ccmScale: { maxLoadBalancerServices: 40 }
 * checks: { SERVICE_NO_CONNECTION_DRAIN: { enabled: false }, LB_ORPHANED: { severity: critical } }
 * ```
 *
 * Validated twice at the boundary: the strict schema (unknown keys and wrong types, with the JSON
 * path) and `resolveAuditSettings` (ranges, warning <= critical, known check ids, CCM versions).
 */
import {
  AuditSettingsError,
  CHECK_IDS,
  partialAuditSettingsSchema,
  resolveAuditSettings,
  type PartialAuditSettings,
} from '@app/checks';
import { ScanConfigError, parseConfigDocument, readConfigFile } from '@app/collectors';

/**
 * Parse and validate audit settings from text.
 * @param text YAML or JSON (strict JSON when `file` ends in `.json`)
 * @param file the name used in errors
 * @returns the partial settings as written (merged over the defaults by `runAudit`)
 * @throws ScanConfigError naming the file, the JSON path and what was expected (also for range errors)
 */
export function parseAuditSettings(text: string, file: string): PartialAuditSettings {
  const partial = parseConfigDocument(
    text,
    file,
    partialAuditSettingsSchema,
    'an audit settings object (quota, clusterModeBlowup, vSwitchIps, ccmScale, servicePending, ccm, checks)',
  );
  try {
    resolveAuditSettings(partial, CHECK_IDS);
  } catch (e) {
    if (e instanceof AuditSettingsError) {
      // Messages start with the field they are about (`quota.warningRatio (0.9) must not exceed ...`).
      const field = /^(\w+\.[\w.]+)\b/.exec(e.message)?.[1];
      const unknownId = e.code === 'UNKNOWN_CHECK' ? /: (\S+)$/.exec(e.message)?.[1] : undefined;
      const path = unknownId ? `$.checks.${unknownId}` : field ? `$.${field}` : '$';
      throw new ScanConfigError(file, path, e.message);
    }
    throw e;
  }
  return partial;
}

/**
 * Read, parse and validate an audit settings file.
 * @throws ScanConfigError when the file is unreadable or invalid
 */
export function loadAuditSettings(path: string): PartialAuditSettings {
  return parseAuditSettings(readConfigFile(path), path);
}
