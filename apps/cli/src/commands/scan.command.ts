/**
 * `fleet-audit scan`: audit a fleet offline (`--fleet DIR`) or live (`--config FILE`), print the
 * findings as a table or JSON, and exit 1 when a finding at or above `--fail-on` exists.
 */
import { loadCollectors, loadScan, loadStore } from '../lazy';
import { Command, Option } from 'commander';
import type { ScanOutcome, ScanSource } from '@app/audit';
import { severityRank, terminalText, WaiverMatcher, type Severity, type Waiver } from '@app/domain';
import { CliUsageError, EXIT_ERROR, EXIT_FINDINGS, EXIT_OK } from '../cli-error';
import { cliConfig } from '../cli-config';
import { colourWanted, findingsAtOrAbove, renderJson, renderTable } from '../output/scan-output.renderer';
import { renderCsv, renderHtml, renderJunit, renderMarkdown, renderSarif } from '../output/report-formats.renderer';
import { writeOutput } from '../output/output-file.util';
import { createScanProgressBar } from '../progress';
import { runDistributedScan } from './distributed-scan.util';
import { runScanDryRun } from './scan-dry-run';
import { cliStreams } from '../output/cli-streams';
import { formatOption } from './option-conventions.util';

/** Output formats of `scan --format`. */
export const SCAN_FORMATS = ['table', 'json', 'csv', 'markdown', 'html', 'sarif', 'junit'] as const;
/** One of `SCAN_FORMATS`. */
export type ScanFormat = (typeof SCAN_FORMATS)[number];

/**
 * The report text of an outcome in a format. `--severity` filters the findings shown in table, json, csv,
 * markdown, html and sarif; junit always lists every evaluated result (it is a test report).
 * @throws CliUsageError for `--summary` with a format other than table or json
 */
export function renderScanReport(
  outcome: ScanOutcome,
  opts: Pick<ScanCommandOptions, 'format' | 'severity' | 'summary' | 'fleet' | 'config'>,
  tty: { width?: number; color?: boolean } = {},
): string {
  if (opts.summary && opts.format !== 'table' && opts.format !== 'json')
    throw new CliUsageError(`--summary works with --format table or json, not ${opts.format}`);
  const shown = findingsAtOrAbove(outcome.findings, opts.severity);
  const filtered: ScanOutcome = { ...outcome, findings: shown };
  switch (opts.format) {
    case 'json':
      return opts.summary ? `${JSON.stringify({ scan: outcome.scan }, null, 2)}\n` : renderJson(filtered);
    case 'csv':
      return renderCsv(shown);
    case 'markdown':
      return renderMarkdown(outcome, shown);
    case 'html':
      return renderHtml(outcome, shown);
    case 'sarif':
      return renderSarif(filtered, { inputUri: opts.fleet ?? opts.config });
    case 'junit':
      return renderJunit(outcome);
    default:
      return renderTable(outcome, { ...tty, minSeverity: opts.severity, summaryOnly: opts.summary });
  }
}

/** Options of `scan` after parsing. */
export interface ScanCommandOptions {
  fleet?: string;
  config?: string;
  format: ScanFormat;
  /** Write the report to this file (atomically) instead of stdout. */
  output?: string;
  /** Display filter: only findings at or above this severity (exit code and counts are unaffected). */
  severity?: Severity;
  /** Counts only (table: no findings table; json: only `scan`). */
  summary?: boolean;
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
  /** Exit 2 when a dataset could not be read (a coverage gap), after printing the report. */
  failOnGaps?: boolean;
  /**
   * Store the scan in `databaseUrl` (default true). False for an offline scan (`--fleet`) whose database came only
   * from the environment (`DATABASE_URL` exported for the service): stored, it would become the API's latest scan
   * and replace the live fleet's view; the database is then read for its waivers only.
   */
  storeScan?: boolean;
  /** List the clusters a live scan would read (selection, endpoint) and stop (scan-dry-run.ts). */
  dryRun?: boolean;
  /**
   * Threads of an offline scan's analysis (`--threads`, as given: validated by `threadsOf`); default the cores
   * available (`os.availableParallelism()`) for a fleet directory of at least 128 MiB, one thread for a smaller one
   * (libs/audit `autoAuditThreads`); 1: one thread over the whole snapshot.
   */
  threads?: string;
}

