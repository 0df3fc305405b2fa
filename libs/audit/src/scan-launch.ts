/**
 * Launching a scan: the one module that decides where a scan started by source name runs (`serve`, `demo`; the
 * API's `POST /v1/scans` reaches it through its `ScanLauncher` port). Each source goes to one adapter, chosen by
 * the settings (`scanLaunchModeOf`):
 *
 * - `distributed`: a scan config when a distributed launcher is configured (REDIS_URL): libs/queue
 *   `DistributedScanLauncher` creates the row and enqueues the plan job; the workers collect, analyze and store.
 * - `queued` (default for every other source): `QueuedScanLauncher` creates the row and runs the scan in a child
 *   process (`scan-child.ts`: `runScan` through its own pool, or collect -> analyze with the parent storing).
 * - `local` (`inProcess: 'local'`): `LocalScanLauncher` creates the row and runs `runScan` in this process.
 *
 * Every adapter picks sources, names fleets and lists accounts through scan-source.ts; a scan, once started, runs
 * collect -> analyze -> store top-down (scan-runner.ts, analyze-and-store.ts; docs/scan-path.md).
 */
import type { PartialAuditSettings } from '@app/checks';
import type { ScanConfig } from '@app/collectors';
import type { Store } from '@app/store';
import type { ScanEventSink } from '@app/telemetry';
import { LocalScanLauncher } from './local-scan-launcher';
import { QueuedScanLauncher, type QueuedScanLauncherOptions } from './queued-scan-launcher';
import type { ScanSource } from './scan-runner';
import { unknownScanSource, type LaunchRequest, type NamedScanSource } from './scan-source';

/** Where a launched scan runs: in this process, in a child process of the in-process queue, or on the workers. */
type ScanLaunchMode = 'local' | 'queued' | 'distributed';

/** A scan launcher as the API's `ScanLauncher` port sees it (apps/api scan-launcher.port.ts; libs never import apps). */
export interface ScanLaunchAdapter {
  /**
   * Create the scan row (`running`) and start the scan; resolves once the row exists.
   * @throws UnknownScanSourceError for a source that is not configured; the adapter's own refusals
   */
  launch(request: LaunchRequest): Promise<{ scanId: string }>;
  /** Names of the sources a request may pick, the default first. */
  sourceNames(): string[];
  /** The accounts a source reads (default source when undefined), when the adapter knows them (the API's scope check). */
  sourceAccounts?(source?: string): readonly string[] | undefined;
}

/** The distributed adapter and how to release its Redis connections. */
export interface DistributedScanLaunch {
  launcher: ScanLaunchAdapter;
  /** Close the queue connections. */
  close(): Promise<void>;
}

/** What `createScanLauncher` chooses from. */
export interface ScanLaunchSettings {
  /** Where scan rows are created (and stored, for `local` and a `queued` child without `queue.databaseUrl`). */
  store: Store;
  /** The configured sources, in the order `sourceNames()` lists them; the first is the default. */
  sources: readonly NamedScanSource[];
  /** Audit settings of every scan launched. */
  settings?: PartialAuditSettings;
  /** Scan lifecycle events of the in-process adapters (`scan.started`, `scan.completed`, `scan.failed`). */
  events?: ScanEventSink;
  /** Called with the error of every in-process scan that ended failed. */
  onError?: (e: unknown) => void;
  /** How sources the workers do not scan run: `queued` (default: child processes, one at a time) or `local`. */
  inProcess?: 'local' | 'queued';
  /** Options of the `queued` adapter (queue depth, the child's database URL, entry, timeout, heartbeat). */
  queue?: Omit<QueuedScanLauncherOptions, 'store' | 'sources' | 'settings' | 'events' | 'onError'>;
  /**
   * The workers (REDIS_URL): builds the `distributed` adapter over the scan configs it is given (called once, when
   * some source is a scan config). Unset: every source runs in this process.
   */
  distributed?: (configs: ReadonlyArray<{ name: string; config: ScanConfig }>) => DistributedScanLaunch;
}

