/**
 * The in-process analysis on every core: the fleet's shards (an account and one of its regions, or an account
 * without regions: the shards the distributed scan's workers analyze, analyze-shard.ts) run on a pool of
 * `node:worker_threads` threads, each thread building only its shard's snapshot from the shard's own source
 * (threaded-audit-shard.ts), and their answers are merged into the output of one `runAudit` over the whole fleet:
 * the same findings, results, skipped results, coverage and summary, in the same order, byte for byte as JSON.
 *
 * Why the merge gives the same order:
 * - results are ordered by check id, then resource key (kind, account, region, cluster, id; libs/checks
 *   `compareResourceKeys`). Every result a shard keeps lies in its own account and region (or the account's own,
 *   region '', in the lead shard only; a result elsewhere fails the shard), so the results of one check, kind,
 *   account and region come from one shard, contiguous in its list: the merge orders those runs by (check id, kind,
 *   account, region) and concatenates them;
 * - findings are ordered by severity, check id, resource id and fingerprint, ties in result order: each shard's come
 *   in that order (its own `runAudit`), and the merge merges the shards' lists in shard order (libs/checks
 *   `mergeSortedFindings`, the order of the engine's `sortFindings` of them all); two findings of different shards
 *   never tie (their fingerprints name different resources);
 * - coverage is ordered by its key (`coverageKey`), as `mapWireFleet` orders it.
 *
 * Memory: at most `threads` shards are handed to the pool at once, so at most that many shard snapshots exist;
 * the main thread holds the merged findings, skipped results and (when asked) the results' JSON bytes, never a
 * snapshot. The pool is piscina (a dependency already, the forecast pool's): threads, task hand-over, errors and
 * moved buffers, without code of our own for a thread's life.
 */
import { existsSync, readdirSync, statSync, type Dirent } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import type * as PiscinaModule from 'piscina';
import { CHECKS, compareResourceKeys, mergeSortedFindings, type PartialAuditSettings } from '@app/checks';
import { FleetValidationError, fleetDirectoryShards } from '@app/collectors';
import { builtEntryPath } from '@app/config';
import { coverageKey, type CheckResult, type CoverageEntry, type Finding, type ResourceRef, type SkippedResult } from '@app/domain';
import { fleetAuditErrorKind } from '@app/errors';
import { sumShardSummaries } from './analyze-shard';
import type { ScanSummary } from './analyze-and-store';
import type { AuditShardAnswer, AuditShardSource, AuditShardTask, ResultRun, ShardInvalidFile } from './threaded-audit-shard';

/**
 * piscina, loaded when a pool starts, not when this module is imported: an offline scan on one thread (the default for
 * a fleet under AUTO_THREADS_MIN_BYTES) imports this module for `autoAuditThreads` and never starts a pool.
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const piscina = (): typeof PiscinaModule => require('piscina') as typeof PiscinaModule;

export type { AuditShardSource } from './threaded-audit-shard';

/** One shard of a threaded analysis. */
export interface AuditShard {
  /** Its name in errors and timings: `region/<account>/<region>` or `account/<account>`. */
  key: string;
  /** Whether it reports the account's own results and coverage: the account's lowest region, or the account alone. */
  lead: boolean;
  source: AuditShardSource;
}

/** Options of {@link runThreadedAudit}. */
export interface ThreadedAuditOptions {
  /** Threads, and shards analyzed at once (at least 1; default `os.availableParallelism()`). */
  threads?: number;
  /** Analysis clock. */
  now: Date;
  settings?: PartialAuditSettings;
  /** Keep the results' JSON (`ThreadedAudit.resultsJson`: `threadedResults`, digests); default false. */
  resultsJson?: boolean;
  /** The built thread entry; default `threaded-audit-worker.js` (`defaultThreadedAuditEntry`). */
  workerEntry?: string;
}

/** Time one shard took in its thread (milliseconds). */
export interface ShardTiming {
  key: string;
  /** Building the shard's snapshot from its source. */
  loadMs: number;
  /** Running the checks and shaping the answer. */
  auditMs: number;
  /** Writing the results' JSON bytes (`resultsJson`; 0 when not asked). */
  jsonMs: number;
}

