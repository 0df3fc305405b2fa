/**
 * `fleet-audit forecast trends|headroom|whatif`: capacity planning (libs/forecast). Trends read the quota
 * history of stored scans; headroom and what-if run on a fleet directory, a live scan or the latest stored
 * snapshot. JSON contracts: libs/forecast/README.md and the README section "Capacity planning".
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { renderTable, tableStyleFor, type TableStyle } from '../output/table.util';
import { Command, Option } from 'commander';
import { clusterLabel, type FleetSnapshot } from '@app/domain';
import type { HeadroomAnswer, HeadroomEntry, TrendEntry, WhatIfResult } from '@app/forecast';
import { CliUsageError, EXIT_OK } from '../cli-error';
import { loadAudit, loadCollectors, loadForecast, loadStore } from '../lazy';
import { cliStreams } from '../output/cli-streams';
import { writeOutput } from '../output/output-file.util';
import { explicitFlagsWin, formatOption, parseNow } from './option-conventions.util';

type Format = 'table' | 'json';

function positiveInt(flag: string) {
  return (text: string): number => {
    const n = Number(text);
    if (!Number.isInteger(n) || n < 1) throw new CliUsageError(`${flag}: expected a positive integer, got "${text}"`);
    return n;
  };
}

function positiveNumber(flag: string) {
  return (text: string): number => {
    const n = Number(text);
    if (!(n > 0)) throw new CliUsageError(`${flag}: expected a positive number, got "${text}"`);
    return n;
  };
}

function parseLabels(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of text.split(',')) {
    const i = part.indexOf('=');
    if (i <= 0) throw new CliUsageError(`--labels: expected k=v[,k=v], got "${text}"`);
    out[part.slice(0, i)] = part.slice(i + 1);
  }
  return out;
}

async function withStore<T>(url: string | undefined, fn: (store: import('@app/store').Store) => Promise<T>): Promise<T> {
  if (!url) throw new CliUsageError('--database-url URL (or DATABASE_URL) is required');
  const { Store } = loadStore();
  const store = await Store.open({ connectionString: url, migrate: true });
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}

/** Reads the snapshot of `--fleet DIR` or `--config FILE` (live). */
async function snapshotOf(opts: { fleet?: string; config?: string }): Promise<FleetSnapshot> {
  const { loadFleetDirectory, loadScanConfig, scanLive } = loadCollectors();
  if (opts.fleet !== undefined) return loadFleetDirectory(opts.fleet);
  return scanLive(loadScanConfig(opts.config as string));
}

function one(opts: { fleet?: string; config?: string; databaseUrl?: string }, allowed: ('fleet' | 'config' | 'databaseUrl')[]): void {
  const given = allowed.filter((k) => opts[k] !== undefined);
  const names = { fleet: '--fleet DIR', config: '--config FILE', databaseUrl: '--database-url URL' };
  if (given.length !== 1) throw new CliUsageError(`give exactly one of ${allowed.map((k) => names[k]).join(', ')}`);
}

const days = (s: number | null) => (s === null ? '-' : `${(s / 86_400).toFixed(1)} d`);

/** Table rendering (also used by `demo`); `style`: width and colour (default: stdout's). */
export function renderTrends(entries: TrendEntry[], style: TableStyle = tableStyleFor()): string {
  if (entries.length === 0) return 'No quota series in the window (store scans with --database-url; backfill with scan --now).\n';
  const rows = entries.map((e) => [
      e.status,
      e.checkId,
      `${e.resource.kind} ${e.resource.id}`,
      `${e.used}/${e.limit}`,
      e.slopePerDay === null ? '-' : e.slopePerDay.toFixed(2),
      String(e.samples),
      `${days(e.secondsToExhaustion.p10)} / ${days(e.secondsToExhaustion.p50)} / ${days(e.secondsToExhaustion.p90)}`,
      e.exhaustsAt.p50?.slice(0, 10) ?? '-',
    ]);
  const t = renderTable(['status', 'check', 'resource', 'used/limit', 'slope/day', 'samples', 'exhausts in p10 / p50 / p90', 'p50 date'], rows, style);
  return `${t}\nRead: p10 = could run out this soon (fast pace), p50 = at the median pace, p90 = late; "-" = no answer for the status.\n`;
}

