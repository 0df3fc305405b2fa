/** Public entry of libs/errors: the base error of every lib and app (`code` + `permanent`). */
export { FleetAuditError, fleetAuditErrorKind, isFleetAuditError, isPermanentError, type FleetAuditErrorOptions } from './fleet-audit.error';
export { hasConnectionLossShape } from './connection-loss';
