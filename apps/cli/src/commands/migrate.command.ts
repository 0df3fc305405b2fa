/**
 * `fleet-audit migrate`: apply the pending database migrations (the `.sql` files shipped in
 * `migrations/`) and exit. The one-shot `migrate` service of docker-compose.yml and the Helm chart's
 * pre-install/pre-upgrade Job run it before the API and the workers start (they also migrate on start,
 * under the same advisory lock, so running it twice is harmless).
 */
import { Command, Option } from 'commander';
import { loadStore } from '../lazy';
import { CliUsageError, EXIT_OK } from '../cli-error';
import { helpFooter } from './help-text.util';
import { cliStreams } from '../output/cli-streams';

/** Run the migrations; prints one line naming what was applied. @throws CliUsageError without a URL */
export async function runMigrateCommand(opts: { databaseUrl?: string }): Promise<number> {
  if (!opts.databaseUrl) throw new CliUsageError('--database-url (or DATABASE_URL) is required');
  const { Store } = loadStore();
  const store = await Store.open({ connectionString: opts.databaseUrl });
  try {
    const applied = await store.migrate();
    cliStreams().stdout.write(`fleet-audit: migrations: ${applied.length === 0 ? 'up to date' : `applied ${applied.join(', ')}`}\n`);
  } finally {
    await store.close();
  }
  return EXIT_OK;
}

/** Build the `migrate` subcommand. */
export function migrateCommand(run: (p: Promise<number>) => void): Command {
  return new Command('migrate')
    .description('apply pending database migrations and exit (idempotent)')
    .addOption(new Option('--database-url <url>', 'PostgreSQL URL').env('DATABASE_URL'))
    .addHelpText('after', helpFooter(['fleet-audit migrate --database-url postgres://fleet@127.0.0.1:5432/fleet_audit', 'DATABASE_URL=postgres://... fleet-audit migrate']))
    .action((o: { databaseUrl?: string }) => run(runMigrateCommand(o)));
}
