/** Response shapes of waivers (`/v1/waivers`) and the default actor recorded in their history. */
import type { Principal, WaiverWithState } from '@app/store';
import { withNulls } from '../common/response-shape.util';
import type { WaiverDto } from './waiver.dto';

/** The fields of a waiver in response order (WaiverDto). */
const WAIVER_FIELDS = [
  'id',
  'checkId',
  'accountId',
  'regionId',
  'clusterId',
  'resource',
  'owner',
  'reason',
  'category',
  'ticket',
  'createdBy',
  'createdAt',
  'expiresAt',
  'revokedAt',
  'revokedBy',
  'createdByToken',
  'state',
  'matches',
] as const;

/**
 * The name this principal has in a waiver's history (libs/store auditActorOf): `token:<id>` for an `fa_` token, else
 * `bootstrap`. A client-given `createdBy` / `updatedBy` / `?by=` that differs is recorded only as `statedBy`.
 */
export function actorOf(principal: Principal): string {
  return principal.kind === 'token' && principal.tokenId ? `token:${principal.tokenId}` : 'bootstrap';
}

/** Response shape: absent optional fields as null. */
export function toWaiverDto(w: WaiverWithState): WaiverDto {
  return withNulls(w, WAIVER_FIELDS);
}
