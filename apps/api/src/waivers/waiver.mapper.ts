/** Response shapes of waivers (`/v1/waivers`) and the default actor recorded in their history. */
import type { Principal, WaiverWithState } from '@app/store';
import type { WaiverDto } from './waiver.dto';

/**
 * The name this principal has in a waiver's history (libs/store auditActorOf): `token:<id>` for an `fa_` token, else
 * `bootstrap`. A client-given `createdBy` / `updatedBy` / `?by=` that differs is recorded only as `statedBy`.
 */
export function actorOf(principal: Principal): string {
  return principal.kind === 'token' && principal.tokenId ? `token:${principal.tokenId}` : 'bootstrap';
}

/** Response shape: absent optional fields as null. */
export function toWaiverDto(w: WaiverWithState): WaiverDto {
  return {
    id: w.id,
    checkId: w.checkId,
    accountId: w.accountId,
    regionId: w.regionId ?? null,
    clusterId: w.clusterId ?? null,
    resource: w.resource,
    owner: w.owner,
    reason: w.reason,
    category: w.category,
    ticket: w.ticket ?? null,
    createdBy: w.createdBy,
    createdAt: w.createdAt,
    expiresAt: w.expiresAt,
    revokedAt: w.revokedAt ?? null,
    revokedBy: w.revokedBy ?? null,
    createdByToken: w.createdByToken,
    state: w.state,
    matches: w.matches,
  };
}
