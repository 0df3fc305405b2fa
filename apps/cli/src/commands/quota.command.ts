/**
 * `fleet-audit quota plan`: the Quota Center values to apply for before the fleet's quotas run out (libs/forecast
 * quota-plan.ts over the store: libs/audit `quotaPlanFromStore`). JSON contract: `QuotaPlan`, the same as
 * `GET /v1/quota-plan`.
 * `fleet-audit quota request [--apply]`: files the plan's REQUEST rows as Quota Center applications, once each
 * (libs/audit quota-request-runner.ts), with the scan config's accounts and credentials.
 */
import { userInfo } from 'node:os';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Command, Option } from 'commander';
import type { QuotaPlan, QuotaPlanRow, Scenario } from '@app/forecast';
import type { QuotaRequestOutcome } from '@app/audit';
import { CliUsageError, EXIT_OK } from '../cli-error';
import { loadAudit, loadCollectors, loadForecast, loadStore } from '../lazy';
import { cliStreams } from '../output/cli-streams';
import { writeOutput } from '../output/output-file.util';
import { renderTable, tableStyleFor, type TableStyle } from '../output/table.util';
import { formatOption, parseNow } from './option-conventions.util';

type Format = 'table' | 'json' | 'markdown';

function positiveInt(flag: string) {
  return (text: string): number => {
    const n = Number(text);
    if (!Number.isInteger(n) || n < 1 || n > 3650) throw new CliUsageError(`${flag}: expected a whole number of days from 1 to 3650, got "${text}"`);
    return n;
  };
}

function percent(flag: string) {
  return (text: string): number => {
    const n = Number(text);
    if (!Number.isFinite(n) || n < 0 || n > 1000) throw new CliUsageError(`${flag}: expected a percentage from 0 to 1000, got "${text}"`);
    return n;
  };
}

const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

/** The scenarios of `--scenario FILE` (repeatable), parsed; a file that cannot be read or parsed is a usage error naming it. */
function readScenarios(files: readonly string[]): Scenario[] {
  const { parseScenarioText } = loadForecast();
  return files.map((file) => {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (e) {
      throw new CliUsageError(`--scenario: cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`);
    }
    return parseScenarioText(text, file);
  });
}

const ACTION_TEXT: Readonly<Record<QuotaPlanRow['action'], string>> = {
  request: 'REQUEST',
  remediate: 'REMEDIATE',
  pending: 'pending',
  covered: 'covered',
};

/** What to do, in one cell: the value to ask for, the remediation and its size, or the application in review. */
function actionCell(r: QuotaPlanRow): string {
  if (r.action === 'request') return `ask ${r.requestValue}`;
  if (r.action === 'remediate') return `${r.remediation?.size !== null && r.remediation?.size !== undefined ? `frees ${r.remediation.size}: ` : ''}${r.remediation?.text ?? ''}`;
  if (r.action === 'pending') return r.application ? `${r.application.applicationId} asks ${r.application.desireValue}` : 'in review (Quota Center)';
  return '-';
}

/** Table rendering; `style`: width and colour (default: stdout's). */
export function renderQuotaPlan(plan: QuotaPlan, style: TableStyle = tableStyleFor()): string {
  if (plan.rows.length === 0) return 'No Quota Center quota has stored samples (store scans with --database-url; backfill with scan --now).\n';
  const rows = plan.rows.map((r) => [
    ACTION_TEXT[r.action],
    `${r.accountId} ${r.regionId}`,
    r.quotaActionCode,
    `${r.used}/${r.limit}`,
    String(r.need),
    actionCell(r),
    r.firstToReach ? `${r.firstToReach.resource.id} p10 ${r.firstToReach.exhaustsAtP10?.slice(0, 10) ?? '-'}` : '-',
    r.adjustable ? `yes (${r.adjustableSource})` : `no (${r.adjustableSource})`,
  ]);
  const t = renderTable(['action', 'account region', 'quota', 'used/limit', `need ${plan.horizonDays} d`, 'do', 'first to reach it', 'adjustable'], rows, style);
  const scenarios = plan.scenarios.length > 0 ? ` and the scenarios ${plan.scenarios.join(', ')}` : '';
  return (
    `${t}\nneed = the early (p10) trend's use in ${plan.horizonDays} days${scenarios}; ask = need + ${plan.marginPercent} % margin, rounded up.\n` +
    'File the REQUEST rows with `fleet-audit quota request --apply` or in the Quota Center console; the JSON (--format json) has the reason per row.\n'
  );
}

