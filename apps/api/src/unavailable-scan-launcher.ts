import { ApiError } from './common/api.exception';
import type { LaunchScanRequest, ScanLauncher } from './scan-launcher.port';

/**
 * The launcher of an API process that cannot start scans (standalone `main.ts` without a
 * worker): `POST /v1/scans` answers 503 and says where scans can be started instead.
 */
export class UnavailableScanLauncher implements ScanLauncher {
  /** @throws ApiError SCAN_LAUNCH_UNAVAILABLE, always */
  launch(_request: LaunchScanRequest): Promise<{ scanId: string }> {
    return Promise.reject(
      new ApiError(
        'SCAN_LAUNCH_UNAVAILABLE',
        'this API process cannot start scans; run `fleet-audit scan --database-url ...` or the worker (distributed mode)',
      ),
    );
  }

  /** No configured sources. */
  sourceNames(): string[] {
    return [];
  }
}