function answerText(a: HeadroomAnswer): string {
  if ('alreadyOver' in a) {
    const shown = a.alreadyOver.slice(0, 2).map((o) => `${o.checkId} ${o.resource.id} ${o.used}/${o.limit}`);
    return `ALREADY OVER: ${shown.join('; ')}${a.alreadyOver.length > 2 ? ` (+${a.alreadyOver.length - 2} more)` : ''}`;
  }
  if (a.headroom === null) return 'not limited by a modelled quota';
  return `${a.headroom} more (then ${a.limitedBy?.checkId} on ${a.limitedBy?.resource.kind} ${a.limitedBy?.resource.id})`;
}

/** The headroom and what limits it, as two cells: `94 more` / `CLB_BACKEND_QUOTA on LoadBalancer lb-...`. */
function answerCells(a: HeadroomAnswer | null, notPlanned: HeadroomEntry['nlbNotPlanned'] = null): [string, string] {
  if (a === null) return ['not planned', notPlanned?.message ?? 'NLB Services cannot be planned'];
  if ('alreadyOver' in a) {
    const shown = a.alreadyOver.slice(0, 2).map((o) => `${o.checkId} ${o.resource.id} ${o.used}/${o.limit}`);
    return ['ALREADY OVER', `${shown.join('; ')}${a.alreadyOver.length > 2 ? ` (+${a.alreadyOver.length - 2} more)` : ''}`];
  }
  if (a.headroom === null) return ['no limit', 'not limited by a modelled quota'];
  return [`${a.headroom} more`, `${a.limitedBy?.checkId} on ${a.limitedBy?.resource.kind} ${a.limitedBy?.resource.id}`];
}

/** Table rendering (also used by `demo`); `style`: width and colour (default: stdout's). */
export function renderHeadroom(entries: HeadroomEntry[], style: TableStyle = tableStyleFor()): string {
  // One row per cluster and growth dimension: five answers side by side did not fit 120 columns (ids broke).
  const rows = entries.flatMap((e) => {
    const dims: [string, HeadroomAnswer | null][] = [
      ['nodes', e.nodes],
      ['Cluster-mode Services', e.clusterModeServices],
      ['Local Services', e.localServices],
      ['Cluster-mode NLB Services', e.nlbClusterModeServices],
      ['Local NLB Services', e.nlbLocalServices],
    ];
    const share = (what: string) => {
      const question = QUESTION_OF[what];
      const pools = e.sharedQuotas.filter((p) => p.question === question);
      return pools.length === 0 ? '' : pools.map((p) => `${p.share} of ${p.fleetHeadroom} (${p.checkId}, ${p.clusters} clusters)`).join('; ');
    };
    const first = [clusterLabel(e.clusterId, e.clusterName), e.team ?? '', exhaustsIn(e.secondsToExhaustion)];
    return dims.map(([what, a], i) => [...(i === 0 ? first : ['', '', '']), what, ...answerCells(a, e.nlbNotPlanned), share(what)]);
  });
  const table = renderTable(['cluster', 'team', 'exhausts in', 'growing', 'headroom', 'limited by', 'shared quota: of which yours'], rows, style);
  return (
    `${table}\nRows: soonest to run out first. A quota several clusters share (an account's region quota, a vSwitch)\n` +
    'is split between them: "4 of 7" = this cluster\'s share of what the pool holds.\n'
  );
}

const QUESTION_OF: Record<string, HeadroomEntry['sharedQuotas'][number]['question']> = {
  nodes: 'nodes',
  'Cluster-mode Services': 'clusterModeServices',
  'Local Services': 'localServices',
  'Cluster-mode NLB Services': 'nlbClusterModeServices',
  'Local NLB Services': 'nlbLocalServices',
};

/** Seconds to exhaustion as `now` (over a limit), `12 d`, or `-` (no trend known). */
function exhaustsIn(seconds: number | null): string {
  if (seconds === null) return '-';
  if (seconds === 0) return 'now';
  return seconds < 86_400 ? `${Math.max(1, Math.round(seconds / 3600))} h` : `${Math.round(seconds / 86_400)} d`;
}

