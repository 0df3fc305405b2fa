/**
 * `fleet-audit token create|list|revoke`: scoped API tokens in PostgreSQL (`DATABASE_URL` or
 * `--database-url`). Creating needs the server key `TOKEN_HASH_KEY` (the same value the API runs
 * with): only HMAC-SHA-256(key, secret) is stored, and the token is printed once.
 */
import { Command, Option } from 'commander';
import { loadStore } from '../lazy';
import { CliUsageError, EXIT_OK } from '../cli-error';
import { cliConfig } from '../cli-config';
import { cliStreams } from '../output/cli-streams';
import { TEAM_NAME, terminalText } from '@app/domain';

/** Options shared by the token subcommands. */
interface TokenDbOptions {
  databaseUrl?: string;
}

/** Options of `token create`. */
export interface TokenCreateOptions extends TokenDbOptions {
  role: string;
  accounts?: string;
  teams?: string;
  expiresIn: string;
  name?: string;
  format: 'text' | 'json';
}

async function withStore<T>(opts: TokenDbOptions, needKey: boolean, fn: (store: import('@app/store').Store) => Promise<T>): Promise<T> {
  if (!opts.databaseUrl) throw new CliUsageError('DATABASE_URL (or --database-url) is required');
  // TOKEN_HASH_KEY's length and shape were validated at boot (libs/config); `create` needs it set.
  const key = cliConfig().api.tokenHashKey;
  const { Store, MIN_TOKEN_HASH_KEY_LENGTH } = loadStore();
  if (needKey && (!key || key.length < MIN_TOKEN_HASH_KEY_LENGTH)) {
    throw new CliUsageError(`TOKEN_HASH_KEY must be set to the API's token key (at least ${MIN_TOKEN_HASH_KEY_LENGTH} characters)`);
  }
  const store = await Store.open({ connectionString: opts.databaseUrl, migrate: true, ...(key && key.length >= MIN_TOKEN_HASH_KEY_LENGTH ? { tokenHashKey: key } : {}) });
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}

/** `token create`: print the new token once (text) or `{"id","token","role","accounts","expiresAt"}` (json). */
export async function runTokenCreate(opts: TokenCreateOptions): Promise<number> {
  const { ROLES, parseTokenTtl } = loadStore();
  if (!(ROLES as readonly string[]).includes(opts.role)) throw new CliUsageError(`--role must be one of ${ROLES.join(', ')}, got "${opts.role}"`);
  let ttlMs: number;
  try {
    ttlMs = parseTokenTtl(opts.expiresIn);
  } catch (e) {
    throw new CliUsageError(`--expires-in: ${(e as Error).message}`);
  }
  const accounts = opts.accounts === undefined ? null : opts.accounts.split(',').map((a) => a.trim()).filter((a) => a !== '');
  if (accounts !== null && accounts.length === 0) throw new CliUsageError('--accounts must list at least one account id (omit it for every account)');
  const teams = opts.teams === undefined ? null : opts.teams.split(',').map((t) => t.trim()).filter((t) => t !== '');
  if (teams !== null) {
    if (teams.length === 0) throw new CliUsageError('--teams must list at least one team (omit it for every team)');
    if (accounts === null) throw new CliUsageError("--teams needs --accounts: a team-scoped token lists the accounts of the team's clusters too");
    const bad = teams.find((t) => !TEAM_NAME.test(t));
    if (bad !== undefined) throw new CliUsageError(`--teams: "${bad.slice(0, 80)}" is not a team name (a letter or digit, then up to 62 letters, digits, ".", "_" or "-")`);
  }
  return withStore(opts, true, async (store) => {
    const { token, stored } = await store.apiTokens.create({
      role: opts.role as 'viewer',
      accounts,
      teams,
      ttlMs,
      ...(opts.name !== undefined ? { name: opts.name } : {}),
      createdBy: 'cli',
    });
    if (opts.format === 'json') {
      cliStreams().stdout.write(`${JSON.stringify({ id: stored.id, token, role: stored.role, accounts: stored.accounts, teams: stored.teams, expiresAt: stored.expiresAt })}\n`);
    } else {
      cliStreams().stdout.write(
        `${token}\n` +
          `id ${stored.id}, role ${stored.role}, accounts ${stored.accounts?.join(',') ?? 'all'}, teams ${stored.teams?.join(',') ?? 'all'}, expires ${stored.expiresAt}\n` +
          'This is the only time the token is shown: store it now.\n',
      );
    }
    return EXIT_OK;
  });
}

