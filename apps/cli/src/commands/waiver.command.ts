/**
 * `fleet-audit waiver add|list|revoke`: owned, expiring exceptions stored in PostgreSQL.
 * Waivers apply when findings are read (API, /metrics, reports, `scan --database-url --fail-on`), so
 * a change shows at once, with no rescan. For offline scans in CI use a waivers file instead
 * (`scan --waivers FILE`).
 */
import { renderTable, tableStyleFor } from '../output/table.util';
import { Command, Option } from 'commander';
import { WAIVER_CATEGORIES, terminalText, waiverFields } from '@app/domain';
import { isFleetAuditError } from '@app/errors';
import { unknownCheckIdReason } from '@app/checks';
import { loadStore } from '../lazy';
import { CliUsageError, EXIT_OK } from '../cli-error';
import { cliStreams } from '../output/cli-streams';
import { formatOption } from './option-conventions.util';

/** Options shared by the waiver subcommands. */
interface WaiverDbOptions {
  databaseUrl?: string;
}

/** Options of `waiver add`. */
export interface WaiverAddOptions extends WaiverDbOptions {
  check: string;
  account: string;
  region?: string;
  cluster?: string;
  resource: string;
  owner: string;
  reason: string;
  category: string;
  ticket?: string;
  expires?: string;
  by: string;
  /** `table` (one line; `text` is accepted as an alias) or `json`. */
  format: 'table' | 'json';
  /** Print only the new waiver's id (for `WAIVER_ID=$(fleet-audit waiver add ... --quiet)`). */
  quiet?: boolean;
}

async function withStore<T>(opts: WaiverDbOptions, fn: (store: import('@app/store').Store) => Promise<T>): Promise<T> {
  if (!opts.databaseUrl) throw new CliUsageError('--database-url URL (or DATABASE_URL) is required: waivers live in PostgreSQL; offline scans take --waivers FILE');
  const { Store } = loadStore();
  const store = await Store.open({ connectionString: opts.databaseUrl, migrate: true });
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}

/** Turn a waiver validation error into a usage error (exit 2, one line naming the flag). */
function asUsage(e: unknown): never {
  if (isFleetAuditError(e) && e.code === 'WAIVER_INVALID') throw new CliUsageError(`invalid waiver: ${e.message}`);
  throw e;
}

/** `waiver add`: validate and store; prints the waiver id. */
export async function runWaiverAdd(opts: WaiverAddOptions): Promise<number> {
  // Refused before the database is opened: a waiver of an unknown check would match nothing.
  const unknown = unknownCheckIdReason(opts.check);
  if (unknown) throw new CliUsageError(`--check: ${unknown}`);
  return withStore(opts, async (store) => {
    const w = await store.waiverService
      .create(
        {
          ...waiverFields({
            checkId: opts.check,
            accountId: opts.account,
            regionId: opts.region,
            clusterId: opts.cluster,
            resource: opts.resource,
            owner: opts.owner,
            reason: opts.reason,
            category: opts.category,
            ticket: opts.ticket,
          }),
          ...(opts.expires !== undefined ? { expiresAt: opts.expires } : {}),
        },
        opts.by,
      )
      .catch(asUsage);
    if (opts.quiet) {
      cliStreams().stdout.write(`${w.id}\n`);
      return EXIT_OK;
    }
    cliStreams().stdout.write(opts.format === 'json' ? `${JSON.stringify(w, null, 2)}\n` : `${terminalText(`waiver ${w.id} created: ${w.checkId} ${w.accountId} ${w.resource}, owner ${w.owner}, expires ${w.expiresAt}`, false)}\n`);
    return EXIT_OK;
  });
}

/** `waiver list`: every waiver with its state (table or JSON). */
export async function runWaiverList(opts: WaiverDbOptions & { all?: boolean; format: 'table' | 'json' }): Promise<number> {
  return withStore(opts, async (store) => {
    const waivers = await store.waiverService.listWithState(new Date(), { includeRevoked: opts.all ?? false });
    if (opts.format === 'json') {
      cliStreams().stdout.write(`${JSON.stringify(waivers, null, 2)}\n`);
      return EXIT_OK;
    }
    // The id's first 8 characters (what `waiver revoke` takes, as git takes a short hash): a whole uuid would
    // wrap in a table of nine columns; --format json has the whole id.
    const rows = waivers.map((w) => [
      w.id.slice(0, 8),
      w.state,
      w.checkId,
      [w.accountId, w.regionId, w.clusterId].filter(Boolean).join('/'),
      w.resource,
      w.owner,
      w.category,
      w.expiresAt.slice(0, 10),
      w.matches.map((m) => m.findings).join(', ') || '-',
    ]);
    const table = renderTable(['ID', 'STATE', 'CHECK', 'SCOPE', 'RESOURCE', 'OWNER', 'CATEGORY', 'EXPIRES', 'MATCHED'], rows, tableStyleFor());
    cliStreams().stdout.write(`${table}\n${waivers.length} waiver(s)\n`);
    return EXIT_OK;
  });
}

