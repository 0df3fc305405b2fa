/** Codes of invalid audit settings. */
export type AuditSettingsErrorCode =
  'INVALID_THRESHOLD' | 'UNKNOWN_CHECK' | 'INVALID_SEVERITY' | 'INVALID_VERSION';

/**
 * Thrown by `runAudit` / `resolveAuditSettings` when settings are invalid (a threshold out of range, an
 * unknown check id, a bad severity or version). Carries a `code` for transports to map.
 */
export class AuditSettingsError extends Error {
  override readonly name = 'AuditSettingsError';
  constructor(
    readonly code: AuditSettingsErrorCode,
    message: string,
  ) {
    super(message);
  }
}
