/**
 * `serve` with both kinds of scan source: scan configs (live APIs) go to the BullMQ workers when
 * `REDIS_URL` is set, fleet directories (files on the API's host) to its in-process queue. One launcher
 * in front of both picks by source name, so `POST /v1/scans {"source":"sample"}` works with Redis too
 *.
 */
import { loadAudit } from '../lazy';

/** A scan launcher as the API's `ScanLauncher` port sees it (apps/api scan-launcher.port.ts). */
export interface NamedScanLauncher {
  launch(request: { source?: string }): Promise<{ scanId: string }>;
  sourceNames(): string[];
  /** The accounts a source reads, when the launcher knows them (the API's scope check). */
  sourceAccounts?(source?: string): readonly string[] | undefined;
}

/**
 * One launcher over several, each serving the sources it names.
 * @param order every source name in the order `serve` lists them; the first is the default when a
 *   request names none
 * @param launchers the launchers; each source belongs to the first launcher naming it
 * @returns a launcher whose `sourceNames()` is `order` (those some launcher serves) and whose `launch`
 *   hands the request to the launcher of its source
 * @throws UnknownScanSourceError (from `launch`) for a source no launcher serves, listing the configured ones
 */
export function routeScanLaunchers(order: readonly string[], launchers: readonly NamedScanLauncher[]): NamedScanLauncher {
  const byName = new Map<string, NamedScanLauncher>();
  for (const l of launchers) for (const n of l.sourceNames()) if (!byName.has(n)) byName.set(n, l);
  const names = order.filter((n) => byName.has(n));
  return {
    sourceNames: () => [...names],
    sourceAccounts(source) {
      const name = source ?? names[0];
      return name === undefined ? undefined : byName.get(name)?.sourceAccounts?.(name);
    },
    launch(request) {
      const name = request.source ?? names[0];
      const target = name === undefined ? undefined : byName.get(name);
      if (!target) {
        // With no source at all, the single launcher (if any) answers in its own words.
        if (name === undefined && launchers.length === 1) return launchers[0].launch(request);
        return Promise.reject(new (loadAudit().UnknownScanSourceError)(`unknown scan source "${request.source ?? ''}"; configured: ${names.join(', ') || 'none'}`));
      }
      return target.launch({ source: name });
    },
  };
}
