/**
 * The port through which `POST /v1/scans` starts a scan. The API does not scan on its event loop:
 * `serve` and `demo` plug in the launcher of the launch module (libs/audit `createScanLauncher`), which
 * sends scan configs to the BullMQ workers when Redis is configured (libs/queue `DistributedScanLauncher`)
 * and runs every other source in a bounded queue, one scan at a time in a child process (libs/audit
 * `QueuedScanLauncher`).
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

/** Starts scans; implemented by the launch module's launcher (libs/audit `createScanLauncher`) and `UnavailableScanLauncher`. */
export interface ScanLauncher {
  /**
   * Create the scan (status `running`) and start it in the background; resolve once the scan
   * row exists, not when the scan ends.
   * @returns the new scan's id (poll `GET /v1/scans/{id}`)
   * @throws any error when the scan cannot be started (mapped to 500 unless it is a StoreError or
   *   one the exception filter knows by name: UnknownScanSourceError 400, ScanQueueFullError 429
   *   with its `retryAfterSeconds`, ScanQueueClosedError 503)
   */
  launch(request: LaunchScanRequest): Promise<{ scanId: string }>;
  /**
   * Names of the configured sources. When implemented, the API answers 400 for any other
   * `source` before calling `launch`.
   */
  sourceNames?(): string[];
  /**
   * The accounts a source reads (default source when `source` is undefined): a token scoped to some accounts may
   * launch a source only when its scope covers every one of them. Undefined (or not implemented): not known before
   * the scan reads the source, and only an all-accounts token may launch it.
   */
  sourceAccounts?(source?: string): readonly string[] | undefined;
}
