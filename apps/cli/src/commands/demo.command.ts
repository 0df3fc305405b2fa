/**
 * `fleet-audit demo`: the embedded default (no Redis, no Postgres server, no cloud account).
 * Starts the simulator on the bundled sample fleet, scans it LIVE through the official Alibaba Cloud
 * SDKs and @kubernetes/client-node into an embedded PostgreSQL (PGlite), prints the findings, then
 * serves the API on 127.0.0.1 until interrupted.
 */
import { helpFooter } from './help-text.util';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { loadApi, loadAudit, loadCollectors, loadFleetSim, loadForecast, loadReports, loadStore } from '../lazy';
import { writeAtomically } from './report.command';
import { readFileSync } from 'node:fs';
import type { PartialAuditSettings } from '@app/checks';
import type { EmbeddedPostgres, Store } from '@app/store';
import { renderHeadroom, renderTrends, renderWhatIf } from './forecast.command';
import { Command } from 'commander';
import { CliUsageError, EXIT_OK, reportError } from '../cli-error';
import { processEnvironment } from '@app/config';
import { cliConfig } from '../cli-config';
import { colourWanted, renderTable } from '../output/scan-output.renderer';
import { consoleBuildDir, sampleFleetDir } from '../package-root.util';
import { createScanProgressBar } from '../progress';
import { boundPort, parsePort } from './sim.command';
import { untilInterrupted } from './signals.util';
import { cliStreams } from '../output/cli-streams';

/** Options of `demo`. */
export interface DemoOptions {
  fleet?: string;
  port: number;
  /** Exit after the first scan instead of serving (for tests). */
  once?: boolean;
  /** Audit settings file; default: the sample fleet's `audit-settings.yaml` when the sample is simulated. */
  settings?: string;
}

/** Findings the demo prints (the most severe); the rest is one command or request away. */
const DEMO_TOP_FINDINGS = 12;

/**
 * Resolve when `port` can be bound on 127.0.0.1.
 * @throws CliUsageError naming the port and `--port` when it is in use
 */
export async function assertPortFree(port: number): Promise<void> {
  const { createServer } = await import('node:net');
  await new Promise<void>((resolve, reject) => {
    const srv = createServer();
    srv.once('error', (e: NodeJS.ErrnoException) =>
      reject(new CliUsageError(`port ${port} on 127.0.0.1 is ${e.code === 'EADDRINUSE' ? 'in use' : `not usable (${e.code ?? e.message})`}: choose another with --port`)),
    );
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve()));
  });
}

/**
 * The command that reproduces the demo's findings offline: the same fleet directory with the same settings file
 * (without it the sample fleet's defaults give other findings), JSON on stdout. Paths are quoted when they hold
 * characters a shell would split or expand.
 * @param fleetDir the fleet directory the demo simulated
 * @param settingsFile the settings file the demo scanned with, if any
 */
export function demoReproduceCommand(fleetDir: string, settingsFile: string | undefined): string {
  const q = (p: string) => (/^[\w@%+=:,./-]+$/.test(p) ? p : `'${p.replaceAll("'", "'\\''")}'`);
  return `npx fleet-audit scan --fleet ${q(fleetDir)}${settingsFile !== undefined ? ` --settings ${q(settingsFile)}` : ''} --format json`;
}

/** The audit settings the bundled sample fleet is shown with (examples/fleets/sample/README.md). */
export const SAMPLE_SETTINGS_FILE = 'audit-settings.yaml';

/**
 * Run the demo; returns the exit code.
 *
 * Time to first findings (`npm run bench:demo`): the embedded PostgreSQL starts in
 * its own thread first (from the cached migrated-schema template when there is one), the simulator
 * and the scan run meanwhile, and the findings are printed as soon as they are analyzed; the scan is
 * then stored (the store must succeed: a failure ends the demo with its error) before the capacity
 * planning, the report and the API, which read it back. NestJS and the API modules are loaded only
 * after that.
 */