/** `waiver revoke ID`: the whole id or a unique prefix of it (at least 4 characters; `waiver list` shows 8). */
export async function runWaiverRevoke(id: string, opts: WaiverDbOptions & { by: string }): Promise<number> {
  return withStore(opts, async (store) => {
    const w = await (async () => store.waiverService.revoke(await store.waiverService.resolveIdPrefix(id), opts.by))().catch((e: unknown) => {
      // A store refusal (not found, conflict, forbidden) is the user's to fix; UNAVAILABLE stays an error.
      if (isFleetAuditError(e) && e.permanent) throw new CliUsageError(e.message);
      throw e;
    });
    cliStreams().stdout.write(`${terminalText(`waiver ${w.id} revoked by ${w.revokedBy}: its findings count again`, false)}\n`);
    return EXIT_OK;
  });
}

const dbOption = () => new Option('--database-url <url>', 'PostgreSQL holding the waivers').env('DATABASE_URL');
const byOption = () => new Option('--by <name>', 'who makes the change (recorded in the waiver history)').env('USER').default('cli');

/** Build the `waiver` command with its subcommands. */
export function waiverCommand(run: (p: Promise<number>) => void): Command {
  const cmd = new Command('waiver').description('owned, expiring waivers of findings (stored in PostgreSQL, applied when findings are read)').addHelpText(
    'after',
    `
Examples:
  fleet-audit waiver add --check CLB_BACKEND_QUOTA --account 1234567890123456 --resource 'lb-bp1*' \\
      --owner team-network --reason "NLB migration planned for Q3" --category accepted-risk --ticket NET-42
  fleet-audit waiver list --all          # ID: the first 8 characters of each id
  fleet-audit waiver revoke 5f0c2b7e     # a unique prefix of the id (at least 4 characters) or the whole id

Exit codes:
  0    ok
  2    bad input (flag, file, waiver) or a failure
  130  interrupted (Ctrl+C)`,
  );
  cmd
    .command('add')
    .description('create a waiver (reason >= 10 characters; expiry default 90 days, at most 180)')
    .requiredOption('--check <id>', 'check id, e.g. CLB_BACKEND_QUOTA')
    .requiredOption('--account <uid>', 'Alibaba Cloud account UID')
    .option('--region <id>', 'only this region')
    .option('--cluster <id>', 'only this ACK cluster')
    .requiredOption('--resource <id-or-glob>', "resource id or glob ('*' every resource, 'lb-bp1*')")
    .requiredOption('--owner <name>', 'person or team answerable for the accepted risk')
    .requiredOption('--reason <text>', 'why (at least 10 characters)')
    .addOption(new Option('--category <category>', 'why it is acceptable').choices([...WAIVER_CATEGORIES]).makeOptionMandatory())
    .option('--ticket <ref>', 'ticket or change reference')
    .option('--expires <iso-date>', 'expiry (default 90 days from now; at most 180)')
    .addOption(byOption())
    .addOption(formatOption(['table', 'json'] as const, 'table', 'output'))
    .option('-q, --quiet', "print only the new waiver's id (WAIVER_ID=$(fleet-audit waiver add ... --quiet))")
    .addOption(dbOption())
    .action((o: WaiverAddOptions) => run(runWaiverAdd(o)));
  cmd
    .command('list')
    .description('waivers with their state: active, expiring (<= 14 days), expired, stale (matched nothing in the last 2 scans)')
    .option('--all', 'also revoked waivers')
    .addOption(formatOption(['table', 'json'] as const, 'table', 'output'))
    .addOption(dbOption())
    .action((o: WaiverDbOptions & { all?: boolean; format: 'table' | 'json' }) => run(runWaiverList(o)));
  cmd
    .command('revoke')
    .description('revoke a waiver: its findings count again at once (the waiver and its history stay)')
    .argument('<id>', 'waiver id (uuid) or a unique prefix of it, at least 4 characters (waiver list shows 8)')
    .addOption(byOption())
    .addOption(dbOption())
    .action((id: string, o: WaiverDbOptions & { by: string }) => run(runWaiverRevoke(id, o)));
  return cmd;
}
