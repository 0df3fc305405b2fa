/**
 * `fleet-audit scan`: audit a fleet offline (`--fleet DIR`) or live (`--config FILE`), print the
 * findings as a table or JSON, and exit 1 when a finding at or above `--fail-on` exists.
 */
import { loadAudit, loadCollectors, loadStore } from '../lazy';
import { Command, Option } from 'commander';
import type { ScanOutcome, ScanSource } from '@app/audit';
import { severityRank, WaiverMatcher, type Severity, type Waiver } from '@app/domain';
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
  /** Waivers file (YAML/JSON) applied to the findings (output, --fail-on). */
  waivers?: string;
}

/**
 * Exit code for an outcome: 1 when a finding at or above `failOn` exists that no active waiver covers
 * (waived findings keep their severity but never fail the build), else 0.
 * @param matcher the waivers in force (default: none)
 */
export function exitCodeFor(outcome: ScanOutcome, failOn: Severity | 'none', matcher?: WaiverMatcher): number {
  if (failOn === 'none') return EXIT_OK;
  const min = severityRank(failOn);
  const counts = (f: ScanOutcome['findings'][number]) => severityRank(f.severity) >= min && matcher?.statusOf(f.checkId, f.resource).status !== 'waived';
  return outcome.findings.some(counts) ? EXIT_FINDINGS : EXIT_OK;
}

/**
 * The waivers of a scan command: from `--waivers FILE` and, with a database, the stored ones.
 * @throws ScanConfigError for an invalid file
 */
async function waiversOf(opts: ScanCommandOptions, now: Date, store: { waivers: { list(): Promise<Waiver[]> } } | undefined): Promise<Waiver[]> {
  const fromFile = opts.waivers !== undefined ? loadAudit().loadWaiversFile(opts.waivers, now) : [];
  return [...fromFile, ...(store ? await store.waivers.list() : [])];
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
    const clock = now ?? new Date();
    const waivers = await waiversOf(opts, clock, store);
    const matcher = waivers.length > 0 ? new WaiverMatcher(waivers, clock) : undefined;
    if (!matcher) {
      process.stdout.write(opts.format === 'json' ? renderJson(outcome) : renderTable(outcome));
      return exitCodeFor(outcome, opts.failOn);
    }
    // Waived findings stay in the output with their severity, marked `waived` with the waiver.
    const shown = { ...outcome, findings: outcome.findings.map((f) => matcher.apply(f)) };
    if (opts.format === 'json') process.stdout.write(renderJson(shown));
    else {
      process.stdout.write(renderTable(outcome));
      const waived = shown.findings.filter((f) => f.status === 'waived');
      const expired = shown.findings.filter((f) => f.status === 'waiver-expired');
      process.stdout.write(`Waivers: ${waived.length} finding(s) waived (not counted by --fail-on), ${expired.length} with an expired waiver.\n`);
      for (const f of waived) process.stdout.write(`  waived  ${f.checkId}  ${f.resource.id}  owner ${f.waiver?.owner}  until ${f.waiver?.expiresAt.slice(0, 10)}\n`);
      for (const f of expired) process.stdout.write(`  waiver expired  ${f.checkId}  ${f.resource.id}  owner ${f.waiver?.owner}  expired ${f.waiver?.expiresAt.slice(0, 10)}\n`);
    }
    return exitCodeFor(outcome, opts.failOn, matcher);
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
    .option('--waivers <file>', 'waivers file (YAML/JSON): waived findings are shown as waived and ignored by --fail-on; see README "Waivers"')
    .option('--no-progress', 'no progress bar on stderr')
    .option('--distributed', 'enqueue the scan on the BullMQ workers (REDIS_URL, DATABASE_URL) and wait for it')
    .addOption(new Option('--redis-url <url>', 'Redis for --distributed').env('REDIS_URL'))
    .action((o: ScanCommandOptions) => run(runScanCommand(o)));
}
