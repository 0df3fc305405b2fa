/**
 * `fleet-audit dump --config FILE --out DIR`: crawl the fleet of a scan config live (the same crawler,
 * budgets and retries as `scan --config`) and write it as a fleet directory (docs/fleet-format.md),
 * for offline scans, `report --previous` and history backfills. Atomic: the directory
 * appears only when complete. Datasets that could not be read are left out and named in `dump.json`, so
 * `scan --fleet DIR` reports the same gaps. Secrets never go into a dump (libs/collectors fleet-dump.ts).
 */
import { Command, Option } from 'commander';
import { resolve } from 'node:path';
import { loadCollectors } from '../lazy';
import { CliUsageError, EXIT_OK } from '../cli-error';
import { createScanProgressBar } from '../progress';
import { cliStreams } from '../output/cli-streams';
import { helpFooter } from './help-text.util';
import { terminalText } from '@app/domain';

/** Options of `dump`. */
export interface DumpCommandOptions {
  config: string;
  out: string;
  force: boolean;
  progress: boolean;
}

/**
 * Run the dump; returns the exit code (0: written, coverage gaps included: they are data).
 * @throws CliUsageError when the output exists without --force, or with --force is not a dump (no valid
 *   dump.json) nor empty, naming the directory; ScanConfigError for a bad --config;
 *   CredentialsConfigError when a named credentials variable is unset
 */
export async function runDumpCommand(opts: DumpCommandOptions): Promise<number> {
  const { loadScanConfig, dumpLiveFleet, DumpOutputRefusedError } = loadCollectors();
  const config = loadScanConfig(opts.config);
  const out = resolve(opts.out);
  const bar = createScanProgressBar(opts.progress && cliStreams().stderr.isTTY === true);
  let result: Awaited<ReturnType<typeof dumpLiveFleet>>;
  try {
    result = await dumpLiveFleet(config, out, { overwrite: opts.force, onProgress: (p) => bar.update({ phase: 'collect', ...p }) });
  } catch (e) {
    if (e instanceof DumpOutputRefusedError) throw new CliUsageError(`--out ${e.message}`);
    throw e;
  } finally {
    bar.stop();
  }
  const c = result.counts;
  const failed = result.manifest.notRead.filter((x) => x.status === 'failed');
  cliStreams().stderr.write(
    `fleet-audit: dumped ${config.name} to ${out}: ${c.accounts} account(s), ${c.regions} region(s), ${c.clusters} cluster(s), ${c.loadBalancers} CLB instance(s), ${c.nlbs} NLB instance(s), ${c.ecsInstances} ECS instance(s)\n`,
  );
  if (failed.length > 0) {
    cliStreams().stderr.write(`fleet-audit: ${failed.length} dataset(s) could not be read and are not in the dump (listed in dump.json; an offline scan reports them as coverage gaps):\n`);
    for (const f of failed.slice(0, 20))
      cliStreams().stderr.write(`  ${terminalText(`${f.api} of ${[f.accountId, f.regionId, f.clusterId].filter(Boolean).join('/')}: ${f.errorCode ?? 'error'}`, false)}\n`);
    if (failed.length > 20) cliStreams().stderr.write(`  ... and ${failed.length - 20} more\n`);
  }
  return EXIT_OK;
}

/** Build the `dump` subcommand. */
export function dumpCommand(run: (p: Promise<number>) => void): Command {
  return new Command('dump')
    .description('crawl a live fleet (scan config) and write it as a fleet directory for offline scans, reports and backfills')
    .requiredOption('--config <file>', 'scan config of the fleet to crawl (as for scan --config)')
    .addOption(new Option('-o, --out <dir>', 'fleet directory to write (written atomically; must not exist unless --force)').makeOptionMandatory())
    .option('--force', 'replace the output directory if it holds an earlier dump (its dump.json) or nothing; any other directory is refused', false)
    .option('--no-progress', 'no progress bar on stderr')
    .addHelpText(
      'after',
      helpFooter([
        'fleet-audit dump --config scan.yaml --out dumps/$(date +%F)',
        'fleet-audit scan --fleet dumps/2026-11-23 --format json            # offline audit of a dump',
        'fleet-audit scan --fleet dumps/2026-11-16 --now 2026-11-16T00:00:00Z --database-url $DATABASE_URL   # backfill history',
      ]),
    )
    .action((o: DumpCommandOptions) => run(runDumpCommand(o)));
}
