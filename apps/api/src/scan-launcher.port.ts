/**
 * The port through which `POST /v1/scans` starts a scan. The API does not scan itself: the
 * embedded mode plugs in an in-process launcher (libs/audit `LocalScanLauncher`), the
 * distributed mode one that enqueues a plan job (apps/worker).
 */

/**
 * A request to start a scan. Callers pick one of the sources the operator configured by name;
 * they cannot name server paths (a fleet directory or config file on the API host would let any
 * token holder make the server read arbitrary files).
 */
export interface LaunchScanRequest {
  /** Name of a configured scan source; default: the launcher's first (default) source. */
  source?: string;
}

/** Starts scans; implemented by the CLI (embedded mode) and the worker (distributed mode). */
export interface ScanLauncher {
  /**
   * Create the scan (status `running`) and start it in the background; resolve once the scan
   * row exists, not when the scan ends.
   * @returns the new scan's id (poll `GET /v1/scans/{id}`)
   * @throws any error when the scan cannot be started (mapped to 500 unless it is a StoreError)
   */
  launch(request: LaunchScanRequest): Promise<{ scanId: string }>;
  /**
   * Names of the configured sources. When implemented, the API answers 400 for any other
   * `source` before calling `launch`.
   */
  sourceNames?(): string[];
}