export async function runDemoCommand(opts: DemoOptions): Promise<number> {
  const log = (s: string) => cliStreams().stderr.write(`${s}\n`);
  // Fail before any work when the API port is taken (not after a scan the user waited for).
  if (!opts.once) await assertPortFree(opts.port);
  const { Store, startEmbeddedPostgres, defaultTemplateCacheDir } = loadStore();
  log('store: starting embedded PostgreSQL (PGlite) in the background ...');
  let pg: EmbeddedPostgres | undefined;
  let store: Store | undefined;
  const storeReady = (async () => {
    pg = await startEmbeddedPostgres({ templateCacheDir: defaultTemplateCacheDir(processEnvironment()) });
    store = await Store.open({ connectionString: pg.connectionString, migrate: true, poolMax: pg.poolMax });
    log(`store: embedded PostgreSQL (PGlite) ready, schema ${pg.origin === 'template' ? 'from the cached template' : 'migrated'}`);
    if (pg.origin === 'initdb') {
      // Later demos start from this copy of the migrated schema instead of initdb + migrations.
      await pg.saveTemplate().then(
        (file) => file && log(`store: schema template cached in ${file}`),
        (e: unknown) => log(`store: schema template not cached: ${e instanceof Error ? e.message : String(e)}`),
      );
    }
    return store;
  })();
  // Awaited (and so reported) by the scan or the cleanup below.
  storeReady.catch(() => undefined);
  let sim: Awaited<ReturnType<ReturnType<typeof loadFleetSim>['startSimulator']>> | undefined;
  try {
    const { createScanLauncher, loadAuditSettings, startScan } = loadAudit();
    const { loadScanConfig, readFleetDirectory } = loadCollectors();
    const { startSimulator } = loadFleetSim();
    const fleetDir = opts.fleet ?? sampleFleetDir();
    const settingsFile = opts.settings ?? (opts.fleet === undefined ? join(fleetDir, SAMPLE_SETTINGS_FILE) : undefined);
    const settings = settingsFile !== undefined ? loadAuditSettings(settingsFile) : undefined;
    const fleet = readFleetDirectory(fleetDir);
    sim = await startSimulator({ fleet, port: 0 });
    if (settingsFile !== undefined) log(`settings: ${settingsFile}`);
    log(`simulator: Alibaba Cloud + Kubernetes APIs for fleet "${fleet.name}" on http://${sim.endpoint}`);
    // The simulator is local and unlimited: the config it writes lifts the per-account API budget (20 calls/s by
    // default, sized for the real cloud: UNLIMITED_SIM_BUDGET) so the demo does not wait on its own pacing.
    const config = loadScanConfig(sim.configPath);
    log(`scan: live, through the official SDKs (API budget ${config.collector.qpsPerAccount} calls/s per account: local simulator)`);
    const bar = createScanProgressBar();
    let barStopped = false;
    // Collect and analyze while the embedded PostgreSQL starts; the findings are shown once analyzed, while they are
    // being stored (the scan's `stored` rejects when the store does not start: nothing is lost silently).
    const scan = startScan(
      {
        source: { kind: 'live', config, configPath: sim.configPath },
        ...(settings ? { settings } : {}),
        onProgress: (p) => {
          if (!barStopped) bar.update(p);
        },
      },
      storeReady,
    );
    const analyzed = await scan.analyzed;
    barStopped = true;
    bar.stop();
    // Summary first, then the most severe findings and how to see the rest (about 1,350 lines in all).
    cliStreams().stdout.write(
      renderTable(analyzed, {
        color: colourWanted(cliStreams().stdout, cliConfig().cli.noColor),
        preview: { top: DEMO_TOP_FINDINGS, moreHint: `${demoReproduceCommand(fleetDir, settingsFile)} (or --format csv, --format html), or GET /v1/findings below` },
      }),
    );
    const outcome = await scan.stored;
    const db = await storeReady;
    log(`store: scan ${outcome.scan.id} stored`);
    if (opts.fleet === undefined) await showCapacityPlanning(db, fleetDir, new Date(outcome.scan.startedAt), settings);
    // The weekly report of what was just scanned (libs/reports), as one self-contained HTML file.
    const { buildReport, loadReportInput, renderReport } = loadReports();
    const reportDir = join(tmpdir(), 'ack-fleet-audit-demo');
    mkdirSync(reportDir, { recursive: true });
    const reportPath = writeAtomically(join(reportDir, 'weekly-report.html'), renderReport(buildReport(await loadReportInput(db)), 'html'));
    cliStreams().stdout.write(`Report: ${reportPath}\n`);
    if (opts.once) return EXIT_OK;
    const token = randomBytes(24).toString('base64url');
    // Scans of POST /v1/scans run one at a time in a child process; this process stores them
    // (PGlite serves one connection, in this process's PGlite thread).
    const launch = createScanLauncher({
      store: db,
      sources: [{ name: 'sample', source: { kind: 'live', config, configPath: sim.configPath } }],
      onError: reportError,
      ...(settings ? { settings } : {}),
    });
    const { createApiApp } = loadApi();
    const webConsole = consoleBuildDir();
    // The demo serves the GraphQL sandbox page (GET /graphql); production keeps it off (GRAPHQL_SANDBOX).
    const app = await createApiApp({
      store: db,
      token,
      scanLauncher: launch.launcher,
      graphql: { ...cliConfig().graphql, sandbox: true, stackTraces: cliConfig().cli?.debug === true },
      forecasts: { idleTimeoutMs: cliConfig().forecasts.idleTimeoutMs },
      ...(webConsole ? { consoleDir: webConsole } : {}),
    });
    // Listen before printing the URL (a signal right after it must stop the demo gracefully).
    const interrupted = untilInterrupted();
    await app.listen(opts.port, '127.0.0.1');
    // The bound port: `--port 0` lets the system choose a free one.
    const url = `http://127.0.0.1:${boundPort(app.getHttpServer(), opts.port)}`;
    cliStreams().stdout.write(
      [
        '',
        `API: ${url}  (OpenAPI document: ${url}/openapi.json)`,
        `Access token (this run only): ${token}`,
        // The fragment is never sent to the server: the page reads the token from it, keeps it in this tab
        // (sessionStorage) and clears it from the address bar and history.
        webConsole ? `Console: ${url}/#token=${token}` : 'Console: not built (npm run build:console)',
        `Try: curl -H "Authorization: Bearer ${token}" ${url}/v1/findings`,
        'Press Ctrl+C to stop.',
        '',
      ].join('\n'),
    );
    await interrupted;
    await launch.stop();
    await app.close();
    return EXIT_OK;
  } finally {
    // The database may still be starting (an error came first): let it finish, then close it.
    await storeReady.catch(() => undefined);
    await (store as Store | undefined)?.close();
    await (pg as EmbeddedPostgres | undefined)?.close();
    await sim?.close();
  }
}