/** The merged output of a threaded analysis: what `runAudit` over the whole fleet gives, and the scan's parts. */
export interface ThreadedAudit {
  fleetName: string;
  /** In `runAudit` order (severity, check id, resource id, fingerprint). */
  findings: Finding[];
  /** In result order (check id, resource key), as `skippedResultsOf` of the whole fleet's results. */
  skipped: SkippedResult[];
  /** Every shard's coverage, in `coverageKey` order (as `mapWireFleet` orders the whole fleet's). */
  coverage: CoverageEntry[];
  /** As `summarize` over the whole fleet's snapshot and output. */
  summary: ScanSummary;
  /**
   * With `resultsJson`: the results as UTF-8 JSON text in `runAudit` order, in pieces; the pieces joined by `,`
   * inside `[` `]` are `JSON.stringify` of the whole fleet's `results` (empty pieces are never given).
   */
  resultsJson?: Uint8Array[];
  /** Per shard, in completion order. */
  timings: ShardTiming[];
  /** The most shards handed to the pool at once (count; at most `threads`). */
  maxInFlight: number;
}

/** A shard's thread failed (its source could not be read, or a check's code threw past the engine): no output is given. */
export class ShardAnalysisError extends fleetAuditErrorKind('ShardAnalysisError', 'SHARD_ANALYSIS_FAILED', true) {
  constructor(
    message: string,
    /** The failed shard's key (`AuditShard.key`). */
    readonly shard: string,
  ) {
    super(message);
  }
}

/**
 * The built `threaded-audit-worker.js`: next to this module when it runs compiled; from TypeScript source (vitest),
 * under FLEET_AUDIT_DIST (the build bin/fleet-audit.js runs), else the repository's `dist/apps/cli` (`builtEntryPath`).
 */
export function defaultThreadedAuditEntry(): string {
  return builtEntryPath(__filename, join('libs', 'audit', 'src'), 'threaded-audit-worker.js');
}

/** Threads of a threaded analysis when none is asked: the cores this process may use. */
export function defaultAuditThreads(): number {
  return availableParallelism();
}

/**
 * Fleet directories smaller than this (bytes of their files) are analyzed on one thread when no thread count is asked
 * (`autoAuditThreads`): starting a thread and loading the analysis code in it costs about a second of CPU on the
 * project's VM, more than the split saves on a small fleet (`scan --fleet examples/fleets/sample`, 1.7 MiB: 1.6-1.9 s
 * wall on one thread, 3.6-4.1 s on two; docs/benchmarks.md).
 */
export const AUTO_THREADS_MIN_BYTES = 128 * 2 ** 20;

/**
 * The bytes of the regular files under `dir` (symbolic links not followed), counted until `limit` is reached; an entry
 * that cannot be read counts 0 (the fleet reader reports it).
 */
