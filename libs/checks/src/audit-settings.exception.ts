import { FleetAuditError } from '@app/errors';

/** Codes of invalid audit settings (stable; listed in the libs/errors README). */
export type AuditSettingsErrorCode =
  'INVALID_THRESHOLD' | 'UNKNOWN_CHECK' | 'INVALID_SEVERITY' | 'INVALID_VERSION';

/**
 * Thrown by `runAudit` / `resolveAuditSettings` when settings are invalid (a threshold out of range, an
 * unknown check id, a bad severity or version). Carries a `code` for transports to map
 * (a FleetAuditError: permanent).
 */
export class AuditSettingsError extends FleetAuditError {
  override readonly name = 'AuditSettingsError';
  /** The settings must change. */
  readonly permanent = true;
  constructor(
    readonly code: AuditSettingsErrorCode,
    message: string,
  ) {
    super(message);
  }
}
