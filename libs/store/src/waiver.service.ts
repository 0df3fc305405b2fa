import {
  EXPORTED_WAIVER_STATES,
  resolveWaiverInput,
  resolveWaiverUpdate,
  WAIVER_STALE_SCANS,
  WaiverMatcher,
  waiverState,
  type WaiverState,
  type Severity,
} from '@app/domain';
import { LRUCache } from 'lru-cache';
import type { FindingRepository } from './finding.repository';
import { scopeCacheKey, type ReadGeneration } from './read-generation';
import type { ScanRepository } from './scan.repository';
import type { StoredWaiver, WaiverHistoryEntry, WaiverRepository } from './waiver.repository';
import { scopeIncludes, SYSTEM_PRINCIPAL, type Principal, type Scoped } from './principal';
import { StoreError } from './store.exception';

/** A waiver with its state now and how many findings it covered in each of the latest scans. */
export interface WaiverWithState extends StoredWaiver {
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
 *
 * Scope: every method takes the caller (a Principal or its scope; default SYSTEM_PRINCIPAL,
 * every account, for in-process callers) and reads only waivers of its accounts, in SQL. A waiver names
 * one account, so it is either wholly inside a scope or invisible. Creating needs the account in scope
 * (FORBIDDEN otherwise: the caller named it, nothing leaks); changing and revoking need the waiver in
 * scope (NOT_FOUND otherwise) and to be the caller's own unless it is admin (FORBIDDEN).
 */
export class WaiverService {
  /** Unrevoked waivers per (waivers generation, scope), for `matcher` with a generation. Waivers are few per scope. */
  private readonly liveWaivers = new LRUCache<string, StoredWaiver[], Scoped>({
    max: 1000,
    fetchMethod: (_key, _stale, { context }) => this.waivers.list({ scope: context }),
  });

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
   * @param actor who the caller says creates it: the actor itself for the SYSTEM principal (CLI: the local user); for a
   *   request only a stated name (`statedBy`), the history and `created_by` naming the authenticated principal
   * @param by who asks (default SYSTEM_PRINCIPAL): the waiver's account must be in its scope; an `fa_`
   *   token is recorded as the waiver's creator (only it, or an admin, may change it later)
   * @throws WaiverValidationError naming the bad field; StoreError FORBIDDEN (account outside the scope; for a team-scoped
   *   principal, a waiver without a cluster of its teams)
   */
  async create(input: unknown, actor: string, now: Date = new Date(), by: Principal = SYSTEM_PRINCIPAL): Promise<StoredWaiver> {
    const resolved = resolveWaiverInput(input, now);
    if (!scopeIncludes(by.accountScope, resolved.accountId)) {
      throw new StoreError('FORBIDDEN', `account ${resolved.accountId} is outside the token's account scope`);
    }
    // A waiver of a whole account or region would also waive other teams' findings there.
    if (by.teamScope !== undefined && (resolved.clusterId === undefined || !(await this.waivers.clusterInTeams(resolved.accountId, resolved.clusterId, by)))) {
      throw new StoreError(
        'FORBIDDEN',
        `a token scoped to teams ${by.teamScope.join(', ')} waives findings of its own clusters only: give the clusterId of one of them${resolved.clusterId === undefined ? '' : ` (${resolved.clusterId} is not one of them)`}`,
      );
    }
    return this.waivers.create({ ...resolved, createdBy: actor, createdAt: now, createdByToken: by.kind === 'token' ? by.tokenId : null, by });
  }

  /**
   * Validate and apply a change (owner, reason, category, ticket, expiry: at most 180 days from now).
   * @param by who asks (default SYSTEM_PRINCIPAL)
   * @throws WaiverValidationError; StoreError NOT_FOUND (not in scope) / FORBIDDEN (not its own, not admin) / CONFLICT (revoked)
   */
  async update(id: string, input: unknown, actor: string, now: Date = new Date(), by: Principal = SYSTEM_PRINCIPAL): Promise<StoredWaiver> {
    return this.waivers.update(id, resolveWaiverUpdate(input, now), actor, now, by);
  }

  /** Revoke. @throws StoreError NOT_FOUND (not in scope) / FORBIDDEN (not its own, not admin) / CONFLICT (already revoked) */
  revoke(id: string, actor: string, now: Date = new Date(), by: Principal = SYSTEM_PRINCIPAL): Promise<StoredWaiver> {
    return this.waivers.revoke(id, actor, now, by);
  }

  /** Shortest id prefix `resolveIdPrefix` accepts (4 hex digits: 65,536 values; `waiver list` shows 8). */
  static readonly MIN_ID_PREFIX = 4;