/** Markdown rendering (a pull-request or ticket comment). */
export function renderQuotaPlanMarkdown(plan: QuotaPlan): string {
  const esc = (s: string) => s.replace(/\|/g, '\\|');
  const lines = [
    `### Quota plan: next ${plan.horizonDays} days (margin ${plan.marginPercent} %)`,
    '',
    '| action | account | region | quota | used/limit | need | do | why |',
    '| --- | --- | --- | --- | --- | --- | --- | --- |',
    ...plan.rows.map((r) => `| ${ACTION_TEXT[r.action]} | ${r.accountId} | ${r.regionId} | \`${r.quotaActionCode}\` | ${r.used}/${r.limit} | ${r.need} | ${esc(actionCell(r))} | ${esc(r.why)} |`),
    '',
  ];
  return `${lines.join('\n')}\n`;
}

/**
 * Print the text on stdout, or with `-o, --out FILE` write it to that file atomically (laid out for 120 columns,
 * uncoloured) and print the file's path, as every writing command does.
 */
function emit(out: string | undefined, text: (style?: TableStyle) => string): void {
  if (out === undefined) {
    cliStreams().stdout.write(text());
    return;
  }
  const target = resolve(out);
  writeOutput(target, text({ width: 120, color: false }));
  cliStreams().stdout.write(`${target}\n`);
}

interface PlanOptions {
  databaseUrl?: string;
  now?: string;
  horizon?: number;
  margin?: number;
  scenario?: string[];
  account?: string;
  format: Format;
  out?: string;
}

async function runPlan(o: PlanOptions): Promise<number> {
  if (!o.databaseUrl) throw new CliUsageError('--database-url URL (or DATABASE_URL) is required: the plan reads the stored scans');
  const scenarios = readScenarios(o.scenario ?? []);
  const now = parseNow(o.now);
  const { quotaPlanFromStore } = loadAudit();
  const { Store } = loadStore();
  const store = await Store.open({ connectionString: o.databaseUrl, migrate: true });
  let plan: QuotaPlan;
  try {
    plan = (
      await quotaPlanFromStore(store, {
        ...(now ? { now } : {}),
        settings: { ...(o.horizon !== undefined ? { horizonDays: o.horizon } : {}), ...(o.margin !== undefined ? { marginPercent: o.margin } : {}) },
        scenarios,
        ...(o.account ? { accountIds: [o.account] } : {}),
      })
    ).plan;
  } finally {
    await store.close();
  }
  emit(o.out, (style) => (o.format === 'json' ? `${JSON.stringify(plan, null, 2)}\n` : o.format === 'markdown' ? renderQuotaPlanMarkdown(plan) : renderQuotaPlan(plan, style)));
  return EXIT_OK;
}

interface RequestOptions extends Omit<PlanOptions, 'format'> {
  config?: string;
  apply?: boolean;
  retryRefused?: boolean;
  requestedBy?: string;
  format: 'table' | 'json';
}

/** Table rendering of a request run's outcomes. */
export function renderQuotaRequests(outcomes: readonly QuotaRequestOutcome[], apply: boolean, style: TableStyle = tableStyleFor()): string {
  if (outcomes.length === 0) return 'Nothing to file: no quota needs more than its limit within the horizon.\n';
  const rows = outcomes.map((o) => [o.outcome, `${o.accountId} ${o.regionId}`, o.quotaActionCode, o.desireValue === null ? '-' : String(o.desireValue), o.application?.applicationId ?? '-', o.message]);
  const t = renderTable(['outcome', 'account region', 'quota', 'value', 'application', 'message'], rows, style);
  return `${t}\n${apply ? '' : 'Nothing was filed: run with --apply to file the would-file rows (write RAM policy: fleet-audit iam-policy --quota-requests).\n'}`;
}

async function runRequest(o: RequestOptions): Promise<number> {
  if (!o.databaseUrl) throw new CliUsageError('--database-url URL (or DATABASE_URL) is required: the plan reads the stored scans');
  if (!o.config) throw new CliUsageError('--config FILE is required: the scan config names the accounts and their credentials');
  const { loadScanConfig, defaultCredentialsFor, createAccountClients, quotaCenterPort, isQuotaCenterRefusal } = loadCollectors();
  const config = loadScanConfig(o.config);
  const scenarios = readScenarios(o.scenario ?? []);
  const now = parseNow(o.now);
  const credentialsFor = defaultCredentialsFor(config);
  const { requestQuotas } = loadAudit();
  const { Store } = loadStore();
  const store = await Store.open({ connectionString: o.databaseUrl, migrate: true });
  let outcomes: QuotaRequestOutcome[];
  try {
    ({ outcomes } = await requestQuotas(store, {
      accounts: o.account ? config.accounts.filter((a) => a.accountId === o.account) : config.accounts,
      quotaCenterFor: async (accountId) => {
        const account = config.accounts.find((a) => a.accountId === accountId)!;
        return quotaCenterPort(createAccountClients(config.alibabaCloud, await credentialsFor(account)).quotas);
      },
      isRefusal: isQuotaCenterRefusal,
      apply: o.apply === true,
      retryRefused: o.retryRefused === true,
      requestedBy: o.requestedBy ?? userInfo().username,
      ...(now ? { now } : {}),
      settings: { ...(o.horizon !== undefined ? { horizonDays: o.horizon } : {}), ...(o.margin !== undefined ? { marginPercent: o.margin } : {}) },
      scenarios,
    }));
  } finally {
    await store.close();
  }
  emit(o.out, (style) => (o.format === 'json' ? `${JSON.stringify({ apply: o.apply === true, outcomes }, null, 2)}\n` : renderQuotaRequests(outcomes, o.apply === true, style)));
  // A refused call or application, an unknown outcome, or (when filing) a quota held back by a standing refusal needs
  // a person.
  const needsAPerson = (x: QuotaRequestOutcome) =>
    x.outcome === 'failed' || x.outcome === 'unknown' || (o.apply === true && x.outcome === 'refused-before') || (x.outcome === 'filed' && x.application?.status === 'Disagree');
  return outcomes.some(needsAPerson) ? 1 : EXIT_OK;
}

