import {
  EXPORTED_WAIVER_STATES,
  resolveWaiverInput,
  resolveWaiverUpdate,
  WAIVER_STALE_SCANS,
  WaiverMatcher,
  waiverState,
  type Waiver,
  type WaiverState,
  type Severity,
} from '@app/domain';
import type { FindingRepository } from './finding.repository';
import type { ScanRepository } from './scan.repository';
import type { WaiverHistoryEntry, WaiverRepository } from './waiver.repository';
import type { Scoped } from './principal';

/** A waiver with its state now and how many findings it covered in each of the latest scans. */
export interface WaiverWithState extends Waiver {
  state: WaiverState;
  /**
   * Findings it covers per latest succeeded scan (newest first; at most WAIVER_STALE_SCANS entries):
   * `stale` means every count is 0 over WAIVER_STALE_SCANS scans.
   */
  matches: { scanId: string; findings: number }[];
}

/**
 * The waiver use cases shared by the API, the CLI, the metrics and the reports: validate and store
 * changes (with history), and evaluate states (including `stale`, which needs the latest scans).
 * Applying waivers to findings is `matcher(now).apply(finding)` (libs/domain WaiverMatcher).
 */
export class WaiverService {
  /**
   * @param waivers the waiver repository
   * @param scans reads the latest succeeded scans (staleness)
   * @param findings reads the keys of their findings (staleness)
   */
  constructor(
    private readonly waivers: WaiverRepository,
    private readonly scans: ScanRepository,
    private readonly findings: FindingRepository,
  ) {}

  /**
   * Validate and store a new waiver.
   * @param input raw fields (libs/domain waiverInputSchema)
   * @param actor who creates it (stored as created_by and in the history)
   * @throws WaiverValidationError naming the bad field; StoreError
   */
  async create(input: unknown, actor: string, now: Date = new Date()): Promise<Waiver> {
    const resolved = resolveWaiverInput(input, now);
    return this.waivers.create({ ...resolved, createdBy: actor, createdAt: now });
  }

  /**
   * Validate and apply a change (owner, reason, category, ticket, expiry: at most 180 days from now).
   * @throws WaiverValidationError; StoreError NOT_FOUND / CONFLICT (revoked)
   */
  async update(id: string, input: unknown, actor: string, now: Date = new Date()): Promise<Waiver> {
    return this.waivers.update(id, resolveWaiverUpdate(input, now), actor, now);
  }

  /** Revoke. @throws StoreError NOT_FOUND / CONFLICT (already revoked) */
  revoke(id: string, actor: string, now: Date = new Date()): Promise<Waiver> {
    return this.waivers.revoke(id, actor, now);
  }

  /** History of one waiver. @throws StoreError NOT_FOUND */
  history(id: string): Promise<WaiverHistoryEntry[]> {
    return this.waivers.history(id);
  }

  /** A matcher over every unrevoked waiver, for applying them to findings read now. */
  async matcher(now: Date = new Date()): Promise<WaiverMatcher> {
    return new WaiverMatcher(await this.waivers.list(), now);
  }

  /**
   * Every waiver with its state at `now` (revoked ones only with `includeRevoked`), oldest first.
   * Staleness is judged on the WAIVER_STALE_SCANS latest succeeded scans started at or before `now`.
   */
  async listWithState(now: Date = new Date(), opts: { includeRevoked?: boolean } = {}): Promise<WaiverWithState[]> {
    const all = await this.waivers.list({ includeRevoked: opts.includeRevoked ?? false });
    const live = all.filter((w) => w.revokedAt === undefined);
    const matcher = new WaiverMatcher(live, now);
    const scans = await this.scans.succeededBetween({ until: now, limit: WAIVER_STALE_SCANS });
    const perScan: { scanId: string; counts: Map<string, number> }[] = [];
    for (const scan of scans) {
      const keys = await this.findings.keysForChecks(scan.id, matcher.checkIds());
      const counts = new Map<string, number>();
      for (const k of keys) for (const id of matcher.matchedIds([k])) counts.set(id, (counts.get(id) ?? 0) + 1);
      perScan.push({ scanId: scan.id, counts });
    }
    return all.map((w) => {
      const matches = perScan.map((s) => ({ scanId: s.scanId, findings: s.counts.get(w.id) ?? 0 }));
      const matchedRecently = matches.length < WAIVER_STALE_SCANS ? undefined : matches.some((m) => m.findings > 0);
      return { ...w, state: waiverState(w, now, matchedRecently), matches };
    });
  }

  /**
   * Findings of one scan an active waiver covers at `now`, per (check id, severity), sorted (metrics).
   * Reads only the keys of findings of checks that have waivers.
   * @param scope the caller's principal: only findings of its accounts are counted (in SQL)
   * @throws StoreError NOT_FOUND when the scan does not exist
   */
  async waivedCounts(scanId: string, scope: Scoped, now: Date = new Date()): Promise<{ checkId: string; severity: Severity; count: number }[]> {
    const matcher = await this.matcher(now);
    const counts = new Map<string, { checkId: string; severity: Severity; count: number }>();
    for (const k of await this.findings.keysForChecks(scanId, matcher.checkIds(), scope)) {
      if (matcher.statusOf(k.checkId, k.resource).status !== 'waived') continue;
      const key = `${k.checkId}\u0000${k.severity}`;
      const c = counts.get(key) ?? { checkId: k.checkId, severity: k.severity, count: 0 };
      c.count += 1;
      counts.set(key, c);
    }
    return [...counts.values()].sort((a, b) => (a.checkId < b.checkId ? -1 : a.checkId > b.checkId ? 1 : a.severity < b.severity ? -1 : 1));
  }

  /** Unrevoked waivers per exported state (`fleet_audit_waivers{state}`); every state present. */
  async stateCounts(now: Date = new Date()): Promise<Record<(typeof EXPORTED_WAIVER_STATES)[number], number>> {
    const counts = { active: 0, expiring: 0, expired: 0, stale: 0 };
    for (const w of await this.listWithState(now)) if (w.state !== 'revoked') counts[w.state] += 1;
    return counts;
  }
}
