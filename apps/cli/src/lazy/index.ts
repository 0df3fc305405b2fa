/**
 * Lazy access to the heavy libraries (NestJS, the cloud SDKs, client-node, pg, PGlite), so that
 * `fleet-audit --help` and `scan --fleet` do not pay for what they do not use.
 *
 * `require` (not `import()`): the build rewrites path aliases only in static import/export
 * declarations, which the `*.lazy.ts` re-export files provide; a plain relative `require` of them
 * then resolves in the CommonJS build.
 */
/* eslint-disable @typescript-eslint/no-require-imports */
export const loadAudit = (): typeof import('./audit.lazy') => require('./audit.lazy') as typeof import('./audit.lazy');
/**
 * The scan use case alone (`@app/audit/scan`): what the offline commands (`scan --fleet`, `report --fleet`) run,
 * without the store, telemetry, thread pool and launchers `@app/audit` brings in.
 */
export const loadScan = (): typeof import('./scan.lazy') => require('./scan.lazy') as typeof import('./scan.lazy');
export const loadApi = (): typeof import('./api.lazy') => require('./api.lazy') as typeof import('./api.lazy');
export const loadCollectors = (): typeof import('./collectors.lazy') => require('./collectors.lazy') as typeof import('./collectors.lazy');
export const loadFleetSim = (): typeof import('./fleet-sim.lazy') => require('./fleet-sim.lazy') as typeof import('./fleet-sim.lazy');
export const loadStore = (): typeof import('./store.lazy') => require('./store.lazy') as typeof import('./store.lazy');
export const loadQueue = (): typeof import('./queue.lazy') => require('./queue.lazy') as typeof import('./queue.lazy');
export const loadReports = (): typeof import('./reports.lazy') => require('./reports.lazy') as typeof import('./reports.lazy');
export const loadWorker = (): typeof import('./worker.lazy') => require('./worker.lazy') as typeof import('./worker.lazy');
export const loadForecast = (): typeof import('./forecast.lazy') => require('./forecast.lazy') as typeof import('./forecast.lazy');
export const loadTelemetry = (): typeof import('./telemetry.lazy') => require('./telemetry.lazy') as typeof import('./telemetry.lazy');