/** `token list`: one line per token (or JSON lines with --format json); never secrets. */
export async function runTokenList(opts: TokenDbOptions & { format: 'text' | 'json' }): Promise<number> {
  return withStore(opts, false, async (store) => {
    const tokens = await store.apiTokens.list();
    if (opts.format === 'json') cliStreams().stdout.write(`${JSON.stringify(tokens)}\n`);
    else {
      const now = Date.now();
      for (const t of tokens) {
        const state = t.revokedAt ? 'revoked' : new Date(t.expiresAt).getTime() <= now ? 'expired' : 'active';
        // A token's name is set through the API by whoever minted it: printed without control characters.
        cliStreams().stdout.write(
          `${terminalText(`${t.id}  ${t.role.padEnd(8)} ${state.padEnd(7)} accounts=${t.accounts?.join(',') ?? 'all'} teams=${t.teams?.join(',') ?? 'all'} expires=${t.expiresAt} lastUsed=${t.lastUsedAt ?? '-'} ${t.name}`, false)}\n`,
        );
      }
      if (tokens.length === 0) cliStreams().stdout.write('no tokens\n');
    }
    return EXIT_OK;
  });
}

/**
 * `token revoke ID` or `token revoke --name NAME` (the one token in force with that name, as `token create --name` set it).
 * @throws CliUsageError when no token has this id, when neither or both are given, or when the name matches no token
 *   in force or several (naming their ids)
 */
export async function runTokenRevoke(given: string | undefined, opts: TokenDbOptions & { name?: string }): Promise<number> {
  if ((given === undefined) === (opts.name === undefined)) throw new CliUsageError('give a token id or --name NAME (see "token list")');
  if (given !== undefined && !/^[0-9a-z]{12}$/.test(given)) throw new CliUsageError(`token id "${given.slice(0, 40)}" is malformed (12 lowercase letters and digits; see "token list")`);
  return withStore(opts, false, async (store) => {
    let id = given as string;
    if (opts.name !== undefined) {
      const now = Date.now();
      const named = (await store.apiTokens.list()).filter((t) => t.name === opts.name && t.revokedAt === null && Date.parse(t.expiresAt) > now);
      if (named.length !== 1)
        throw new CliUsageError(
          named.length === 0 ? `--name: no token in force is named "${opts.name}" (see "token list")` : `--name: ${named.length} tokens in force are named "${opts.name}" (${named.map((t) => t.id).join(', ')}): revoke one by id`,
        );
      id = named[0]!.id;
    }
    const revoked = await store.apiTokens.revokeWithDescendants(id, 'cli');
    if (!revoked) throw new CliUsageError(`token ${id} not found`);
    const minted = revoked.descendants.length > 0 ? ` and the ${revoked.descendants.length} token(s) it minted (${revoked.descendants.join(', ')})` : '';
    cliStreams().stdout.write(`revoked ${id}${minted} (every API replica refuses it within 5 s)\n`);
    return EXIT_OK;
  });
}

/** Build the `token` command group. */
export function tokenCommand(run: (p: Promise<number>) => void): Command {
  const db = (c: Command) => c.addOption(new Option('--database-url <url>', 'PostgreSQL URL').env('DATABASE_URL'));
  const group = new Command('token').description('create, list and revoke scoped API tokens (roles viewer|operator|admin, account scope, expiry)');
  group.addCommand(
    db(new Command('create'))
      .description('create a token and print it once (needs TOKEN_HASH_KEY, the key the API hashes tokens with)')
      .requiredOption('--role <role>', 'viewer (read) | operator (+ start scans, what-ifs) | admin (+ manage tokens)')
      .option('--accounts <ids>', 'comma-separated Alibaba Cloud account ids the token may read (default: all accounts)')
      .option('--teams <names>', "comma-separated teams (owners: the clusters' team tag or the audit settings' owners) the token may read within --accounts (default: all teams)")
      .option('--expires-in <ttl>', 'lifetime: 90d, 12h, 30m (at most 365d)', '90d')
      .option('--name <text>', 'what the token is for')
      .option('--format <format>', 'text | json', 'text')
      .addHelpText(
        'after',
        '\nExamples:\n  TOKEN_HASH_KEY=... fleet-audit token create --role viewer --accounts 1234567890123456 --expires-in 30d --name team-a\n  fleet-audit token create --role operator --accounts 1234567890123456 --teams payments --name payments-oncall\n  fleet-audit token create --role admin --format json',
      )
      .action((o: TokenCreateOptions) => run(runTokenCreate(o))),
  );
  group.addCommand(
    db(new Command('list'))
      .description('list tokens (id, role, state, accounts, expiry, last use); never secrets')
      .option('--format <format>', 'text | json', 'text')
      .action((o: TokenDbOptions & { format: 'text' | 'json' }) => run(runTokenList(o))),
  );
  group.addCommand(
    db(new Command('revoke'))
      .description('revoke a token by id, or by the name it was created with (effective on every API replica within 5 s)')
      .argument('[id]', 'token id (see "token list")')
      .option('--name <text>', 'the one token in force with this name (token create --name)')
      .addHelpText('after', '\nExamples:\n  fleet-audit token revoke k3v9x0q2m7ab\n  fleet-audit token revoke --name team-payments')
      .action((id: string | undefined, o: TokenDbOptions & { name?: string }) => run(runTokenRevoke(id, o))),
  );
  return group;
}
