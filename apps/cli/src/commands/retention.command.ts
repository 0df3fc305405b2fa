/**
 * `fleet-audit retention run [--dry-run]`: apply the retention policy (README "Retention") to the store once, now,
 * and print what it removed (or, with `--dry-run`, would remove): scans kept, pruned and deleted, rows by table
 * and the database size. The policy comes from the RETENTION_* variables (libs/config); the workers apply the same
 * policy on RETENTION_SCHEDULE, under the same advisory lock, so running it while they do is harmless.
 */
import { Command, Option } from 'commander';
import type { RetentionRunResult } from '@app/store';
import { loadStore } from '../lazy';
import { CliUsageError, EXIT_OK } from '../cli-error';
import { cliConfig } from '../cli-config';
import { cliStreams } from '../output/cli-streams';
import { helpFooter } from './help-text.util';

/** Options of `retention run`. */
export interface RetentionRunCommandOptions {
  databaseUrl?: string;
  dryRun?: boolean;
  format: 'text' | 'json';
}

const mib = (bytes: number) => `${(bytes / 1048576).toFixed(1)} MiB`;

/** The text lines of a run's result (what `retention run` prints). */
export function formatRetentionResult(r: RetentionRunResult): string {
  if (r.status === 'skipped') return 'retention: skipped: another process is running retention now\n';
  const verb = r.status === 'dry-run' ? 'would remove' : 'removed';
  const lines = [
    `retention${r.status === 'dry-run' ? ' (dry run)' : ''}: ${r.scansKept} scans kept whole, ${r.scansPruned} ${r.status === 'dry-run' ? 'to prune' : 'pruned'} (quota samples kept), ${r.scansDeleted} ${r.status === 'dry-run' ? 'to delete' : 'deleted'}`,
  ];
  const rows = Object.entries(r.rows).sort(([a], [b]) => (a < b ? -1 : 1));
  lines.push(rows.length === 0 ? `  ${verb}: nothing` : `  ${verb}: ${rows.map(([t, n]) => `${t} ${n}`).join(', ')} rows`);
  lines.push(
    r.status === 'dry-run'
      ? `  database: ${mib(r.databaseBytesBefore)}`
      : `  database: ${mib(r.databaseBytesBefore)} -> ${mib(r.databaseBytesAfter)} (freed space is reused by later writes once autovacuum has run)`,
  );
  return `${lines.join('\n')}\n`;
}

/** Run retention once. @throws CliUsageError without a database URL */
export async function runRetentionCommand(opts: RetentionRunCommandOptions): Promise<number> {
  if (!opts.databaseUrl) throw new CliUsageError('--database-url (or DATABASE_URL) is required');
  const r = cliConfig().retention;
  const { Store } = loadStore();
  const store = await Store.open({ connectionString: opts.databaseUrl, migrate: true });
  try {
    const result = await store.retention.run({
      now: new Date(),
      policy: { rawHours: r.rawHours, dailyDays: r.dailyDays, weeklyWeeks: r.weeklyWeeks, quotaDays: r.quotaDays },
      batchRows: r.batchRows,
      dryRun: opts.dryRun === true,
    });
    cliStreams().stdout.write(opts.format === 'json' ? `${JSON.stringify(result)}\n` : formatRetentionResult(result));
  } finally {
    await store.close();
  }
  return EXIT_OK;
}

/** Build the `retention` command group (`retention run`). */
export function retentionCommand(run: (p: Promise<number>) => void): Command {
  const group = new Command('retention').description('thin old scans by the retention policy (README "Retention")');
  group.addCommand(
    new Command('run')
      .description('apply the retention policy now and print what was removed (RETENTION_* variables set the policy)')
      .addOption(new Option('--database-url <url>', 'PostgreSQL URL').env('DATABASE_URL'))
      .option('--dry-run', 'plan and count only: print what would be removed, remove nothing')
      .addOption(new Option('--format <format>', 'output').choices(['text', 'json']).default('text'))
      .addHelpText(
        'after',
        helpFooter(
          ['fleet-audit retention run --dry-run', 'RETENTION_DAILY_DAYS=30 fleet-audit retention run --database-url postgres://fleet@127.0.0.1:5432/fleet_audit', 'fleet-audit retention run --format json'],
          [
            'RETENTION_RAW_HOURS     keep every scan this many hours (48)',
            'RETENTION_DAILY_DAYS    then the last scan of each UTC day this many days (92)',
            'RETENTION_WEEKLY_WEEKS  then the last scan of each ISO week this many weeks (52), or forever',
            'RETENTION_QUOTA_DAYS    quota samples of every scan this many days (15)',
            'RETENTION_BATCH_ROWS    most rows one DELETE removes (5000)',
          ],
        ),
      )
      .action((o: RetentionRunCommandOptions) => run(runRetentionCommand(o))),
  );
  return group;
}
