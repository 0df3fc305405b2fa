/**
 * One shard of the threaded analysis (threaded-audit.ts), as a thread of its pool computes it: build the shard's
 * snapshot from its own source (the shard's files of a fleet directory, or a serialized shard snapshot), run every
 * enabled check on it (`runAudit`, as `analyzeSnapshot` and the distributed scan's `analyzeAndStoreShard` do), keep
 * the account's own results and coverage in the account's lead shard only (analyze-shard.ts explains why a shard's
 * results equal the in-process analysis's), and answer in the compact form the merge needs: the findings as JSON
 * text without the two per-check texts (`remediation`, `source`: the merge puts the registry's back), the results'
 * runs of one (check, kind, account, region) with their counts and, when asked, their JSON text as UTF-8 bytes (not
 * asked, the shard keeps only its skipped results: their runs place them).
 *
 * Why JSON text and bytes, not objects: a structured clone of every result object (about 500 bytes of JSON each;
 * 2.5M at 5,000 clusters) cost the main thread about as long as the analysis itself (bench/analyze.bench.ts,
 * docs/benchmarks.md); strings and moved ArrayBuffers cross the thread boundary as one copy or none.
 */
import { readFileSync } from 'node:fs';
import { deserialize } from 'node:v8';
import { CHECKS, FleetIndex, runAudit, type PartialAuditSettings } from '@app/checks';
import { FleetValidationError, readFleetShard } from '@app/collectors';
import { assignTeams, mapWireFleet, skippedResultsOf, type CheckResult, type CoverageEntry, type FleetSnapshot, type Finding, type ResourceRef, type SkippedResult } from '@app/domain';
import { KEEP_SKIPPED_ONLY, summarize, type ScanSummary } from './analyze-and-store';
import { isAccountLevel, notAccountLevel } from './analyze-shard';

/**
 * Where a thread builds one shard's snapshot from:
 * - `directory`: the shard's files of a fleet directory (libs/collectors `readFleetShard`: the account's own files
 *   and one region's);
 * - `snapshotFile`: a file holding one shard's FleetSnapshot serialized with `node:v8` `serialize` (benchmarks write
 *   one per shard of a generated fleet, whose generator builds the whole fleet at once).
 */
export type AuditShardSource =
  | { kind: 'directory'; fleetDir: string; accountId: string; regionId: string | null }
  | { kind: 'snapshotFile'; file: string };

/** What a thread is handed for one shard (structured clone: plain data only). */
export interface AuditShardTask {
  /** The shard's name in errors and timings: `region/<account>/<region>` or `account/<account>`. */
  key: string;
  /** Whether this shard reports the account's own results and coverage (its lowest region, or the account alone). */
  lead: boolean;
  source: AuditShardSource;
  /** Analysis clock, ISO 8601. */
  now: string;
  settings?: PartialAuditSettings;
  /**
   * Answer the results' JSON text too (`AuditShardAnswer.resultsJson`); without it the shard keeps only its skipped
   * results (the passes and fails are counted in its summary, not kept).
   */
  resultsJson: boolean;
}

/** A run of a shard's results: consecutive results of one check about resources of one kind, account and region. */
export interface ResultRun {
  checkId: string;
  kind: CheckResult['resource']['kind'];
  accountId: string;
  /** '' (or absent) for the account's own resources. */
  regionId: string | undefined;
  /** Results in the run (count). */
  count: number;
}

/** A thread's answer for one shard. */
export interface AuditShardAnswer {
  key: string;
  /** The shard's account (from its snapshot). */
  accountId: string;
  /** The runs of the results the shard kept: every result with `AuditShardTask.resultsJson`, the skipped ones otherwise. */
  runs: ResultRun[];
  /** `JSON.stringify` of the shard's findings (in `runAudit` order), `remediation` and `source` left '' where they are the check's. */
  findingsJson: string;
  /** The shard's skipped results in result order, and the run each belongs to (index into `runs`). */
  skipped: SkippedResult[];
  skippedRun: number[];
  coverage: CoverageEntry[];
  /** The shard's part of the scan summary (`summarize` over what the shard keeps; `accounts` 1 in the lead shard). */
  summary: ScanSummary;
  /** The fleet name of the shard's snapshot. */
  fleetName: string;
  /** Per run, the UTF-8 JSON text of its results, comma-separated without brackets (when the task asked). */
  resultsJson?: Uint8Array[];
  /**
   * Milliseconds building the shard's snapshot, running the checks and shaping the answer, and writing the results'
   * JSON bytes (`resultsJson`; 0 when not asked).
   */
  loadMs: number;
  auditMs: number;
  jsonMs: number;
}

/** A thread's answer for a shard with an invalid file: the FleetValidationError's fields (file, JSON path, expectation). */
export interface ShardInvalidFile {
  invalidFile: { file: string; jsonPath: string; expected: string };
}

/** The fields of a FleetValidationError, to answer across the thread boundary; undefined for any other error. */
export function fleetValidationOf(e: unknown): ShardInvalidFile['invalidFile'] | undefined {
  return e instanceof FleetValidationError ? { file: e.file, jsonPath: e.jsonPath, expected: e.expected } : undefined;
}

