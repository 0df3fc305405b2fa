import { join } from 'node:path';
import { processEnvironment } from './environment';

/**
 * Where a thread entry of a library runs from, the file `nest build cli` writes next to the compiled module: beside
 * the caller when it runs compiled (`callerFile` ends in `.js`); from TypeScript source (vitest), under FLEET_AUDIT_DIST
 * (the build bin/fleet-audit.js runs; the test suite sets it to its build), else the repository's `dist/apps/cli`.
 * Used by the threaded analysis, the forecast pool, the snapshot's gzip threads and the trend refresh thread.
 * @param callerFile the caller's `__filename`
 * @param libDir the caller's directory from the repository root (`libs/store/src`)
 * @param entry the built entry's file name (`trend-refresh-worker.js`)
 * @returns the entry's absolute path (it may not exist: TypeScript source without a build)
 */
export function builtEntryPath(callerFile: string, libDir: string, entry: string): string {
  if (callerFile.endsWith('.js')) return join(callerFile, '..', entry);
  // This module is libs/config/src/build-entry.ts here: the repository root is three levels up.
  const root = processEnvironment().FLEET_AUDIT_DIST || join(__dirname, '..', '..', '..', 'dist', 'apps', 'cli');
  return join(root, libDir, entry);
}
