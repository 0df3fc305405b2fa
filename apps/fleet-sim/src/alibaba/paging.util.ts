/**
 * Opaque paging tokens (ECS/Quota Center `NextToken`, RAM `Marker`): base64url of the next offset
 * and a scope string, so a token replayed with other filters or for another API is rejected
 * instead of silently paging a different list.
 */
import { AcsError } from './acs-error.exception';

/** Encode the offset of the next page for a list identified by `scope`. */
export function encodePageToken(offset: number, scope: string): string {
  return Buffer.from(JSON.stringify({ o: offset, s: scope })).toString('base64url');
}

/**
 * Decode a token made by {@link encodePageToken}.
 * @param paramName the request parameter that carried it (for the error message)
 * @throws AcsError 400 `InvalidParameter` when the token is malformed or from another list
 */
export function decodePageToken(token: string, scope: string, paramName: string): number {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch {
    throw AcsError.invalidParameter(paramName, 'The token is malformed.');
  }
  if (typeof parsed !== 'object' || parsed === null)
    throw AcsError.invalidParameter(paramName, 'The token is malformed.');
  const { o, s } = parsed as { o?: unknown; s?: unknown };
  if (typeof o !== 'number' || !Number.isInteger(o) || o < 0 || s !== scope)
    throw AcsError.invalidParameter(paramName, 'The token does not belong to this request.');
  return o;
}

/** Clamp `value` into `[min, max]`. */
export const clamp = (value: number, min: number, max: number): number => Math.min(max, Math.max(min, value));
