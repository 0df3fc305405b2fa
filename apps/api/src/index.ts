/** Public entry of apps/api: the REST API factory, its module, and the ScanLauncher port. */
export { createApiApp, MIN_TOKEN_LENGTH, type ApiAppOptions } from './api-app.factory';
export { ApiModule, type ApiModuleOptions } from './api.module';
export type { LaunchScanRequest, ScanLauncher } from './scan-launcher.port';
export { buildOpenApiDocument, OPENAPI_JSON_PATH, SWAGGER_UI_PATH } from './openapi.util';
export { loadApiConfig, type ApiConfig } from './api-config';
export { UnavailableScanLauncher } from './unavailable-scan-launcher';
export { toFindingDto } from './findings/finding.mapper';
export type { FindingDto, FindingPageDto, FindingResourceDto } from './findings/finding.dto';
export type { ScanDto, ScanListItemDto, ScanPageDto, LaunchScanResponseDto } from './scans/scan.dto';
export type { ErrorResponseDto } from './common/error-response.dto';
export { TokenAuthenticator, BOOTSTRAP_PRINCIPAL, type AuthOptions } from './auth/token-authenticator';
