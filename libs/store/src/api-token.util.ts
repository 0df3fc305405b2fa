/**
 * API token format and keyed hash.
 *
 * A token is `fa_<id>_<secret>`: `id` 12 lowercase base36 characters (public, the database key),
 * `secret` 32 random base62 characters followed by 6 base62 characters of the CRC-32 of
 * everything before them. The checksum lets a malformed or mistyped token be refused without a
 * database read, and lets secret scanners recognise real tokens (GitHub token format: prefix +
 * 30 random + 6-character base62 CRC-32, github.blog 2021-04-05 "Behind GitHub's new
 * authentication token formats"; Grafana `glsa_` tokens: grafana/grafana
 * pkg/components/satokengen/tokengen.go, CRC-32 checksum, hash-only storage).
 *
 * Only HMAC-SHA-256(server key, `<id>:<secret>`) is stored; the server key comes from the
 * configuration (`TOKEN_HASH_KEY`), never from the database, so a database dump alone cannot be
 * used to check guesses. HMAC (not bcrypt) because the secret has 190 bits of entropy: a slow
 * hash buys nothing and would cost milliseconds per request.
 */
import { createHmac, randomInt, timingSafeEqual } from 'node:crypto';
import { crc32 } from 'node:zlib';

/** Prefix of every token (secret scanners match on it). */
export const TOKEN_PREFIX = 'fa_';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const BASE36 = '0123456789abcdefghijklmnopqrstuvwxyz';
const ID_LENGTH = 12;
const RANDOM_LENGTH = 32;
const CHECKSUM_LENGTH = 6;
const TOKEN_PATTERN = /^fa_([0-9a-z]{12})_([0-9A-Za-z]{38})$/;

/** Shortest accepted server key (characters). */
export const MIN_TOKEN_HASH_KEY_LENGTH = 32;

function randomString(alphabet: string, length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += alphabet[randomInt(alphabet.length)];
  return out;
}

/** CRC-32 of `text` as 6 base62 characters (62^6 > 2^32), zero-padded. */
function checksum(text: string): string {
  let n = crc32(Buffer.from(text, 'utf8'));
  let out = '';
  for (let i = 0; i < CHECKSUM_LENGTH; i++) {
    out = BASE62[n % 62] + out;
    n = Math.floor(n / 62);
  }
  return out;
}

/** A new token's parts: `token` is shown once; only `id` and the hash of `secret` are stored. */
export interface GeneratedToken {
  id: string;
  secret: string;
  token: string;
}

/**
 * The token of an id and 32 random base62 characters, with its checksum appended.
 * @throws RangeError when id or random have the wrong shape
 */
export function composeToken(id: string, random: string): GeneratedToken {
  if (!/^[0-9a-z]{12}$/.test(id) || !/^[0-9A-Za-z]{32}$/.test(random)) throw new RangeError('token id or random part malformed');
  const secret = random + checksum(`${TOKEN_PREFIX}${id}_${random}`);
  return { id, secret, token: `${TOKEN_PREFIX}${id}_${secret}` };
}

/** Generate a token with a fresh random id and secret (crypto.randomInt, CSPRNG). */
export function generateToken(): GeneratedToken {
  return composeToken(randomString(BASE36, ID_LENGTH), randomString(BASE62, RANDOM_LENGTH));
}

/**
 * Parse a presented token offline: shape and checksum. No database access.
 * @returns `{id, secret}`, or null when the text is not a well-formed token with a valid checksum
 */
export function parseToken(text: string): { id: string; secret: string } | null {
  const m = TOKEN_PATTERN.exec(text);
  if (!m) return null;
  const [, id, secret] = m;
  const random = secret.slice(0, RANDOM_LENGTH);
  const given = secret.slice(RANDOM_LENGTH);
  if (checksum(`${TOKEN_PREFIX}${id}_${random}`) !== given) return null;
  return { id, secret };
}

/** Whether the text looks like an `fa_` token at all (to tell it from the bootstrap API_TOKEN). */
export function looksLikeToken(text: string): boolean {
  return text.startsWith(TOKEN_PREFIX);
}

/**
 * The stored hash of a token secret: HMAC-SHA-256(key, `<id>:<secret>`), 32 bytes.
 * @param key the server key (TOKEN_HASH_KEY, at least 32 characters)
 * @throws RangeError when the key is too short
 */
export function hashTokenSecret(key: string, id: string, secret: string): Buffer {
  if (key.length < MIN_TOKEN_HASH_KEY_LENGTH) throw new RangeError(`token hash key must be at least ${MIN_TOKEN_HASH_KEY_LENGTH} characters`);
  return createHmac('sha256', key).update(`${id}:${secret}`, 'utf8').digest();
}

/** Constant-time comparison of two hashes (false when lengths differ). */
export function hashesEqual(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Default token lifetime (days). */
export const DEFAULT_TOKEN_TTL_DAYS = 90;

/** Longest token lifetime (days). */
export const MAX_TOKEN_TTL_DAYS = 365;

/**
 * Parse a lifetime like `90d`, `12h`, `30m` or a bare number of days.
 * @returns milliseconds
 * @throws RangeError naming the value when malformed, not positive or above 365 days
 */
export function parseTokenTtl(text: string): number {
  const m = /^(\d{1,6})([dhm]?)$/.exec(text.trim());
  if (!m) throw new RangeError(`expiry "${text}" must look like 90d, 12h or 30m`);
  const unit = m[2] === 'h' ? 3_600_000 : m[2] === 'm' ? 60_000 : 86_400_000;
  const ms = Number(m[1]) * unit;
  if (ms <= 0) throw new RangeError(`expiry "${text}" must be positive`);
  if (ms > MAX_TOKEN_TTL_DAYS * 86_400_000) throw new RangeError(`expiry "${text}" is above the maximum of ${MAX_TOKEN_TTL_DAYS}d`);
  return ms;
}