export function directoryBytes(dir: string, limit = Number.POSITIVE_INFINITY): number {
  let total = 0;
  const pending = [dir];
  while (pending.length > 0 && total < limit) {
    const d = pending.pop()!;
    let entries: Dirent[];
    try {
      entries = readdirSync(d, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const e of entries) {
      const path = join(d, e.name);
      if (e.isDirectory()) pending.push(path);
      else if (e.isFile()) {
        try {
          total += statSync(path).size;
        } catch {
          // Gone or unreadable: the reader names it.
        }
      }
    }
  }
  return total;
}

/**
 * Threads of an offline scan when none is asked: the cores available (`defaultAuditThreads`) for a fleet directory of
 * at least AUTO_THREADS_MIN_BYTES, one thread for a smaller one.
 */
export function autoAuditThreads(fleetDir: string): number {
  return directoryBytes(fleetDir, AUTO_THREADS_MIN_BYTES) >= AUTO_THREADS_MIN_BYTES ? defaultAuditThreads() : 1;
}

/**
 * The shards of a fleet directory (libs/collectors `fleetDirectoryShards`), each read from the shard's own files; the
 * lead shard of an account is its first (lowest region, or the account alone).
 * @returns the shards, or `undefined` for a generated fleet (built whole in memory: nothing to shard)
 * @throws FleetValidationError for a missing or invalid fleet.yaml / account.yaml
 */
export function fleetDirectoryAuditShards(fleetDir: string): AuditShard[] | undefined {
  const shards = fleetDirectoryShards(fleetDir);
  if (!shards) return undefined;
  const seen = new Set<string>();
  return shards.map((s) => {
    const lead = !seen.has(s.accountId);
    seen.add(s.accountId);
    return {
      key: s.regionId === null ? `account/${s.accountId}` : `region/${s.accountId}/${s.regionId}`,
      lead,
      source: { kind: 'directory', fleetDir, accountId: s.accountId, regionId: s.regionId },
    };
  });
}

/**
 * Analyze a fleet's shards on `threads` threads and merge their answers (see the file comment).
 * @param shards every shard of the fleet, accounts in any order (at least one)
 * @returns the merged output; nothing is returned when a shard fails
 * @throws RangeError for no shard or a thread count under 1; FleetValidationError for an invalid file of a shard (as
 *   the one-thread read throws it), ShardAnalysisError naming the shard for any other failure: the first shard that
 *   failed (the shards running then are let finish, none is started after it); Error when the thread entry is not built
 */
export async function runThreadedAudit(shards: readonly AuditShard[], options: ThreadedAuditOptions): Promise<ThreadedAudit> {
  const threads = options.threads ?? defaultAuditThreads();
  if (!Number.isInteger(threads) || threads < 1) throw new RangeError(`threads: expected an integer of at least 1, got ${threads}`);
  if (shards.length === 0) throw new RangeError('a threaded analysis needs at least one shard');
  const entry = options.workerEntry ?? defaultThreadedAuditEntry();
  if (!existsSync(entry)) throw new Error(`the threaded analysis entry ${entry} does not exist; build with \`nest build cli\``);
  const size = Math.min(threads, shards.length);
  const { Piscina } = piscina();
  const pool = new Piscina<AuditShardTask, AuditShardAnswer | ShardInvalidFile>({ filename: entry, minThreads: 0, maxThreads: size, idleTimeout: 1_000, recordTiming: false });
  const answers = new Array<AuditShardAnswer | undefined>(shards.length);
  const timings: ShardTiming[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  let failure: Error | undefined;
  try {
    let next = 0;
    await new Promise<void>((resolve) => {
      const start = () => {
        while (failure === undefined && inFlight < size && next < shards.length) {
          const i = next++;
          const shard = shards[i]!;
          inFlight++;
          maxInFlight = Math.max(maxInFlight, inFlight);
          const task: AuditShardTask = {
            key: shard.key,
            lead: shard.lead,
            source: shard.source,
            now: options.now.toISOString(),
            ...(options.settings ? { settings: options.settings } : {}),
            resultsJson: options.resultsJson === true,
          };
          pool.run(task).then(
            (a: AuditShardAnswer | ShardInvalidFile) => {
              if ('invalidFile' in a) {
                // The FleetValidationError the one-thread read throws: its file's path names the shard's account and region.
                const { file, jsonPath, expected } = a.invalidFile;
                failure ??= new FleetValidationError(file, jsonPath, expected);
                return;
              }
              answers[i] = a;
              timings.push({ key: a.key, loadMs: a.loadMs, auditMs: a.auditMs, jsonMs: a.jsonMs });
            },
            (e: unknown) => {
              failure ??= shardFailure(shard.key, e);
            },
          ).finally(() => {
            inFlight--;
            if (inFlight === 0 && (failure !== undefined || next >= shards.length)) resolve();
            else start();
          });
        }
      };
      start();
    });
  } finally {
    await pool.destroy();
  }
  if (failure) throw failure;
  return { ...mergeShardAnswers(answers as AuditShardAnswer[]), timings, maxInFlight };
}

/** The error of a shard whose thread threw: a ShardAnalysisError naming the shard and the thread's message. */
function shardFailure(key: string, e: unknown): Error {
  return new ShardAnalysisError(`shard ${key} failed: ${e instanceof Error ? e.message : String(e)}`, key);
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** A run of one shard, with what orders it among the runs of every shard. */
interface PlacedRun {
  shard: number;
  run: number;
  checkId: string;
  /** A resource of the run's kind, account and region (cluster and id empty): compared by key prefix. */
  ref: ResourceRef;
}

/**
 * The shards' answers merged (see the file comment), answers in shard order.
 * @throws Error when two shards answer results of one check about one kind, account and region (overlapping shards)
 */
export function mergeShardAnswers(answers: readonly AuditShardAnswer[]): Omit<ThreadedAudit, 'timings' | 'maxInFlight'> {
  const placed: PlacedRun[] = [];
  answers.forEach((a, shard) =>
    a.runs.forEach((r: ResultRun, run) =>
      placed.push({ shard, run, checkId: r.checkId, ref: { kind: r.kind, id: '', accountId: r.accountId, regionId: r.regionId as string } }),
    ),
  );
  placed.sort((x, y) => {
    const byCheck = compareText(x.checkId, y.checkId);
    if (byCheck !== 0) return byCheck;
    const byKey = compareResourceKeys(x.ref, y.ref);
    if (byKey === 0 && x.shard !== y.shard)
      throw new Error(`shards ${answers[x.shard]!.key} and ${answers[y.shard]!.key} both answer ${x.checkId} results about ${x.ref.kind} of ${x.ref.accountId}/${x.ref.regionId ?? ''}`);
    return byKey || x.shard - y.shard || x.run - y.run;
  });
  const skippedByRun = answers.map((a) => {
    const byRun = new Map<number, SkippedResult[]>();
    a.skipped.forEach((s, i) => {
      const run = a.skippedRun[i]!;
      const list = byRun.get(run);
      if (list) list.push(s);
      else byRun.set(run, [s]);
    });
    return byRun;
  });
  const skipped: SkippedResult[] = [];
  const withJson = answers.length > 0 && answers.every((a) => a.resultsJson !== undefined);
  const resultsJson: Uint8Array[] = [];
  for (const p of placed) {
    for (const s of skippedByRun[p.shard]!.get(p.run) ?? []) skipped.push(s);
    if (withJson) {
      const bytes = answers[p.shard]!.resultsJson![p.run]!;
      if (bytes.length > 0) resultsJson.push(bytes);
    }
  }
  const coverage = sortByKey(
    answers.flatMap((a) => a.coverage),
    coverageKey,
  );
  const accounts = new Set(answers.map((a) => a.accountId)).size;
  return {
    fleetName: answers[0]?.fleetName ?? '',
    findings: mergeFindings(answers),
    skipped,
    coverage,
    summary: sumShardSummaries(
      answers.map((a) => a.summary),
      coverage,
      accounts,
    ),
    ...(withJson ? { resultsJson } : {}),
  };
}

const CHECK_BY_ID = new Map(CHECKS.map((c) => [c.id, c] as const));

/**
 * The shards' findings in `runAudit` order, each with its check's `remediation` and `source` back in place: each
 * shard's are in that order already (its own `runAudit`), so they are merged (libs/checks `mergeSortedFindings`, the
 * same order as `sortFindings` of them all) rather than sorted again on the one thread that holds them all.
 */
function mergeFindings(answers: readonly AuditShardAnswer[]): Finding[] {
  const lists = answers.map((a) => {
    const list = JSON.parse(a.findingsJson) as Finding[];
    for (const f of list) {
      const check = CHECK_BY_ID.get(f.checkId);
      if (check && f.remediation === '' && f.source === '') {
        f.remediation = check.remediation;
        f.source = check.source;
      }
    }
    return list;
  });
  return mergeSortedFindings(lists);
}

/** `items` sorted by a string key in code-unit order, ties in their order (a new array). */
function sortByKey<T>(items: readonly T[], key: (t: T) => string): T[] {
  const keyed = items.map((item, i) => ({ item, i, k: key(item) }));
  keyed.sort((a, b) => compareText(a.k, b.k) || a.i - b.i);
  return keyed.map((x) => x.item);
}

/**
 * The results of a threaded analysis run with `resultsJson`, parsed: equal, as JSON, to the whole fleet's
 * `runAudit(...).results`.
 * @throws Error when the analysis was run without `resultsJson`
 */
export function threadedResults(audit: Pick<ThreadedAudit, 'resultsJson'>): CheckResult[] {
  if (!audit.resultsJson) throw new Error('the threaded analysis was run without resultsJson: its results were not kept');
  const out: CheckResult[] = [];
  const decoder = new TextDecoder();
  for (const piece of audit.resultsJson) for (const r of JSON.parse(`[${decoder.decode(piece)}]`) as CheckResult[]) out.push(r);
  return out;
}
