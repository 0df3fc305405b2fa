/**
 * `fleet-audit plan -f FILE|DIR|- --cluster NAME|ID`: what applying Kubernetes manifests does to a cluster's
 * load-balancer quotas and findings, before it ships (libs/forecast manifest-plan.ts). Reads manifests as kubectl
 * does (`-f` files, directories of .yaml/.yml/.json files, `-R` into subdirectories, `-` for stdin: Helm and
 * kustomize output), plans them against the latest stored scan (`--database-url`) or a fleet directory (`--fleet`),
 * prints the answer in a format CI tools read and exits 1 when `--fail-on` says so (a quota breach counts as
 * critical), 0 otherwise, 2 on bad input.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join, resolve } from 'node:path';
import { Command, Option } from 'commander';
import type { Severity } from '@app/domain';
import type { PlanResult } from '@app/forecast';
import { CliUsageError, EXIT_FINDINGS, EXIT_OK } from '../cli-error';
import { loadAudit, loadCollectors, loadForecast, loadScan, loadStore } from '../lazy';
import { cliStreams } from '../output/cli-streams';
import { writeOutput } from '../output/output-file.util';
import { planVerdict, renderPlanJson, renderPlanJunit, renderPlanMarkdown, renderPlanSarif, renderPlanTable } from '../output/plan-output.renderer';
import { tableStyleFor } from '../output/table.util';
import { explicitFlagsWin, formatOption, parseNow } from './option-conventions.util';

const FORMATS = ['table', 'json', 'markdown', 'sarif', 'junit'] as const;
type PlanFormat = (typeof FORMATS)[number];

/** Options of `plan`. */
export interface PlanCommandOptions {
  filename: string[];
  recursive?: boolean;
  cluster: string;
  delete?: string[];
  fleet?: string;
  databaseUrl?: string;
  settings?: string;
  now?: string;
  failOn: Severity | 'none';
  format: PlanFormat;
  out?: string;
}

/** Manifest file extensions kubectl reads from a directory. */
const MANIFEST_EXTENSIONS: ReadonlySet<string> = new Set(['.yaml', '.yml', '.json']);

/**
 * The manifest texts of `-f` arguments, in kubectl's order: each file as given, a directory's manifest files sorted by
 * name (with `recursive`, its subdirectories too), `-` once from stdin.
 * @throws CliUsageError naming the path that cannot be read, or a directory with no manifest
 */
export function readManifestFiles(paths: readonly string[], recursive: boolean, stdin: () => string): { source: string; text: string }[] {
  const out: { source: string; text: string }[] = [];
  const read = (path: string) => {
    try {
      out.push({ source: path, text: readFileSync(path, 'utf8') });
    } catch (e) {
      throw new CliUsageError(`-f ${path}: cannot read (${(e as NodeJS.ErrnoException).code ?? String(e)})`);
    }
  };
  const walk = (dir: string, top: boolean): number => {
    let found = 0;
    let entries: string[];
    try {
      entries = readdirSync(dir).sort();
    } catch (e) {
      throw new CliUsageError(`-f ${dir}: cannot read the directory (${(e as NodeJS.ErrnoException).code ?? String(e)})`);
    }
    for (const name of entries) {
      const path = join(dir, name);
      const st = statSync(path, { throwIfNoEntry: false });
      if (st?.isDirectory()) {
        if (recursive) found += walk(path, false);
      } else if (st?.isFile() && MANIFEST_EXTENSIONS.has(extname(name).toLowerCase())) {
        read(path);
        found++;
      }
    }
    if (top && found === 0) throw new CliUsageError(`-f ${dir}: no .yaml, .yml or .json file${recursive ? '' : ' (add -R to read subdirectories)'}`);
    return found;
  };
  let stdinRead = false;
  for (const p of paths) {
    if (p === '-') {
      if (stdinRead) throw new CliUsageError('-f -: stdin can be given once');
      stdinRead = true;
      out.push({ source: '-', text: stdin() });
      continue;
    }
    const st = statSync(p, { throwIfNoEntry: false });
    if (!st) throw new CliUsageError(`-f ${p}: no such file or directory`);
    if (st.isDirectory()) walk(p, true);
    else read(p);
  }
  return out;
}