/**
 * Which quotas a step changed: the count, then each check with how many of its quota series changed, most first
 * (`219: ECS_LB_ATTACHMENT_QUOTA 200, CLB_BACKEND_QUOTA 18, CLB_INSTANCE_QUOTA 1`); `none` when nothing changed.
 */
export function quotaChangesText(quotas: WhatIfResult['steps'][number]['quotas']): string {
  if (quotas.length === 0) return 'none';
  const byCheck = new Map<string, number>();
  for (const q of quotas) byCheck.set(q.checkId, (byCheck.get(q.checkId) ?? 0) + 1);
  const named = [...byCheck.entries()].sort(([a, x], [b, y]) => y - x || (a < b ? -1 : 1)).map(([id, n]) => `${id} ${n}`);
  return `${quotas.length}: ${named.join(', ')}`;
}

/** Table rendering (also used by `demo`); `style`: width and colour (default: stdout's). */
export function renderWhatIf(r: WhatIfResult, style: TableStyle = tableStyleFor()): string {
  const rows = r.steps.map((s) => {
    const b = s.firstBreach;
    return [
      s.name,
      quotaChangesText(s.quotas),
      b ? `${b.checkId} ${b.resource.kind} ${b.resource.id}: ${b.before.used} -> ${b.after.used} of ${b.after.limit}` : 'none',
      `+${s.findings.appeared.length} / -${s.findings.resolved.length} / ${s.findings.severityChanged.length}`,
      s.headroom.map((h) => `nodes: ${answerText(h.nodes)}`).join('\n'),
    ];
  });
  const t = renderTable(['step', 'quotas changed', 'first breach', 'findings +/-/severity', 'headroom after'], rows, style);
  const c = r.convergence;
  return (
    `Scenario ${r.scenario}\n${t}\n` +
    `CCM convergence: ${c.services} Services, ${c.calls} OpenAPI calls; wall time p50 ${c.wallSeconds.p50} s, p95 ${c.wallSeconds.p95} s (bound by ${c.boundBy}).\n`
  );
}

/**
 * Print the answer as JSON or a table; with `out` (`-o, --out FILE`) write it to that file atomically instead and
 * print the file's path, as every writing command does (a table written to a file is laid out for 120 columns,
 * uncoloured).
 */
function print(format: Format, json: unknown, table: (style?: TableStyle) => string, out?: string): void {
  if (out === undefined) {
    cliStreams().stdout.write(format === 'json' ? `${JSON.stringify(json, null, 2)}\n` : table());
    return;
  }
  const target = resolve(out);
  writeOutput(target, format === 'json' ? `${JSON.stringify(json, null, 2)}\n` : table({ width: 120, color: false }));
  cliStreams().stdout.write(`${target}\n`);
}

/** `-o, --out FILE` of the forecast subcommands. */
const outOption = () => new Option('-o, --out <file>', 'write to this file (atomically) and print its path; default stdout');

interface TrendsOptions {
  databaseUrl?: string;
  now?: string;
  format: Format;
  windowDays?: number;
  minSamples?: number;
  minSpanHours?: number;
  check?: string;
  account?: string;
  cluster?: string;
  status?: TrendEntry['status'];
  out?: string;
}

async function runTrends(o: TrendsOptions): Promise<number> {
  const { trendsFromStore } = loadAudit();
  const now = parseNow(o.now) ?? new Date();
  const trends = await withStore(o.databaseUrl, (store) =>
    trendsFromStore(store, {
      now,
      settings: {
        ...(o.windowDays ? { windowDays: o.windowDays } : {}),
        ...(o.minSamples ? { minSamples: o.minSamples } : {}),
        ...(o.minSpanHours ? { minSpanHours: o.minSpanHours } : {}),
      },
      ...(o.check ? { checkId: o.check } : {}),
      ...(o.account ? { accountId: o.account } : {}),
      ...(o.cluster ? { clusterId: o.cluster } : {}),
      ...(o.status ? { status: o.status } : {}),
    }),
  );
  print(o.format, { trends }, (style) => renderTrends(trends, style), o.out);
  return EXIT_OK;
}