/**
 * The thread count of `--threads`: a whole number of at least 1, or `undefined` when not given (then the cores
 * available for a fleet directory large enough to gain from them: libs/audit `autoAuditThreads`).
 * @throws CliUsageError for anything else, naming the value
 */
export function threadsOf(raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!/^\d+$/.test(raw.trim()) || !Number.isSafeInteger(n) || n < 1) throw new CliUsageError(`--threads: expected a whole number of at least 1, got "${raw}"`);
  return n;
}

/**
 * The stderr warning of an outcome with coverage gaps (datasets not read: a partial fleet directory, a
 * failed API), or `undefined` when every dataset was read. One line, whatever the report format, so a gap
 * shows even with `--format json -o FILE`: how many, and the first one with its reason.
 */
export function coverageGapWarning(outcome: ScanOutcome): string | undefined {
  const gaps = outcome.scan.coverage.filter((c) => c.status === 'failed');
  if (gaps.length === 0) return undefined;
  const g = gaps[0];
  const where = [g.accountId, g.regionId, g.clusterId].filter(Boolean).join('/');
  return (
    `fleet-audit: warning: ${gaps.length} coverage gap${gaps.length === 1 ? '' : 's'} (datasets not read; their checks are skipped, no claim made): ` +
    `${where} ${g.api}: ${g.errorCode ?? 'error'} ${g.message ?? ''}`.trimEnd() +
    (gaps.length > 1 ? ` (and ${gaps.length - 1} more: see the report's coverage)` : '')
  );
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
  const fromFile = opts.waivers !== undefined ? loadScan().loadWaiversFile(opts.waivers, now) : [];
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
  if (opts.dryRun) {
    if (source.kind !== 'live') throw new CliUsageError('--dry-run needs --config (a live scan)');
    return runScanDryRun(source.config, opts.format);
  }
  const asked = threadsOf(opts.threads);
  let now: Date | undefined;
  if (opts.now !== undefined) {
    now = new Date(opts.now);
    if (Number.isNaN(now.getTime())) throw new CliUsageError(`--now: expected an ISO 8601 time, got "${opts.now}"`);
  }
  const { runScan, loadAuditSettings, autoAuditThreads } = loadScan();
  const threads = asked ?? (source.kind === 'offline' ? autoAuditThreads(source.fleetDir) : 1);
  const settings = opts.settings !== undefined ? loadAuditSettings(opts.settings) : undefined;
  // libs/store (pg) is loaded only for a scan with a database: an offline scan without one never needs it.
  const store = opts.databaseUrl && !opts.distributed ? await loadStore().Store.open({ connectionString: opts.databaseUrl, migrate: true }) : undefined;
  const bar = createScanProgressBar(opts.progress && cliStreams().stderr.isTTY === true);
  try {
    let outcome: ScanOutcome;
    if (opts.distributed) {
      if (source.kind !== 'live') throw new CliUsageError('--distributed needs --config');
      outcome = await runDistributedScan({
        config: source.config,
        redisUrl: opts.redisUrl,
        databaseUrl: opts.databaseUrl,
        prefix: cliConfig().redis.prefix,
        ...(now ? { now } : {}),
        ...(settings ? { settings } : {}),
        onProgress: (p) => bar.update(p),
      });
    } else {
      outcome = await runScan(
        {
          source,
          ...(now ? { now, observedAt: now } : {}),
          ...(settings ? { settings } : {}),
          threads,
          // JUnit lists every evaluated result; the other formats show findings and counts.
          keepResults: opts.format === 'junit',
          onProgress: (p) => bar.update(p),
        },
        opts.storeScan === false ? undefined : store,
      );
      if (store && opts.storeScan === false)
        cliStreams().stderr.write(
          'fleet-audit: note: this offline scan was not stored: DATABASE_URL comes from the environment, and a stored scan becomes the API\'s latest (the fleet\'s view); to store it, pass --database-url "$DATABASE_URL"\n',
        );
    }
    bar.stop();
    const clock = now ?? new Date();
    const waivers = await waiversOf(opts, clock, store);
    const matcher = waivers.length > 0 ? new WaiverMatcher(waivers, clock) : undefined;
    // A waivers file entry that waives nothing is said so: expired, or matching no finding of this scan (a cluster
    // or resource of another fleet, a typo), else a stale file passes silently with 0 waived.
    if (matcher && opts.waivers !== undefined) {
      const matched = matcher.matchedIds(outcome.findings);
      for (const w of waivers.filter((x) => x.createdBy === 'file')) {
        const where = `${w.id} (${w.checkId} ${[w.accountId, w.regionId, w.clusterId].filter(Boolean).join('/')} ${w.resource})`;
        if (Date.parse(w.expiresAt) <= clock.getTime()) cliStreams().stderr.write(`${terminalText(`fleet-audit: warning: waiver ${where} expired on ${w.expiresAt.slice(0, 10)}: its findings count again`, false)}\n`);
        else if (!matched.has(w.id)) cliStreams().stderr.write(`${terminalText(`fleet-audit: warning: waiver ${where} matches no finding of this scan`, false)}\n`);
      }
    }
    // Waived findings stay in the output with their severity, marked `waived` with the waiver.
    const applied = matcher ? outcome.findings.map((f) => matcher.apply(f)) : [];
    const shown: ScanOutcome = matcher ? { ...outcome, findings: applied } : outcome;
    const toTerminal = opts.output === undefined;
    let report = renderScanReport(opts.format === 'table' ? outcome : shown, opts, {
      ...(toTerminal && cliStreams().stdout.columns ? { width: cliStreams().stdout.columns } : { width: 120 }),
      color: toTerminal && colourWanted(cliStreams().stdout, cliConfig().cli.noColor),
    });
    if (matcher && opts.format === 'table') {
      const waived = applied.filter((f) => f.status === 'waived');
      const expired = applied.filter((f) => f.status === 'waiver-expired');
      report += `Waivers: ${waived.length} finding(s) waived (not counted by --fail-on), ${expired.length} with an expired waiver.\n`;
      for (const f of waived) report += `  waived  ${f.checkId}  ${f.resource.id}  owner ${f.waiver?.owner}  until ${f.waiver?.expiresAt.slice(0, 10)}\n`;
      for (const f of expired) report += `  waiver expired  ${f.checkId}  ${f.resource.id}  owner ${f.waiver?.owner}  expired ${f.waiver?.expiresAt.slice(0, 10)}\n`;
    }
    if (opts.output !== undefined) writeOutput(opts.output, report);
    else cliStreams().stdout.write(report);
    const gapWarning = coverageGapWarning(outcome);
    if (gapWarning) cliStreams().stderr.write(`${terminalText(gapWarning, false)}\n`);
    if (gapWarning && opts.failOnGaps) return EXIT_ERROR;
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
    .option('--fleet <dir>', 'fleet directory to audit offline (docs/fleet-format.md)')
    .option('--config <file>', 'scan config (YAML/JSON) for a live scan (docs/schemas/scan-config.schema.json)')
    .addOption(formatOption(SCAN_FORMATS, 'table', 'report format'))
    .option('-o, --out <file>', 'write the report to FILE instead of stdout (replaced atomically)')
    // The name before the CLI's options were unified; kept for a release.
    .addOption(new Option('--output <file>', 'old name of --out').hideHelp())
    .addOption(
      new Option('--severity <severity>', 'show only findings at or above this severity (display filter)').choices([
        'info',
        'warning',
        'critical',
      ]),
    )
    .option('--summary', 'counts only (table: no findings table; json: only "scan")')
    .addOption(
      new Option('--fail-on <severity>', 'exit 1 when a finding at or above this severity exists')
        .choices(['info', 'warning', 'critical', 'none'])
        .default('none'),
    )
    .option('--fail-on-gaps', 'exit 2 when a dataset could not be read (coverage gap: a partial fleet directory, a failed API call)')
    .addOption(
      new Option(
        '--database-url <url>',
        'store the scan in this PostgreSQL database and apply its waivers; an offline scan (--fleet) is stored only when this flag is given, DATABASE_URL alone applies the waivers',
      ).env('DATABASE_URL'),
    )
    .option('--now <iso-time>', 'analysis clock and observation time of the stored scan (default: now); backfill history from dated dumps: scan --fleet DIR --now 2026-11-01T00:00:00Z --database-url URL')
    .option('--settings <file>', 'audit settings (YAML/JSON): thresholds, per-check enabled and severity; see docs/checks.md')
    .option('--waivers <file>', 'waivers file (YAML/JSON): waived findings are shown as waived and ignored by --fail-on; see README "Waivers"')
    .option('--dry-run', 'with --config: list the clusters the scan would read, by which API server endpoint, and those excluded and why; read nothing else')
    .option(
      '--threads <n>',
      'with --fleet: analyze the fleet directory on N threads, one account and region (shard) at a time each, reading only that shard\'s files; the same output (default: the cores available for a directory of 128 MiB or more, else 1; 1: one thread over the whole fleet)',
    )
    .option('--no-progress', 'no progress bar on stderr')
    .option('--distributed', 'enqueue the scan on the BullMQ workers (needs --redis-url and --database-url) and wait for it')
    .addOption(new Option('--redis-url <url>', 'Redis for --distributed').env('REDIS_URL'))
    .addHelpText(
      'after',
      `
Examples:
  fleet-audit scan --fleet examples/fleets/sample
  fleet-audit scan --fleet examples/fleets/sample --severity warning
  fleet-audit scan --config scan.yaml --format sarif -o fleet-audit.sarif --fail-on critical
  fleet-audit scan --config scan.yaml --format junit -o junit.xml
  fleet-audit scan --config scan.yaml --dry-run
  fleet-audit scan --fleet DIR --format json | jq '.findings[].checkId'
  fleet-audit scan --fleet dumps/2026-11-16 --now 2026-11-16T00:00:00Z --database-url "$DATABASE_URL"   # store it

Storing: a live scan (--config) is stored in --database-url / DATABASE_URL. An offline scan (--fleet) is stored
only with --database-url on the command line: with DATABASE_URL merely exported (as for the service) it is not,
so an ad-hoc scan never becomes the API's latest scan; the database's waivers still apply.

Colour: on a terminal only; set NO_COLOR=1 to turn it off.

Exit codes:
  0  no finding at or above --fail-on (or --fail-on none)
  1  a finding at or above --fail-on
  2  bad input (flag, file, config) or a failed scan; with --fail-on-gaps, also a scan
     with coverage gaps (datasets not read; a warning on stderr names the first)
  130 interrupted (Ctrl+C)`,
    )
    .action((o: Omit<ScanCommandOptions, 'output'> & { out?: string; output?: string }, cmd: Command) => {
      const { out, output, ...rest } = o;
      const file = out ?? output;
      // An offline scan is stored only when asked on the command line (README "Ad-hoc scans and the service's view").
      const storeScan = !(rest.fleet !== undefined && cmd.getOptionValueSource('databaseUrl') === 'env');
      run(runScanCommand({ ...rest, ...(file !== undefined ? { output: file } : {}), storeScan }));
    });
}
