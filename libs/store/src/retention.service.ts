import { planRetention, type RetentionPolicy } from './retention.policy';
import type { RemovedRows, RetentionRepository, RetentionTable } from './retention.repository';

/** Options of one retention run. */
export interface RetentionRunOptions {
  /** The clock (scan ages are measured from it). */
  now: Date;
  policy: RetentionPolicy;
  /** Most rows one DELETE statement removes (positive integer). */
  batchRows: number;
  /** Plan and count only; remove nothing. */
  dryRun?: boolean;
}

/** What one run did (or, dry, would do). */
export interface RetentionRunResult {
  /** `skipped`: another session holds the retention lock (another worker is running it). */
  status: 'done' | 'dry-run' | 'skipped';
  scansKept: number;
  scansPruned: number;
  scansDeleted: number;
  /** Rows removed (or that would be) by table. */
  rows: RemovedRows;
  /** `pg_database_size` before and after the run, bytes (equal in a dry run). */
  databaseBytesBefore: number;
  databaseBytesAfter: number;
}

/**
 * Applies the retention policy (retention.policy.ts) to the store: one scan at a time, each in bounded batches
 * (RetentionRepository), under an advisory lock so concurrent workers do not run it twice. Adds what it removed to
 * the counters /metrics exports.
 */
export class RetentionService {
  constructor(private readonly repo: RetentionRepository) {}

  /**
   * Plan and apply (or count, with `dryRun`) retention.
   * @throws RangeError for a policy out of bounds; StoreError-style pg errors when PostgreSQL fails mid-run
   *   (what was removed stays removed; the next run continues)
   */
  async run(opts: RetentionRunOptions): Promise<RetentionRunResult> {
    const outcome = await this.repo.withLock(() => this.runLocked(opts));
    if (outcome) return outcome;
    const size = await this.repo.databaseSize();
    return { status: 'skipped', scansKept: 0, scansPruned: 0, scansDeleted: 0, rows: {}, databaseBytesBefore: size, databaseBytesAfter: size };
  }

  private async runLocked(opts: RetentionRunOptions): Promise<RetentionRunResult> {
    const before = await this.repo.databaseSize();
    const plan = planRetention(await this.repo.scans(), opts.now.getTime(), opts.policy);
    if (opts.dryRun) {
      const rows = sumRows([await this.repo.countRows(plan.prune, false), await this.repo.countRows(plan.delete, true)]);
      return { status: 'dry-run', scansKept: plan.keep.length, scansPruned: plan.prune.length, scansDeleted: plan.delete.length, rows, databaseBytesBefore: before, databaseBytesAfter: before };
    }
    const parts: RemovedRows[] = [];
    let pruned = 0;
    let deleted = 0;
    for (const id of plan.prune) {
      const r = await this.repo.prune(id, opts.batchRows, opts.policy);
      if (!r) continue;
      pruned++;
      parts.push(r);
    }
    for (const id of plan.delete) {
      const r = await this.repo.delete(id, opts.batchRows);
      if (!r?.scans) continue;
      deleted++;
      parts.push(r);
    }
    // Per-scan tables a removal could not drop at the time (their scan is gone now).
    await this.repo.removeOrphanPartitions();
    const rows = sumRows(parts);
    await this.repo.record({ ...rows, 'run:runs': 1, 'run:scans_pruned': pruned, 'run:scans_deleted': deleted }, opts.now);
    return { status: 'done', scansKept: plan.keep.length, scansPruned: pruned, scansDeleted: deleted, rows, databaseBytesBefore: before, databaseBytesAfter: await this.repo.databaseSize() };
  }
}

function sumRows(parts: readonly RemovedRows[]): RemovedRows {
  const out: RemovedRows = {};
  for (const p of parts) for (const [t, n] of Object.entries(p) as [RetentionTable, number][]) out[t] = (out[t] ?? 0) + n;
  return out;
}