interface HeadroomCliOptions {
  fleet?: string;
  config?: string;
  databaseUrl?: string;
  cluster?: string;
  like?: string;
  labels?: Record<string, string>;
  ports?: number;
  pods?: number;
  maxNodesPerCluster?: number;
  settings?: string;
  now?: string;
  format: Format;
  out?: string;
}

async function runHeadroom(o: HeadroomCliOptions): Promise<number> {
  one(o, ['fleet', 'config', 'databaseUrl']);
  const { headroomFromStore, loadAuditSettings } = loadAudit();
  const { headroomOfSnapshot } = loadForecast();
  const settings = o.settings !== undefined ? loadAuditSettings(o.settings) : undefined;
  const now = parseNow(o.now);
  const options = {
    ...(o.cluster ? { clusterIds: [o.cluster] } : {}),
    ...(o.like ? { like: o.like } : {}),
    ...(o.labels ? { labels: o.labels } : {}),
    ...(o.ports ? { ports: o.ports } : {}),
    ...(o.pods ? { podsPerService: o.pods } : {}),
    ...(o.maxNodesPerCluster ? { maxNodesPerCluster: o.maxNodesPerCluster } : {}),
    ...(settings ? { settings } : {}),
  };
  const headroom =
    o.databaseUrl !== undefined
      ? (await withStore(o.databaseUrl, (store) => headroomFromStore(store, { ...options, ...(now ? { now } : {}) }))).headroom
      : headroomOfSnapshot(await snapshotOf(o), { ...options, now: now ?? new Date() });
  if (o.cluster && headroom.length === 0) throw new CliUsageError(`--cluster: no cluster "${o.cluster}" with Kubernetes data in the fleet`);
  print(o.format, { headroom }, (style) => renderHeadroom(headroom, style), o.out);
  return EXIT_OK;
}

interface WhatIfCliOptions {
  fleet?: string;
  databaseUrl?: string;
  scenario: string;
  settings?: string;
  now?: string;
  qps?: number;
  format: Format;
  out?: string;
}

async function runWhatIfCommand(o: WhatIfCliOptions): Promise<number> {
  one(o, ['fleet', 'databaseUrl']);
  const { whatIfFromStore, loadAuditSettings } = loadAudit();
  const { parseScenarioText, runWhatIf } = loadForecast();
  let text: string;
  try {
    text = readFileSync(o.scenario, 'utf8');
  } catch (e) {
    throw new CliUsageError(`--scenario: cannot read ${o.scenario}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`);
  }
  const scenario = parseScenarioText(text, o.scenario);
  const settings = o.settings !== undefined ? loadAuditSettings(o.settings) : undefined;
  const now = parseNow(o.now);
  const convergence = o.qps ? { qps: { default: o.qps } } : undefined;
  const result =
    o.databaseUrl !== undefined
      ? (await withStore(o.databaseUrl, (store) => whatIfFromStore(store, scenario, { ...(now ? { now } : {}), ...(settings ? { settings } : {}), ...(convergence ? { convergence } : {}) }))).result
      : runWhatIf(await snapshotOf(o), scenario, { now: now ?? new Date(), ...(settings ? { settings } : {}), ...(convergence ? { convergence } : {}) });
  print(o.format, result, (style) => renderWhatIf(result, style), o.out);
  return EXIT_OK;
}

const tableOrJson = () => formatOption(['table', 'json'] as const);
const dbOption = () => new Option('--database-url <url>', 'PostgreSQL with stored scans').env('DATABASE_URL');

