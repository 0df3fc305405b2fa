/**
 * `fleet-audit report`: the weekly compliance report (libs/reports) as HTML, Markdown, CSV or JSON.
 *  - from the store: `--database-url URL` (the period ends at the latest succeeded scan; `--since`,
 *    `--until`, `--account` narrow it);
 *  - offline, no database: `--fleet DIR [--previous DIR]` scans one or two fleet dumps and diffs them
 *    (`--waivers FILE` applies a waivers file).
 * `--out FILE` writes the file atomically (temporary file + rename: never half-written) and prints its path.
 */
import { renameSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { Command, Option } from 'commander';
import { DAY_MS } from '@app/domain';
import type { OfflineScan, ReportFormat, ReportInput } from '@app/reports';
import { loadReports, loadScan, loadStore } from '../lazy';
import { CliUsageError, EXIT_OK } from '../cli-error';
import { cliStreams } from '../output/cli-streams';
import { explicitFlagsWin, formatOption } from './option-conventions.util';

/** Options of `report` after parsing. */
export interface ReportCommandOptions {
  databaseUrl?: string;
  fleet?: string;
  previous?: string;
  /** Output format (`markdown`; `md` is accepted as an alias and means the same). */
  format: ReportFormat | 'markdown';
  out?: string;
  since?: string;
  until?: string;
  account?: string[];
  waivers?: string;
  now?: string;
  /** Time of the previous dump (offline; default 7 days before --now). */
  previousAt?: string;
  title?: string;
}

function parseTime(flag: string, value: string | undefined): Date | undefined {
  if (value === undefined) return undefined;
  const d = new Date(value);
  if (Number.isNaN(d.getTime())) throw new CliUsageError(`${flag}: expected an ISO 8601 time, got "${value}"`);
  return d;
}

/** Write `text` to `path` atomically (same directory temporary file, then rename). */
export function writeAtomically(path: string, text: string): string {
  const target = resolve(path);
  const tmp = join(dirname(target), `.${basename(target)}.${process.pid}.tmp`);
  writeFileSync(tmp, text);
  renameSync(tmp, target);
  return target;
}

/** Scan one fleet directory offline into the shape a report reads. */
async function offlineScan(dir: string, at: Date, id: string): Promise<OfflineScan> {
  const { runScan } = loadScan();
  const outcome = await runScan({ source: { kind: 'offline', fleetDir: dir }, now: at });
  return {
    // Ids and times from the inputs, so the same dumps give the same report.
    scan: { id, startedAt: at.toISOString(), fleetName: outcome.scan.fleetName },
    findings: outcome.findings,
    coverage: outcome.scan.coverage,
    quotaUsage: outcome.quotaUsage,
  };
}

/** Run the report command; returns the exit code. */
export async function runReportCommand(opts: ReportCommandOptions): Promise<number> {
  if ((opts.fleet === undefined) === (opts.databaseUrl === undefined))
    throw new CliUsageError('give exactly one of --database-url URL (stored scans) or --fleet DIR [--previous DIR] (offline)');
  if (opts.previous !== undefined && opts.fleet === undefined) throw new CliUsageError('--previous needs --fleet');
  const now = parseTime('--now', opts.now) ?? new Date();
  const since = parseTime('--since', opts.since);
  const until = parseTime('--until', opts.until);
  const { buildReport, loadReportInput, renderReport, reportInputFromScans } = loadReports();
  let input: ReportInput;
  if (opts.fleet !== undefined) {
    const waivers = opts.waivers !== undefined ? loadScan().loadWaiversFile(opts.waivers, now) : [];
    const previousAt = parseTime('--previous-at', opts.previousAt) ?? new Date(now.getTime() - 7 * DAY_MS);
    input = reportInputFromScans({
      current: await offlineScan(opts.fleet, now, `fleet:${basename(resolve(opts.fleet))}`),
      ...(opts.previous !== undefined ? { previous: await offlineScan(opts.previous, previousAt, `fleet:${basename(resolve(opts.previous))}@previous`) } : {}),
      waivers,
      ...(opts.account ? { accounts: opts.account } : {}),
      now,
      ...(opts.title !== undefined ? { title: opts.title } : {}),
    });
  } else {
    if (opts.waivers !== undefined) throw new CliUsageError('--waivers applies to offline reports; stored reports use the stored waivers (fleet-audit waiver add)');
    const { Store } = loadStore();
    const store = await Store.open({ connectionString: opts.databaseUrl as string, migrate: true });
    try {
      input = await loadReportInput(store, {
        now,
        ...(since ? { since } : {}),
        ...(until ? { until } : {}),
        ...(opts.account ? { accounts: opts.account } : {}),
        ...(opts.title !== undefined ? { title: opts.title } : {}),
      });
    } finally {
      await store.close();
    }
  }
  const text = renderReport(buildReport(input), opts.format === 'markdown' ? 'md' : opts.format);
  if (opts.out !== undefined) cliStreams().stdout.write(`${writeAtomically(opts.out, text)}\n`);
  else cliStreams().stdout.write(text);
  return EXIT_OK;
}

/** Build the `report` subcommand. */
export function reportCommand(run: (p: Promise<number>) => void): Command {
  return new Command('report')
    .description('weekly compliance report (what is at risk, what changed, who owns what was waived, which quota runs out first)')
    .addOption(new Option('--database-url <url>', 'report from the scans stored in this PostgreSQL').env('DATABASE_URL'))
    .option('--fleet <dir>', 'offline: scan this fleet directory (no database)')
    .option('--previous <dir>', 'offline: the previous fleet dump to diff against')
    .option('--previous-at <iso-time>', 'offline: when the previous dump was taken (default: 7 days before --now)')
    .addOption(formatOption(['html', 'markdown', 'csv', 'json'] as const))
    .option('-o, --out <file>', 'write to this file (atomically) and print its path; default stdout')
    .option('--since <iso-time>', 'period start (default: 7 days before the period end)')
    .option('--until <iso-time>', 'period end: the latest succeeded scan started at or before it (default: now)')
    .option('--account <uid...>', 'only these accounts')
    .option('--waivers <file>', 'offline: waivers file (YAML/JSON) to apply')
    .option('--now <iso-time>', 'clock for waiver states and forecasts (default: now)')
    .option('--title <text>', 'report title')
    .addHelpText(
      'after',
      `
Examples:
  fleet-audit report --database-url "$DATABASE_URL" --format html --out weekly.html
  fleet-audit report --database-url "$DATABASE_URL" --format csv --account 1234567890123456 --since 2026-11-16
  fleet-audit report --fleet dumps/this-week --previous dumps/last-week --waivers waivers.yaml --format md`,
    )
    .action((o: ReportCommandOptions, cmd: Command) => run(runReportCommand(explicitFlagsWin(o, cmd, ['databaseUrl'], ['fleet']))));
}
