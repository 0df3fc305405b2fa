/** Dependency-injection tokens of the API module (values given to `createApiApp`). */

/** The bearer token every `/v1` request must present (string). */
export const API_TOKEN = Symbol('API_TOKEN');

/** The `ScanLauncher` port implementation. */
export const SCAN_LAUNCHER = Symbol('SCAN_LAUNCHER');

/** Metadata key marking a route as public (no bearer token), see `Public()`. */
export const IS_PUBLIC_ROUTE = 'fleetAudit:isPublicRoute';