/**
 * The shard's snapshot from its source.
 * @throws FleetValidationError for an invalid file of the shard; Error for a snapshot file that is not one shard
 */
export function shardSnapshotOf(source: AuditShardSource): FleetSnapshot {
  if (source.kind === 'directory') return mapWireFleet(readFleetShard(source.fleetDir, { accountId: source.accountId, regionId: source.regionId }));
  const snapshot = deserialize(readFileSync(source.file)) as FleetSnapshot;
  if (!Array.isArray(snapshot?.accounts) || snapshot.accounts.length !== 1)
    throw new Error(`${source.file}: not the snapshot of one shard (one account)`);
  return snapshot;
}

const CHECK_BY_ID = new Map(CHECKS.map((c) => [c.id, c] as const));

/**
 * Analyze one shard (see the file comment).
 * @throws FleetValidationError / Error from the shard's source; AuditSettingsError for invalid settings; Error when a
 *   result lies outside the shard's account and region (the merge could not place it: the shard is refused rather
 *   than merged out of order)
 */
export function auditShard(task: AuditShardTask): AuditShardAnswer {
  const t0 = performance.now();
  const snapshot = shardSnapshotOf(task.source);
  const t1 = performance.now();
  const accountId = snapshot.accounts[0]?.accountId ?? '';
  const regionIds = new Set(snapshot.accounts[0]?.regions.map((r) => r.regionId) ?? []);
  // Each cluster's team on the snapshot, as a whole scan's analysis has it (`analyzeAndStoreShard` does the same).
  assignTeams(snapshot, task.settings?.owners);
  const index = FleetIndex.build(snapshot);
  const lead = task.lead;
  // Every result is seen as the checks push it: one about a resource outside the shard's account and region fails the
  // shard (the merge could not place it), and a shard that is not its account's lead drops the account's own.
  let outside: ResourceRef | undefined;
  const about = (ref: ResourceRef): boolean => {
    const { accountId: a, regionId } = ref;
    if (outside === undefined && (a !== accountId || !(isAccountLevel(regionId) || regionIds.has(regionId)))) outside = ref;
    return lead || notAccountLevel(ref);
  };
  // Without the results' JSON the merge needs the skipped results alone: the passes and fails are counted, not kept
  // (some 250,000 in a 500-cluster shard of the benchmark fleet), as in a whole scan's analysis.
  const audit = runAudit(snapshot, {
    now: new Date(task.now),
    ...(task.settings ? { settings: task.settings } : {}),
    index,
    resultsAbout: about,
    ...(task.resultsJson ? {} : { keepResultsOf: KEEP_SKIPPED_ONLY }),
  });
  if (outside !== undefined)
    throw new Error(`a result about ${outside.kind} ${outside.id} lies outside the shard (account ${outside.accountId}, region ${outside.regionId ?? ''})`);
  const { results, findings } = audit;
  const coverage: CoverageEntry[] = lead ? snapshot.coverage : snapshot.coverage.filter((c) => !isAccountLevel(c.regionId));
  const summary: ScanSummary = { ...summarize({ ...snapshot, coverage }, audit.counts, findings), accounts: lead ? snapshot.accounts.length : 0 };
  const runs: ResultRun[] = [];
  const runStarts: number[] = [];
  for (let i = 0; i < results.length; i++) {
    const r = results[i]!;
    const { kind, accountId: a, regionId } = r.resource;
    const last = runs[runs.length - 1];
    if (last && last.checkId === r.checkId && last.kind === kind && last.accountId === a && last.regionId === regionId) last.count++;
    else {
      runs.push({ checkId: r.checkId, kind, accountId: a, regionId, count: 1 });
      runStarts.push(i);
    }
  }
  const skipped = skippedResultsOf(results);
  const skippedRun: number[] = [];
  if (skipped.length > 0) {
    let run = 0;
    for (let i = 0; i < results.length; i++) {
      while (run + 1 < runStarts.length && runStarts[run + 1]! <= i) run++;
      if (results[i]!.status === 'skipped') skippedRun.push(run);
    }
  }
  const answer: AuditShardAnswer = {
    key: task.key,
    accountId,
    runs,
    findingsJson: JSON.stringify(findings.map(withoutCheckTexts)),
    skipped,
    skippedRun,
    coverage,
    summary,
    fleetName: snapshot.name,
    loadMs: t1 - t0,
    auditMs: 0,
    jsonMs: 0,
  };
  const t2 = performance.now();
  answer.auditMs = t2 - t1;
  if (task.resultsJson) {
    const encoder = new TextEncoder();
    answer.resultsJson = runs.map((run, k) => {
      const start = runStarts[k]!;
      const text = JSON.stringify(results.slice(start, start + run.count));
      return encoder.encode(text.slice(1, -1));
    });
    answer.jsonMs = performance.now() - t2;
  }
  return answer;
}

/**
 * The finding with '' for `remediation` and `source` where they are its check's (the merge puts the registry's texts
 * back in the same keys, so the key order and the JSON are unchanged).
 */
function withoutCheckTexts(f: Finding): Finding {
  const check = CHECK_BY_ID.get(f.checkId);
  if (!check || f.remediation !== check.remediation || f.source !== check.source) return f;
  return { ...f, remediation: '', source: '' };
}