  /**
   * The one waiver id of the scope that starts with `prefix` (a whole id resolves to itself), as the CLI's
   * `waiver revoke <prefix>` takes it.
   * @throws StoreError INVALID_ARGUMENT when the prefix is shorter than MIN_ID_PREFIX characters or matches several
   *   waivers (naming them), NOT_FOUND when it matches none
   */
  async resolveIdPrefix(prefix: string, scope: Scoped = SYSTEM_PRINCIPAL): Promise<string> {
    if (prefix.length < WaiverService.MIN_ID_PREFIX)
      throw new StoreError('INVALID_ARGUMENT', `waiver id "${prefix}": give at least ${WaiverService.MIN_ID_PREFIX} characters of the id (waiver list shows 8)`);
    const ids = await this.waivers.idsStartingWith(prefix, 6, scope);
    if (ids.length === 0) throw new StoreError('NOT_FOUND', `no waiver id starts with "${prefix}" (waiver list --all shows every id)`);
    if (ids.length > 1) throw new StoreError('INVALID_ARGUMENT', `waiver id "${prefix}" is ambiguous: ${ids.slice(0, 5).join(', ')}${ids.length > 5 ? ', ...' : ''}; give more characters`);
    return ids[0];
  }

  /** History of one waiver in the scope. @throws StoreError NOT_FOUND */
  history(id: string, scope: Scoped = SYSTEM_PRINCIPAL): Promise<WaiverHistoryEntry[]> {
    return this.waivers.history(id, scope);
  }

  /**
   * A matcher over the unrevoked waivers of the scope, for applying them to findings read now (a waiver
   * only ever matches findings of its own account, so scoping changes no result, only the work).
   * @param generation the request's ReadGeneration (read before calling): with it, the scope's waiver list is
   *   cached under (waivers generation, the scope's exact account set); every create / change / revoke bumps the
   *   generation, and expiry is judged against `now` on every call, so the matcher is the same as without it
   */
  async matcher(now: Date = new Date(), scope: Scoped = SYSTEM_PRINCIPAL, generation?: ReadGeneration): Promise<WaiverMatcher> {
    if (!generation) return new WaiverMatcher(await this.waivers.list({ scope }), now);
    const key = `${generation.waivers}\u0000${scopeCacheKey(scope)}`;
    const live = await this.liveWaivers.fetch(key, { context: scope });
    return new WaiverMatcher(live ?? (await this.waivers.list({ scope })), now);
  }

  /**
   * One waiver of the scope with its state at `now`, or null (absent or outside the scope).
   */
  async getWithState(id: string, now: Date = new Date(), scope: Scoped = SYSTEM_PRINCIPAL): Promise<WaiverWithState | null> {
    const w = await this.waivers.get(id, scope);
    return w ? (await this.withStates([w], now, scope))[0] : null;
  }

  /**
   * Every waiver of the scope with its state at `now` (revoked ones only with `includeRevoked`), oldest
   * first. Staleness is judged on the WAIVER_STALE_SCANS latest succeeded scans started at or before `now`.
   * @param opts.scope the caller (default every account): waivers and matched findings of its accounts only
   */
  async listWithState(now: Date = new Date(), opts: { includeRevoked?: boolean; scope?: Scoped } = {}): Promise<WaiverWithState[]> {
    const scope = opts.scope ?? SYSTEM_PRINCIPAL;
    return this.withStates(await this.waivers.list({ includeRevoked: opts.includeRevoked ?? false, scope }), now, scope);
  }

  /** `all` with their states: match counts over the latest scans (findings of the scope only). */
  private async withStates(all: StoredWaiver[], now: Date, scope: Scoped): Promise<WaiverWithState[]> {
    const live = all.filter((w) => w.revokedAt === undefined);
    const matcher = new WaiverMatcher(live, now);
    const scans = await this.scans.succeededBetween({ until: now, limit: WAIVER_STALE_SCANS });
    const perScan: { scanId: string; counts: Map<string, number> }[] = [];
    for (const scan of scans) {
      const keys = await this.findings.keysForChecks(scan.id, matcher.checkIds(), scope);
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
    const matcher = await this.matcher(now, scope);
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

  /**
   * Unrevoked waivers of the scope per exported state (`fleet_audit_waivers{state}`); every state present.
   * @param scope the caller (default every account)
   */
  async stateCounts(now: Date = new Date(), scope: Scoped = SYSTEM_PRINCIPAL): Promise<Record<(typeof EXPORTED_WAIVER_STATES)[number], number>> {
    const counts = { active: 0, expiring: 0, expired: 0, stale: 0 };
    for (const w of await this.listWithState(now, { scope })) if (w.state !== 'revoked') counts[w.state] += 1;
    return counts;
  }
}
