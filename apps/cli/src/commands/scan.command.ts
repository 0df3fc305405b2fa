/**
 * `fleet-audit scan`: audit a fleet offline (`--fleet DIR`) or live (`--config FILE`), print the
 * findings as a table or JSON, and exit 1 when a finding at or above `--fail-on` exists.
 */
import { loadAudit, loadCollectors, loadStore } from '../lazy';
import { Command, Option } from 'commander';
import type { ScanOutcome, ScanSource } from '@app/audit';
import { severityRank, type Severity } from '@app/domain';
import { CliUsageError, EXIT_FINDINGS, EXIT_OK } from '../cli-error';
import { renderJson, renderTable } from '../output/scan-output.renderer';
import { createScanProgressBar } from '../progress';
import { runDistributedScan } from './distributed-scan.util';

/** Options of `scan` after parsing. */
export interface ScanCommandOptions {
  fleet?: string;
  config?: string;
  format: 'table' | 'json';
  failOn: Severity | 'none';
  databaseUrl?: string;
  now?: string;
  progress: boolean;
  distributed?: boolean;
  redisUrl?: string;
  /** Audit settings file (YAML/JSON): thresholds, per-check enabled/severity. */
  settings?: string;
}

/** Exit code for an outcome: 1 when a finding at or above `failOn` exists, else 0. */
export function exitCodeFor(outcome: ScanOutcome, failOn: Severity | 'none'): number {
  if (failOn === 'none') return EXIT_OK;
  const min = severityRank(failOn);
  return outcome.findings.some((f) => severityRank(f.severity) >= min) ? EXIT_FINDINGS : EXIT_OK;
}

/** Resolve `--fleet` / `--config` into a scan source. @throws CliUsageError, ScanConfigError */
export async function scanSourceOf(opts: Pick<ScanCommandOptions, 'fleet' | 'config'>): Promise<ScanSource> {
  if ((opts.fleet === undefined) === (opts.config === undefined))
    throw new CliUsageError('give exactly one of --fleet DIR (offline) or --config FILE (live)');
  if (opts.fleet !== undefined) return { kind: 'offline', fleetDir: opts.fleet };
  const configPath = opts.config as string;
  const { loadScanConfig } = loadCollectors();
  return { kind: 'live', config: loadScanConfig(configPath), configPath };
}

/** Run the scan command; returns the process exit code. */
export async function runScanCommand(opts: ScanCommandOptions): Promise<number> {
  const source = await scanSourceOf(opts);
  let now: Date | undefined;
  if (opts.now !== undefined) {
    now = new Date(opts.now);
    if (Number.isNaN(now.getTime())) throw new CliUsageError(`--now: expected an ISO 8601 time, got "${opts.now}"`);
  }
  const { runScan, loadAuditSettings } = loadAudit();
  const settings = opts.settings !== undefined ? loadAuditSettings(opts.settings) : undefined;
  const { Store } = loadStore();
  const store = opts.databaseUrl && !opts.distributed ? await Store.open({ connectionString: opts.databaseUrl, migrate: true }) : undefined;
  const bar = createScanProgressBar(opts.progress && process.stderr.isTTY === true);
  try {
    let outcome: ScanOutcome;
    if (opts.distributed) {
      if (source.kind !== 'live') throw new CliUsageError('--distributed needs --config');
      outcome = await runDistributedScan({
        config: source.config,
        redisUrl: opts.redisUrl,
        databaseUrl: opts.databaseUrl,
        ...(process.env.FLEET_AUDIT_QUEUE_PREFIX ? { prefix: process.env.FLEET_AUDIT_QUEUE_PREFIX } : {}),
        ...(now ? { now } : {}),
        ...(settings ? { settings } : {}),
        onProgress: (p) => bar.update(p),
      });
    } else {
      outcome = await runScan(
        { source, ...(now ? { now } : {}), ...(settings ? { settings } : {}), onProgress: (p) => bar.update(p) },
        store,
      );
    }
    bar.stop();
    process.stdout.write(opts.format === 'json' ? renderJson(outcome) : renderTable(outcome));
    return exitCodeFor(outcome, opts.failOn);
  } finally {
    bar.stop();
    await store?.close();
  }
}

/** Build the `scan` subcommand. */
export function scanCommand(run: (p: Promise<number>) => void): Command {
  return new Command('scan')
    .description('audit a fleet: offline from a fleet directory, or live through the Alibaba Cloud and Kubernetes APIs')
    .option('--fleet <dir>', 'fleet directory to audit offline (see docs: fleet format)')
    .option('--config <file>', 'scan config (YAML/JSON) for a live scan')
    .addOption(new Option('--format <format>', 'output format').choices(['table', 'json']).default('table'))
    .addOption(
      new Option('--fail-on <severity>', 'exit 1 when a finding at or above this severity exists')
        .choices(['info', 'warning', 'critical', 'none'])
        .default('none'),
    )
    .addOption(new Option('--database-url <url>', 'store the scan in this PostgreSQL database').env('DATABASE_URL'))
    .option('--now <iso-time>', 'analysis clock (default: now)')
    .option('--settings <file>', 'audit settings (YAML/JSON): thresholds, per-check enabled and severity; see docs/checks.md')
    .option('--no-progress', 'no progress bar on stderr')
    .option('--distributed', 'enqueue the scan on the BullMQ workers (REDIS_URL, DATABASE_URL) and wait for it')
    .addOption(new Option('--redis-url <url>', 'Redis for --distributed').env('REDIS_URL'))
    .action((o: ScanCommandOptions) => run(runScanCommand(o)));
}
