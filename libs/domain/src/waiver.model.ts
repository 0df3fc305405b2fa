/**
 * Waivers: an accepted, owned and expiring exception to a check for some resources (research
 * `next-features-anchors.md` §3 V1/V2, after Azure Policy exemptions: expiry + owner + category). A waiver
 * never deletes a finding: it is applied when findings are read, so the finding keeps its severity and is
 * shown `waived` with the waiver; once the waiver expires the finding counts again ("waiver expired").
 *
 * Pure (no I/O): the store, the API, the CLI (`--waivers FILE`), the metrics and the reports share it.
 */
import type { Finding, ResourceRef } from './finding.types';
import { compileGlob } from './glob.util';

/** Why the risk is accepted (Azure Policy `exemptionCategory` Waiver/Mitigated, plus false positives). */
export type WaiverCategory = 'accepted-risk' | 'mitigated' | 'false-positive';

/** All waiver categories. */
export const WAIVER_CATEGORIES: readonly WaiverCategory[] = ['accepted-risk', 'mitigated', 'false-positive'];

/** Shortest accepted reason (characters). */
export const MIN_WAIVER_REASON_LENGTH = 10;
/** Default lifetime of a waiver when no expiry is given (days). */
export const DEFAULT_WAIVER_DAYS = 90;
/** Longest lifetime of a waiver from its creation or last renewal (days). */
export const MAX_WAIVER_DAYS = 180;
/** A waiver expiring within this many days is `expiring` (EPAC's "active-expiring-within-15-days"). */
export const WAIVER_EXPIRING_DAYS = 14;
/** A waiver that matched no finding in this many latest succeeded scans is `stale`. */
export const WAIVER_STALE_SCANS = 2;

/** Milliseconds per day. */
export const DAY_MS = 86_400_000;

/**
 * What a waiver covers: one check, one account, optionally one region and one cluster, and the resources
 * whose id equals `resource` or matches it as a glob (`*` any run of characters, `?` one character;
 * `*` alone: every resource of the scope).
 */
export interface WaiverScope {
  checkId: string;
  accountId: string;
  regionId?: string;
  clusterId?: string;
  /** Exact resource id (`lb-...`, `namespace/name`) or a glob over it. */
  resource: string;
}

/** A waiver as stored and served. Times are ISO 8601 UTC. */
export interface Waiver extends WaiverScope {
  id: string;
  /** Person or team answerable for the accepted risk. */
  owner: string;
  /** Why (at least MIN_WAIVER_REASON_LENGTH characters). */
  reason: string;
  category: WaiverCategory;
  /** Ticket / change reference (free text), when given. */
  ticket?: string;
  createdBy: string;
  createdAt: string;
  expiresAt: string;
  /** When and by whom the waiver was revoked; absent while not revoked. */
  revokedAt?: string;
  revokedBy?: string;
}

/** The fields of a waiver a person states: its scope and who answers for it, and why (not id, creation, expiry). */
export type WaiverFields<C extends string = WaiverCategory> = WaiverScope & { owner: string; reason: string; category: C; ticket?: string };

/** `WaiverFields` as read from a source whose optional fields may be absent, `undefined` or SQL NULL. */
export type WaiverFieldsSource<C extends string = WaiverCategory> = Omit<WaiverFields<C>, 'regionId' | 'clusterId' | 'ticket'> & {
  regionId?: string | null | undefined;
  clusterId?: string | null | undefined;
  ticket?: string | null | undefined;
};

/**
 * The one field mapping of waivers (CLI input, waivers file, API input schema, store rows): the stated fields in
 * their canonical key order, the optional ones (`regionId`, `clusterId`, `ticket`) only when set (`undefined`
 * and `null` are unset), so that a waiver serialises the same whichever way it came in.
 */
export function waiverFields<C extends string = WaiverCategory>(src: WaiverFieldsSource<C>): WaiverFields<C> {
  return {
    checkId: src.checkId,
    accountId: src.accountId,
    ...(src.regionId !== undefined && src.regionId !== null ? { regionId: src.regionId } : {}),
    ...(src.clusterId !== undefined && src.clusterId !== null ? { clusterId: src.clusterId } : {}),
    resource: src.resource,
    owner: src.owner,
    reason: src.reason,
    category: src.category,
    ...(src.ticket !== undefined && src.ticket !== null ? { ticket: src.ticket } : {}),
  };
}

/** Lifecycle state of a waiver at a given time (exclusive; first that applies, in this order). */
export type WaiverState = 'revoked' | 'expired' | 'stale' | 'expiring' | 'active';

/** The states exported as `fleet_audit_waivers{state}` (revoked waivers are history, not exported). */
export const EXPORTED_WAIVER_STATES = ['active', 'expiring', 'expired', 'stale'] as const;

/** How a finding stands with respect to waivers when read. */
export type FindingWaiverStatus = 'open' | 'waived' | 'waiver-expired';

/** The waiver facts shown next to a waived (or no longer waived) finding. */
export interface AppliedWaiver {
  id: string;
  owner: string;
  reason: string;
  category: WaiverCategory;
  ticket?: string;
  expiresAt: string;
}

/** A finding as read with waivers applied: its own fields unchanged, plus status and the waiver. */
export type WaivedFinding<F extends Finding = Finding> = F & {
  status: FindingWaiverStatus;
  /** The active waiver (`waived`) or the latest expired one (`waiver-expired`); absent when `open`. */
  waiver?: AppliedWaiver;
};