/** Runs `plan`; returns the exit code (1 when the verdict fails). */
export async function runPlanCommand(o: PlanCommandOptions): Promise<number> {
  if ((o.fleet === undefined) === (o.databaseUrl === undefined)) throw new CliUsageError('give exactly one of --fleet DIR or --database-url URL (the latest stored scan)');
  const files = readManifestFiles(o.filename, o.recursive === true, () => readFileSync(0, 'utf8'));
  const { readManifests, planManifests } = loadForecast();
  const manifests = readManifests(files);
  const settings = o.settings !== undefined ? loadScan().loadAuditSettings(o.settings) : undefined;
  let now = parseNow(o.now);
  let plan: PlanResult;
  const options = (clock: Date) => ({ cluster: o.cluster, ...(o.delete?.length ? { deletes: o.delete } : {}), now: clock, ...(settings ? { settings } : {}) });
  if (o.databaseUrl !== undefined) {
    const { Store } = loadStore();
    const store = await Store.open({ connectionString: o.databaseUrl, migrate: true });
    try {
      const latest = await loadAudit().latestSnapshot(store);
      now ??= new Date(latest.observedAt);
      plan = planManifests(latest.snapshot, manifests, options(now));
    } finally {
      await store.close();
    }
  } else {
    now ??= new Date();
    plan = planManifests(loadCollectors().loadFleetDirectory(o.fleet!), manifests, options(now));
  }
  const verdict = planVerdict(plan, o.failOn);
  const text = (() => {
    switch (o.format) {
      case 'json':
        return renderPlanJson(plan, verdict);
      case 'markdown':
        return renderPlanMarkdown(plan, verdict);
      case 'sarif':
        return renderPlanSarif(plan);
      case 'junit':
        return renderPlanJunit(plan, o.failOn, now);
      default:
        return renderPlanTable(plan, verdict, o.out !== undefined ? { width: 120, color: false } : tableStyleFor());
    }
  })();
  if (o.out !== undefined) {
    const target = resolve(o.out);
    writeOutput(target, text);
    cliStreams().stdout.write(`${target}\n`);
  } else cliStreams().stdout.write(text);
  return verdict.failed ? EXIT_FINDINGS : EXIT_OK;
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

/** Builds the `plan` command. */
export function planCommand(run: (p: Promise<number>) => void): Command {
  return new Command('plan')
    .description('what applying Kubernetes manifests does to a cluster: quotas before and after, the first breach, the findings it adds (for CI)')
    .requiredOption('-f, --filename <path>', 'manifest file, directory of .yaml/.yml/.json files, or - for stdin (Helm or kustomize output); repeatable', collect)
    .option('-R, --recursive', 'read the subdirectories of a -f directory too')
    .requiredOption('--cluster <name-or-id>', 'the cluster the manifests are applied to')
    .option('--delete <namespace/name>', 'a Service the change deletes; repeatable', collect)
    .option('--fleet <dir>', 'plan against a fleet directory')
    .addOption(new Option('--database-url <url>', 'plan against the latest scan stored in this PostgreSQL database').env('DATABASE_URL'))
    .option('--settings <file>', 'audit settings (YAML/JSON), as for scan')
    .option('--now <iso-time>', 'analysis clock (default: the stored scan\u2019s observation time, or now for --fleet)')
    .addOption(new Option('--fail-on <severity>', 'exit 1 on a quota breach (counted as critical) or an added finding at or above this severity').choices(['info', 'warning', 'critical', 'none']).default('none'))
    .addOption(formatOption(FORMATS))
    .option('-o, --out <file>', 'write to this file (atomically) and print its path; default stdout')
    .addHelpText(
      'after',
      '\nExamples:\n' +
        '  npx fleet-audit plan -f deploy/ --cluster prod-hangzhou --fleet examples/fleets/sample --fail-on warning\n' +
        '  helm template web ./chart | npx fleet-audit plan -f - --cluster prod-hangzhou --format sarif -o plan.sarif\n' +
        '  npx fleet-audit plan -f svc.yaml --cluster c-123 --database-url "$DATABASE_URL" --format markdown > comment.md\n' +
        '\nExit codes: 0 pass, 1 the verdict fails (--fail-on), 2 bad input, 3 transient error.\n',
    )
    .action(function (this: Command, opts: PlanCommandOptions) {
      run(runPlanCommand(explicitFlagsWin(opts, this, ['databaseUrl'], ['fleet'])));
    });
}
