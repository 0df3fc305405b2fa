/**
 * The error of reading the findings of a scan that retention pruned (libs/store retention.policy.ts): its findings,
 * targets, snapshot and fleet graph were deleted, its row and quota samples kept. An empty list would be the answer
 * of a healthy scan without findings, so readers throw this instead; transports answer REST 410 `SCAN_PRUNED` and
 * GraphQL `extensions.code` `SCAN_PRUNED`, both with `prunedAt` and `policy`, and the CLI one line with exit 2.
 */
import { fleetAuditErrorKind } from '@app/errors';
import type { RetentionPolicy } from './retention.policy';

/** The policy a scan was pruned under, as stored (`scans.pruned_policy`). */
export type PrunedPolicy = Pick<RetentionPolicy, 'rawHours' | 'dailyDays' | 'weeklyWeeks' | 'quotaDays'>;

/** The policy in words: `every scan kept 48 h, then the last of each UTC day for 92 days, then ...`. */
export function describeRetentionPolicy(p: PrunedPolicy): string {
  const weekly = p.weeklyWeeks === null ? 'then the last of each ISO week forever' : `then the last of each ISO week for ${p.weeklyWeeks} weeks`;
  return `every scan kept ${p.rawHours} h, then the last of each UTC day for ${p.dailyDays} days, ${weekly}; quota samples kept ${p.quotaDays} days`;
}

/** Reading the findings of a pruned scan (permanent: they are gone). */
export class ScanPrunedError extends fleetAuditErrorKind('ScanPrunedError', 'SCAN_PRUNED', true) {
  /**
   * @param scanId the pruned scan
   * @param prunedAt when retention pruned it (ISO 8601)
   * @param policy the retention policy it was pruned under; null when not recorded (pruned by an older release)
   */
  constructor(
    readonly scanId: string,
    readonly prunedAt: string,
    readonly policy: PrunedPolicy | null,
  ) {
    super(
      `scan ${scanId} was pruned by retention at ${prunedAt}${policy ? ` (${describeRetentionPolicy(policy)})` : ''}: its findings were deleted, its quota samples kept; read a scan kept whole (the last of its UTC day or ISO week)`,
    );
  }

  /** The fields transports add to their answer: `{scanId, prunedAt, policy}`. */
  details(): { scanId: string; prunedAt: string; policy: PrunedPolicy | null } {
    return { scanId: this.scanId, prunedAt: this.prunedAt, policy: this.policy };
  }
}
