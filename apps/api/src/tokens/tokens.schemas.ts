import { TEAM_NAME, controlCharacterProblem } from '@app/domain';
import { MAX_TOKEN_TTL_DAYS, parseTokenTtl, ROLES, type Role } from '@app/store';
import { z } from 'zod';
import { listPageQueryFields } from '../common/request.schemas';

const role = z.enum(ROLES as [Role, ...Role[]], `must be one of ${ROLES.join(', ')}`).describe('viewer (read), operator (+ start scans, what-ifs), admin (+ manage tokens)');
const accounts = z
  .array(z.string().regex(/^[0-9A-Za-z_.-]{1,64}$/, 'must be an account id (UID)'))
  .min(1, 'must list at least one account id; omit for every account')
  .max(1000)
  .optional()
  .describe('Alibaba Cloud account ids (UIDs) the token may read; omitted: every account');
const teams = z
  .array(z.string().regex(TEAM_NAME, 'must be a team name (a letter or digit, then up to 62 letters, digits, ".", "_" or "-")'))
  .min(1, 'must list at least one team; omit for every team')
  .max(1000)
  .optional()
  .describe("Teams (owners: the clusters' team tag or the audit settings' owners) the token may read within its accounts; omitted: every team. Needs accounts");
const name = z
  .string()
  .max(200, 'must be at most 200 characters')
  // Printed by `fleet-audit token list` and in audit views: terminal control sequences are refused, not stored.
  .superRefine((v, ctx) => {
    const problem = controlCharacterProblem(v);
    if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
  })
  .optional()
  .describe('What the token is for (no control characters)');

/** Body of `POST /v1/tokens`. */
export const createTokenBodySchema = z.strictObject({
  role: role,
  accounts: accounts,
  teams: teams,
  expiresInDays: z
    .number()
    .int('must be a whole number of days')
    .min(1, 'must be at least 1')
    .max(MAX_TOKEN_TTL_DAYS, `must be at most ${MAX_TOKEN_TTL_DAYS}`)
    .optional()
    .default(90)
    .describe(`Lifetime in days (1 to ${MAX_TOKEN_TTL_DAYS}, default 90)`),
  name: name,
});

/**
 * Input of the GraphQL `createToken` mutation: the REST body's role, accounts and name (the same rules), and the
 * lifetime as the CLI's `--expires-in` text (`90d`, `12h`, `30m`; default 90d, at most 365d), parsed to `ttlMs`.
 */
export const createTokenInputSchema = z.strictObject({
  role: role,
  accounts: accounts,
  teams: teams,
  expiresIn: z
    .string()
    .optional()
    .default('90d')
    .transform((text, ctx) => {
      try {
        return parseTokenTtl(text);
      } catch (e) {
        ctx.addIssue({ code: 'custom', message: (e as Error).message });
        return z.NEVER;
      }
    })
    .describe(`Lifetime: 90d, 12h or 30m (default 90d, at most ${MAX_TOKEN_TTL_DAYS}d)`),
  name: name,
});

/** Parsed input of GraphQL `createToken` (`expiresIn` in milliseconds). */
export type CreateTokenInput = z.output<typeof createTokenInputSchema>;

/** Parsed body of `POST /v1/tokens`. */
export type CreateTokenBody = z.output<typeof createTokenBodySchema>;

/** A token id (12 lowercase base36 characters). */
export const tokenIdSchema = z.string().regex(/^[0-9a-z]{12}$/, 'must be a token id (12 lowercase letters and digits)');

/** Query of `GET /v1/tokens`: `limit` + `after` (keyset on creation time and id, newest first). */
export const listTokensQuerySchema = z.strictObject({ ...listPageQueryFields });

/** Parsed query of `GET /v1/tokens`. */
export type ListTokensQuery = z.output<typeof listTokensQuerySchema>;