/** Build the `forecast` command and its subcommands. */
export function forecastCommand(run: (p: Promise<number>) => void): Command {
  const forecast = new Command('forecast').description(
    'capacity planning: quota trends (time to exhaustion), headroom from the CCM model, what-if scenarios',
  );
  forecast.addCommand(
    new Command('trends')
      .description('time to exhaustion of every stored quota series (Theil-Sen slope, p10/p50/p90)')
      .addOption(dbOption())
      .option('--now <iso-time>', 'forecast clock (default: now)')
      .option('--window-days <n>', 'history window (default 14)', positiveNumber('--window-days'))
      .option('--min-samples <n>', 'fewer samples -> insufficient_data (default 4)', positiveInt('--min-samples'))
      .option('--min-span-hours <n>', 'shorter span -> insufficient_data (default 48)', positiveNumber('--min-span-hours'))
      .option('--check <id>', 'only this check (e.g. CLB_BACKEND_QUOTA)')
      .option('--account <id>', 'only this account')
      .option('--cluster <id>', 'only this cluster')
      .addOption(new Option('--status <status>', 'only this status').choices(['ok', 'insufficient_data', 'flat', 'decreasing', 'exhausted']))
      .addOption(tableOrJson())
      .addOption(outOption())
      .addHelpText('after', '\nExamples:\n  fleet-audit forecast trends --database-url postgres://localhost/audit\n  fleet-audit forecast trends --status ok --format json\n')
      .action((o: TrendsOptions) => run(runTrends(o))),
  );
  forecast.addCommand(
    new Command('headroom')
      .description('how many more nodes / Cluster-mode / Local Services fit before the first quota breach (exact, CCM model)')
      .option('--fleet <dir>', 'fleet directory')
      .option('--config <file>', 'scan config (live)')
      .addOption(dbOption())
      .option('--cluster <id>', 'only this cluster (its id or its name)')
      .option('--like <node>', 'new nodes copy this node (default: the first ready worker)')
      .option('--labels <k=v,...>', 'labels of the new nodes (e.g. a node pool)', parseLabels)
      .option('--ports <n>', 'ports per new Service (default 1)', positiveInt('--ports'))
      .option('--pods <n>', 'pods per new Local Service (default 2)', positiveInt('--pods'))
      .option('--max-nodes-per-cluster <n>', "ACK's node limit of one cluster (default 5000, ACK Pro)", positiveInt('--max-nodes-per-cluster'))
      .option('--settings <file>', 'audit settings (YAML/JSON)')
      .option('--now <iso-time>', 'analysis clock')
      .addOption(tableOrJson())
      .addOption(outOption())
      .addHelpText(
        'after',
        '\nShared quotas (an account\'s CLB/NLB instances and NLB server groups per region, a vSwitch several clusters use)\n' +
          'are split between the clusters drawing from them: each row shows its share of the pool ("4 of 7").\n' +
          'Nodes also stop at ACK\'s node limit per cluster and, on Flannel, at the pod CIDR\'s node blocks.\n' +
          'Rows are sorted by time to exhaustion (stored trends with --database-url; over a limit first).\n',
      )
      .addHelpText('after', '\nExamples:\n  fleet-audit forecast headroom --fleet examples/fleets/sample\n  fleet-audit forecast headroom --database-url $DATABASE_URL --cluster c123 --format json\n')
      .action((o: HeadroomCliOptions, cmd: Command) => run(runHeadroom(explicitFlagsWin(o, cmd, ['databaseUrl'], ['fleet', 'config'])))),
  );
  forecast.addCommand(
    new Command('whatif')
      .description('apply a scenario (apiVersion: fleet-audit/v1) step by step: quotas, first breach, findings, headroom, CCM convergence')
      .option('--fleet <dir>', 'fleet directory')
      .addOption(dbOption())
      .requiredOption('--scenario <file>', 'scenario file (YAML or JSON)')
      .option('--settings <file>', 'audit settings (YAML/JSON)')
      .option('--now <iso-time>', 'analysis clock (default: the stored scan\'s time with --database-url, else now); pin it for byte-identical output')
      .option('--qps <n>', 'account API rate limit per API for the convergence estimate (default 20)', positiveInt('--qps'))
      .addOption(tableOrJson())
      .addOption(outOption())
      .addHelpText(
        'after',
        '\nExamples:\n  fleet-audit forecast whatif --fleet examples/fleets/sample --scenario examples/scenarios/black-friday.yaml\n  fleet-audit forecast whatif --database-url $DATABASE_URL --scenario bf.yaml --format json -o whatif.json\n',
      )
      .action((o: WhatIfCliOptions, cmd: Command) => run(runWhatIfCommand(explicitFlagsWin(o, cmd, ['databaseUrl'], ['fleet'])))),
  );
  return forecast;
}