/** The launcher `createScanLauncher` built, and its shutdown in two steps. */
export interface ScanLaunchHandle {
  /** Implements the API's `ScanLauncher` port (pass as `createApiApp({ scanLauncher })`). */
  launcher: ScanLaunchAdapter;
  /**
   * Start no more scans and end those held here (before the API app closes): the `queued` adapter fails waiting scans
   * `interrupted` and gives the running one `graceMs` (default DEFAULT_SCAN_CLOSE_GRACE_MS); the `local` one waits
   * for its scans.
   */
  stop(graceMs?: number): Promise<void>;
  /** Release the `distributed` adapter's Redis connections (after the API app closed, before the store). */
  close(): Promise<void>;
}

/**
 * Where a scan of `source` runs under `settings`: a scan config on the workers when they are configured, every
 * other source in this process (`settings.inProcess`, default `queued`). Fleet directories are files on this host,
 * which the workers cannot read.
 */
function scanLaunchModeOf(source: ScanSource, settings: Pick<ScanLaunchSettings, 'inProcess' | 'distributed'>): ScanLaunchMode {
  if (source.kind === 'live' && settings.distributed) return 'distributed';
  return settings.inProcess ?? 'queued';
}

/**
 * Build the launcher of a process that starts scans: one adapter per mode the sources need, behind one router.
 * The in-process adapter exists whenever a source needs it or no source goes to the workers (it then answers
 * launches of a process with no source, as `UnknownScanSourceError`).
 * @throws RangeError when `queue.queueDepth` is negative or not an integer
 */
export function createScanLauncher(settings: ScanLaunchSettings): ScanLaunchHandle {
  const modes = new Map(settings.sources.map((s) => [s.name, scanLaunchModeOf(s.source, settings)] as const));
  const onWorkers = settings.sources.filter((s) => modes.get(s.name) === 'distributed');
  const distributed =
    settings.distributed && onWorkers.length > 0
      ? settings.distributed(onWorkers.flatMap((s) => (s.source.kind === 'live' ? [{ name: s.name, config: s.source.config }] : [])))
      : undefined;
  const here = settings.sources.filter((s) => modes.get(s.name) !== 'distributed');
  const needsHere = here.length > 0 || !distributed;
  const { store, settings: audit, events, onError } = settings;
  const local = needsHere && settings.inProcess === 'local' ? new LocalScanLauncher(store, here, onError, audit, events) : undefined;
  const queued =
    needsHere && !local
      ? new QueuedScanLauncher({ ...settings.queue, store, sources: here, ...(audit ? { settings: audit } : {}), ...(events ? { events } : {}), ...(onError ? { onError } : {}) })
      : undefined;
  const launchers = [...(distributed ? [distributed.launcher] : []), ...(local ? [local] : []), ...(queued ? [queued] : [])];
  return {
    launcher: routeScanLaunchers(
      settings.sources.map((s) => s.name),
      launchers,
    ),
    stop: async (graceMs) => {
      await queued?.close(graceMs);
      await local?.drain();
    },
    close: async () => {
      await distributed?.close();
    },
  };
}

/**
 * One launcher over several, each serving the sources it names.
 * @param order every source name in the order they are configured; the first is the default when a request names none
 * @param launchers the adapters; each source belongs to the first one naming it
 * @returns a launcher whose `sourceNames()` is `order` (those some adapter serves) and whose `launch` hands the
 *   request to the adapter of its source; with no source to pick, the single adapter (if any) answers in its own words
 */
function routeScanLaunchers(order: readonly string[], launchers: readonly ScanLaunchAdapter[]): ScanLaunchAdapter {
  const byName = new Map<string, ScanLaunchAdapter>();
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
        if (name === undefined && launchers.length === 1) return launchers[0].launch(request);
        return Promise.reject(unknownScanSource(request.source, names));
      }
      return target.launch({ source: name });
    },
  };
}