/** Build the `quota` command and its subcommands. */
export function quotaCommand(run: (p: Promise<number>) => void): Command {
  const quota = new Command('quota').description('Quota Center: the values to apply for before the fleet\'s quotas run out');
  quota.addCommand(
    new Command('plan')
      .description('per account, region and quota: the value covering the p10 trend over the horizon and the planned scenarios, plus a margin; remediation where a quota cannot be raised')
      .addOption(new Option('--database-url <url>', 'PostgreSQL with stored scans').env('DATABASE_URL'))
      .option('--now <iso-time>', 'plan clock (default: now)')
      .option('--horizon <days>', 'days the value must cover (default 30)', positiveInt('--horizon'))
      .option('--margin <percent>', 'head room above the need (default 10)', percent('--margin'))
      .option('--scenario <file>', 'a planned change (what-if scenario, YAML or JSON) whose quota use the value must also cover; repeatable', collect)
      .option('--account <id>', 'only this account')
      .addOption(formatOption(['table', 'json', 'markdown'] as const))
      .addOption(new Option('-o, --out <file>', 'write to this file (atomically) and print its path; default stdout'))
      .addHelpText(
        'after',
        '\nEach row: the limit in force and the highest use; need = the early (p10) trend\'s use at the horizon (or a scenario\'s, if higher);\n' +
          'REQUEST = ask for need + margin; REMEDIATE = the quota cannot be raised (Quota Center\'s Adjustable, read live, else the\n' +
          'documentation), with what frees room and how much; pending = an application is in review; covered = nothing to do.\n' +
          '\nExamples:\n  fleet-audit quota plan --database-url $DATABASE_URL\n' +
          '  fleet-audit quota plan --horizon 60 --margin 20 --scenario examples/scenarios/black-friday.yaml --format markdown -o plan.md\n',
      )
      .action((o: PlanOptions) => run(runPlan(o))),
  );
  quota.addCommand(
    new Command('request')
      .description('file the plan\'s REQUEST rows as Quota Center applications (CreateQuotaApplication), once each; without --apply only say what would be filed')
      .addOption(new Option('--database-url <url>', 'PostgreSQL with stored scans').env('DATABASE_URL'))
      .option('--config <file>', 'scan config: the accounts and their credentials (the write policy: fleet-audit iam-policy --quota-requests)')
      .option('--apply', 'file the applications (default: a dry run)')
      .option('--retry-refused', 'also file quotas whose latest application Quota Center refused (default: report them refused-before)')
      .option('--requested-by <name>', 'who asks, stored with every application (default: the OS user)')
      .option('--now <iso-time>', 'plan clock (default: now)')
      .option('--horizon <days>', 'days the value must cover (default 30)', positiveInt('--horizon'))
      .option('--margin <percent>', 'head room above the need (default 10)', percent('--margin'))
      .option('--scenario <file>', 'a planned change whose quota use the value must also cover; repeatable', collect)
      .option('--account <id>', 'only this account')
      .addOption(formatOption(['table', 'json'] as const))
      .addOption(new Option('-o, --out <file>', 'write to this file (atomically) and print its path; default stdout'))
      .addHelpText(
        'after',
        '\nIdempotent: an application already open for a quota (stored, or in review at Quota Center) is not filed again, and a run\n' +
          'stopped halfway is reconciled by the next one (ListQuotaApplications). Every application is stored with who asked and\n' +
          'its plan row; each run first refreshes the stored ones (GetQuotaApplication). Exit 1 when Quota Center refused one or\n' +
          'an outcome is unknown.\n' +
          '\nExamples:\n  fleet-audit quota request --config scan.yaml --database-url $DATABASE_URL\n' +
          '  fleet-audit quota request --config scan.yaml --database-url $DATABASE_URL --apply --requested-by platform-team\n',
      )
      .action((o: RequestOptions) => run(runRequest(o))),
  );
  return quota;
}