/**
 * Compile a resource pattern: an exact id, or a glob with `*` (any characters, `/` included: Kubernetes
 * ids are `namespace/name`) and `?` (one character). Everything else is literal. Matched without a RegExp
 * (glob.util.ts): a stored pattern is applied to every finding of every read, and a backtracking match of
 * a many-star pattern would stall each of them.
 * @returns a predicate over resource ids, linear in the id's length for a given pattern
 */
export function compileResourcePattern(pattern: string): (resourceId: string) => boolean {
  return compileGlob(pattern);
}

/** Does the scope cover this (check, resource)? */
export function waiverCovers(scope: WaiverScope, checkId: string, resource: ResourceRef, matchResource = compileResourcePattern(scope.resource)): boolean {
  return (
    scope.checkId === checkId &&
    scope.accountId === resource.accountId &&
    (scope.regionId === undefined || scope.regionId === resource.regionId) &&
    (scope.clusterId === undefined || scope.clusterId === resource.clusterId) &&
    matchResource(resource.id)
  );
}

/**
 * State of a waiver at `now` (before staleness, which needs scan history: see `waiverState`).
 * @param now the clock
 */
export function waiverTimeState(w: Pick<Waiver, 'expiresAt' | 'revokedAt'>, now: Date): 'revoked' | 'expired' | 'expiring' | 'active' {
  if (w.revokedAt !== undefined) return 'revoked';
  const left = Date.parse(w.expiresAt) - now.getTime();
  if (left <= 0) return 'expired';
  return left <= WAIVER_EXPIRING_DAYS * DAY_MS ? 'expiring' : 'active';
}

/**
 * Full state of a waiver: revoked / expired by time, else `stale` when it matched nothing in the latest
 * WAIVER_STALE_SCANS succeeded scans (`matchedRecently` false; undefined when fewer scans exist), else
 * expiring / active.
 */
export function waiverState(w: Pick<Waiver, 'expiresAt' | 'revokedAt'>, now: Date, matchedRecently: boolean | undefined): WaiverState {
  const t = waiverTimeState(w, now);
  if (t === 'revoked' || t === 'expired') return t;
  return matchedRecently === false ? 'stale' : t;
}

/** The waiver facts shown with a finding. */
export function appliedWaiverOf(w: Waiver): AppliedWaiver {
  return {
    id: w.id,
    owner: w.owner,
    reason: w.reason,
    category: w.category,
    ...(w.ticket !== undefined ? { ticket: w.ticket } : {}),
    expiresAt: w.expiresAt,
  };
}

/**
 * Matches findings against a set of waivers; built once per read, then asked per finding. Waivers are
 * indexed by check id so a read costs O(findings × waivers of that check).
 */
export class WaiverMatcher {
  private readonly byCheck = new Map<string, { waiver: Waiver; match: (id: string) => boolean }[]>();

  /**
   * @param waivers every waiver to consider (revoked ones are ignored)
   * @param now the clock deciding active vs expired
   */
  constructor(
    waivers: readonly Waiver[],
    private readonly now: Date,
  ) {
    const sorted = [...waivers].filter((w) => w.revokedAt === undefined).sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : a.id < b.id ? -1 : 1));
    for (const waiver of sorted) {
      const list = this.byCheck.get(waiver.checkId) ?? [];
      list.push({ waiver, match: compileResourcePattern(waiver.resource) });
      this.byCheck.set(waiver.checkId, list);
    }
  }

  /** Check ids that have at least one (unrevoked) waiver. */
  checkIds(): string[] {
    return [...this.byCheck.keys()].sort();
  }

  /**
   * The waiver standing of one (check, resource): `waived` by the oldest active waiver covering it, else
   * `waiver-expired` with the most recently expired one, else `open`.
   */
  statusOf(checkId: string, resource: ResourceRef): { status: FindingWaiverStatus; waiver?: Waiver } {
    const candidates = this.byCheck.get(checkId);
    if (!candidates) return { status: 'open' };
    let expired: Waiver | undefined;
    for (const c of candidates) {
      if (!waiverCovers(c.waiver, checkId, resource, c.match)) continue;
      if (Date.parse(c.waiver.expiresAt) > this.now.getTime()) return { status: 'waived', waiver: c.waiver };
      if (!expired || c.waiver.expiresAt > expired.expiresAt) expired = c.waiver;
    }
    return expired ? { status: 'waiver-expired', waiver: expired } : { status: 'open' };
  }

  /**
   * Ids of the waivers (active or expired) covering at least one of the given findings: which waivers
   * matched a scan (staleness).
   */
  matchedIds(findings: Iterable<{ checkId: string; resource: ResourceRef }>): Set<string> {
    const ids = new Set<string>();
    for (const f of findings) {
      const candidates = this.byCheck.get(f.checkId);
      if (!candidates) continue;
      for (const c of candidates) if (waiverCovers(c.waiver, f.checkId, f.resource, c.match)) ids.add(c.waiver.id);
    }
    return ids;
  }

  /** The finding with its waiver status and waiver attached (the finding's own fields unchanged). */
  apply<F extends Finding>(finding: F): WaivedFinding<F> {
    const { status, waiver } = this.statusOf(finding.checkId, finding.resource);
    return { ...finding, status, ...(waiver ? { waiver: appliedWaiverOf(waiver) } : {}) };
  }
}
