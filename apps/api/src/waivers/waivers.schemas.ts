import { controlCharacterProblem, waiverInputSchema, waiverUpdateSchema } from '@app/domain';
import { z } from 'zod';
import { unknownCheckIdReason } from '@app/checks';
import { listPageQueryFields } from '../common/request.schemas';

/** Who made a change, recorded in the history (the shared bearer token names nobody). */
const actor = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(128, 'must be at most 128 characters')
  // Shown in the waiver's history, which the CLI prints: terminal controls are refused as in the waiver's own fields.
  .superRefine((v, ctx) => {
    const problem = controlCharacterProblem(v);
    if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
  });

/** Body of `POST /v1/waivers`: the waiver fields plus who asks. */
export const createWaiverBodySchema = waiverInputSchema
  .extend({
    createdBy: actor.optional().describe('A name for who creates the waiver, kept in its history as statedBy (a claim); the actor recorded is always the authenticated token'),
  })
  // A waiver of a check that does not exist would match nothing and only surface later as stale:
  // refused as `waiver add` and waivers files refuse it, naming the nearest id (libs/checks unknownCheckIdReason).
  .superRefine((body, ctx) => {
    const unknown = unknownCheckIdReason(body.checkId);
    if (unknown) ctx.addIssue({ code: 'custom', path: ['checkId'], message: unknown });
  });

/** Body of `PATCH /v1/waivers/{id}`. */
export const updateWaiverBodySchema = waiverUpdateSchema.extend({
  updatedBy: actor.optional().describe('A name for who changes the waiver, kept in its history as statedBy (a claim); the actor recorded is always the authenticated token'),
});

/** Query of `DELETE /v1/waivers/{id}` (revoke). */
export const revokeWaiverQuerySchema = z.strictObject({
  by: actor.optional().describe('A name for who revokes, kept in the history as statedBy (a claim); the actor recorded is always the authenticated token'),
});

/** Query of `GET /v1/waivers`. */
export const listWaiversQuerySchema = z.strictObject({
  state: z.enum(['active', 'expiring', 'expired', 'stale', 'revoked'], 'must be one of active, expiring, expired, stale, revoked').optional().describe('Only waivers in this state'),
  includeRevoked: z.enum(['true', 'false'], 'must be true or false').optional().describe('Also list revoked waivers (default false)'),
  ...listPageQueryFields,
});

/** A waiver id in the path. */
export const waiverIdSchema = z.guid('must be a uuid');

export type CreateWaiverBody = z.output<typeof createWaiverBodySchema>;
export type UpdateWaiverBody = z.output<typeof updateWaiverBodySchema>;
export type RevokeWaiverQuery = z.output<typeof revokeWaiverQuerySchema>;
export type ListWaiversQuery = z.output<typeof listWaiversQuerySchema>;
