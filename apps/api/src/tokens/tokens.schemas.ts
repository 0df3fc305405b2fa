import { MAX_TOKEN_TTL_DAYS, ROLES, type Role } from '@app/store';
import { z } from 'zod';

/** Body of `POST /v1/tokens`. */
export const createTokenBodySchema = z.strictObject({
  role: z.enum(ROLES as [Role, ...Role[]], `must be one of ${ROLES.join(', ')}`).describe('viewer (read), operator (+ start scans, what-ifs), admin (+ manage tokens)'),
  accounts: z
    .array(z.string().regex(/^[0-9A-Za-z_.-]{1,64}$/, 'must be an account id (UID)'))
    .min(1, 'must list at least one account id; omit for every account')
    .max(1000)
    .optional()
    .describe('Alibaba Cloud account ids (UIDs) the token may read; omitted: every account'),
  expiresInDays: z
    .number()
    .int('must be a whole number of days')
    .min(1, 'must be at least 1')
    .max(MAX_TOKEN_TTL_DAYS, `must be at most ${MAX_TOKEN_TTL_DAYS}`)
    .optional()
    .default(90)
    .describe(`Lifetime in days (1 to ${MAX_TOKEN_TTL_DAYS}, default 90)`),
  name: z.string().max(200, 'must be at most 200 characters').optional().describe('What the token is for'),
});

/** Parsed body of `POST /v1/tokens`. */
export type CreateTokenBody = z.output<typeof createTokenBodySchema>;

/** A token id (12 lowercase base36 characters). */
export const tokenIdSchema = z.string().regex(/^[0-9a-z]{12}$/, 'must be a token id (12 lowercase letters and digits)');