/** Build the `demo` subcommand. */
export function demoCommand(run: (p: Promise<number>) => void): Command {
  return new Command('demo')
    .description('embedded demo: simulate the bundled sample fleet, scan it live into embedded Postgres, serve the API')
    .option('--fleet <dir>', 'fleet directory to simulate (default: the bundled sample fleet)')
    .option('--port <port>', 'API port on 127.0.0.1 (0: a free port, printed with the URL)', parsePort, 3000)
    .option('--once', 'exit after the scan instead of serving the API')
    .option('--settings <file>', 'audit settings (YAML/JSON); default: the sample fleet\'s audit-settings.yaml')
    .addHelpText('after', helpFooter(['fleet-audit demo', 'fleet-audit demo --once --port 3100', 'fleet-audit demo --fleet ./my-fleet']))
    .action((o: DemoOptions) => run(runDemoCommand(o)));
}

/** The sample cluster the demo's generated history grows (payments-legacy: Flannel, Cluster-mode Services). */
export const DEMO_GROWTH_CLUSTER = 'c1e64668d4e11407d7227bc187533f952';

/**
 * Capacity planning on the sample: stores a generated 6-day history (payments-legacy grew by 2 nodes a
 * day), then prints the trends, the cluster's headroom and the bundled black-friday what-if.
 */
async function showCapacityPlanning(store: Store, fleetDir: string, now: Date, settings: PartialAuditSettings | undefined): Promise<void> {
  const { backfillGrowthHistory, trendsFromStore, headroomFromStore, whatIfFromStore } = loadAudit();
  const { loadFleetDirectory } = loadCollectors();
  const { parseScenarioText } = loadForecast();
  await backfillGrowthHistory(store, loadFleetDirectory(fleetDir), { clusterId: DEMO_GROWTH_CLUSTER, days: 6, nodesPerDay: 2, now, ...(settings ? { settings } : {}) });
  const trends = (await trendsFromStore(store, { now })).filter((t) => t.status === 'ok' || t.status === 'exhausted').slice(0, 8);
  cliStreams().stdout.write(
    '\nCapacity planning (a generated 6-day history is stored: payments-legacy grew by 2 nodes a day)\n' +
      `Trends, soonest first (fleet-audit forecast trends):\n${renderTrends(trends)}`,
  );
  const { headroom } = await headroomFromStore(store, { clusterIds: [DEMO_GROWTH_CLUSTER], now });
  cliStreams().stdout.write(`Headroom (fleet-audit forecast headroom):\n${renderHeadroom(headroom)}`);
  const scenarioPath = join(fleetDir, '..', '..', 'scenarios', 'black-friday.yaml');
  const { result } = await whatIfFromStore(store, parseScenarioText(readFileSync(scenarioPath, 'utf8'), scenarioPath), { now, ...(settings ? { settings } : {}) });
  cliStreams().stdout.write(`What-if ${scenarioPath} (fleet-audit forecast whatif):\n${renderWhatIf(result)}`);
}
