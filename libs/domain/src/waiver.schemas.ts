/**
 * Validation of waiver input, shared by `POST /v1/waivers`, `fleet-audit waiver add` and the waivers file
 * (`--waivers FILE`): the rules of research §3 V1 in one place.
 */
import { z } from 'zod';
import { fleetAuditErrorKind } from '@app/errors';
import {
  DAY_MS,
  DEFAULT_WAIVER_DAYS,
  MAX_WAIVER_DAYS,
  MIN_WAIVER_REASON_LENGTH,
  WAIVER_CATEGORIES,
  waiverFields,
  type WaiverCategory,
  type WaiverScope,
} from './waiver.model';
import { controlCharacterProblem } from './control-characters.util';
import { globWildcardCount, MAX_GLOB_WILDCARDS } from './glob.util';

/**
 * A zod check refusing control characters (control-characters.util.ts: C0, DEL, C1) other than `allowed`; the
 * issue names the character and its position, and zod's path names the field.
 */
function refuseControlCharacters(allowed = ''): (value: string, ctx: z.RefinementCtx) => void {
  return (value, ctx) => {
    const problem = controlCharacterProblem(value, allowed);
    if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
  };
}

const text = (what: string, max = 256) =>
  z.string(`must be a string (${what})`).trim().min(1, `must not be empty (${what})`).max(max, `must be at most ${max} characters`).superRefine(refuseControlCharacters());
const CATEGORY_VALUES = WAIVER_CATEGORIES as unknown as readonly [WaiverCategory, ...WaiverCategory[]];

/** Fields of a new waiver (API body, CLI flags, file entry). `expiresAt`: ISO 8601 date or date-time. */
export const waiverInputSchema = z.strictObject({
  checkId: text('check id, e.g. CLB_BACKEND_QUOTA').describe('Check id the waiver is for'),
  accountId: text('Alibaba Cloud account UID').describe('Account the waiver is for'),
  regionId: text('region id').optional().describe('Only this region'),
  clusterId: text('ACK cluster id').optional().describe('Only this cluster'),
  resource: text('resource id or glob')
    .superRefine((r, ctx) => {
      const n = globWildcardCount(r);
      if (n > MAX_GLOB_WILDCARDS) ctx.addIssue({ code: 'custom', message: `must hold at most ${MAX_GLOB_WILDCARDS} wildcards (* and ?), has ${n}` });
    })
    .describe(`Resource id, or a glob over it (\`*\`, \`?\`; at most ${MAX_GLOB_WILDCARDS} wildcards); \`*\` = every resource`),
  owner: text('person or team').describe('Person or team answerable for the accepted risk'),
  reason: z
    .string('must be a string')
    .trim()
    .min(MIN_WAIVER_REASON_LENGTH, `must be at least ${MIN_WAIVER_REASON_LENGTH} characters`)
    .max(2000, 'must be at most 2000 characters')
    // Free text over several lines: tab and line feed are kept; every other control character is refused.
    .superRefine(refuseControlCharacters('\t\n'))
    .describe(`Why the finding is accepted (at least ${MIN_WAIVER_REASON_LENGTH} characters)`),
  category: z.enum(CATEGORY_VALUES, `must be one of ${WAIVER_CATEGORIES.join(', ')}`).describe('accepted-risk, mitigated or false-positive'),
  ticket: text('ticket reference').optional().describe('Ticket or change reference'),
  expiresAt: z
    .union([z.iso.datetime({ offset: true }), z.iso.date()], 'must be an ISO 8601 date or date-time')
    .optional()
    .describe(`Expiry (default: ${DEFAULT_WAIVER_DAYS} days from now; at most ${MAX_WAIVER_DAYS} days from now)`),
});

/** Raw waiver input (before defaults). */
export type WaiverInput = z.input<typeof waiverInputSchema>;

/** Fields that may be changed on an existing waiver (`PATCH /v1/waivers/{id}`); the scope never changes. */
export const waiverUpdateSchema = waiverInputSchema
  .pick({ owner: true, reason: true, category: true, ticket: true, expiresAt: true })
  .partial();

/** Raw waiver update input. */
export type WaiverUpdateInput = z.input<typeof waiverUpdateSchema>;

/** A validated new waiver: scope, facts and an absolute expiry. */
export interface ResolvedWaiverInput extends WaiverScope {
  owner: string;
  reason: string;
  category: WaiverCategory;
  ticket?: string;
  /** ISO 8601 UTC. */
  expiresAt: string;
}

/** A waiver input that breaks a rule; `path` names the field (`expiresAt`, `reason`). */
export class WaiverValidationError extends fleetAuditErrorKind('WaiverValidationError', 'WAIVER_INVALID', true) {
  // The API maps WAIVER_INVALID to 400 VALIDATION_FAILED, the CLI to a usage error (exit 2).
  constructor(
    readonly path: string,
    message: string,
  ) {
    super(`${path} ${message}`);
  }
}

/**
 * An expiry as an absolute time: the given date / date-time (a bare date means 00:00 UTC that day), or
 * DEFAULT_WAIVER_DAYS from `now`; must lie after `now` and at most MAX_WAIVER_DAYS after it.
 * @throws WaiverValidationError (path `expiresAt`)
 */
export function resolveWaiverExpiry(expiresAt: string | undefined, now: Date): string {
  const at = expiresAt === undefined ? new Date(now.getTime() + DEFAULT_WAIVER_DAYS * DAY_MS) : new Date(expiresAt.length === 10 ? `${expiresAt}T00:00:00Z` : expiresAt);
  if (Number.isNaN(at.getTime())) throw new WaiverValidationError('expiresAt', `is not a valid time: ${expiresAt}`);
  if (at.getTime() <= now.getTime()) throw new WaiverValidationError('expiresAt', `must be in the future (now ${now.toISOString()})`);
  if (at.getTime() > now.getTime() + MAX_WAIVER_DAYS * DAY_MS)
    throw new WaiverValidationError('expiresAt', `must be at most ${MAX_WAIVER_DAYS} days from now (latest ${new Date(now.getTime() + MAX_WAIVER_DAYS * DAY_MS).toISOString()})`);
  return at.toISOString();
}

/** The first zod issue as a WaiverValidationError. */
function firstIssue(error: z.ZodError, prefix = ''): WaiverValidationError {
  const issue = error.issues[0];
  const path = [prefix, ...issue.path.map(String)].filter((p) => p !== '').join('.');
  return new WaiverValidationError(path || '(waiver)', issue.message);
}

/**
 * Validate a new waiver and apply the expiry default.
 * @param now the clock (expiry default and bounds)
 * @throws WaiverValidationError naming the first bad field
 */
export function resolveWaiverInput(input: unknown, now: Date): ResolvedWaiverInput {
  const parsed = waiverInputSchema.safeParse(input);
  if (!parsed.success) throw firstIssue(parsed.error);
  const v = parsed.data;
  return { ...waiverFields(v), expiresAt: resolveWaiverExpiry(v.expiresAt, now) };
}

/**
 * Validate a waiver update; a new `expiresAt` is bounded from `now` (a renewal: at most MAX_WAIVER_DAYS).
 * @throws WaiverValidationError naming the first bad field, or when nothing would change
 */
export function resolveWaiverUpdate(input: unknown, now: Date): Partial<Pick<ResolvedWaiverInput, 'owner' | 'reason' | 'category' | 'ticket' | 'expiresAt'>> {
  const parsed = waiverUpdateSchema.safeParse(input);
  if (!parsed.success) throw firstIssue(parsed.error);
  const v = parsed.data;
  const out = {
    ...(v.owner !== undefined ? { owner: v.owner } : {}),
    ...(v.reason !== undefined ? { reason: v.reason } : {}),
    ...(v.category !== undefined ? { category: v.category } : {}),
    ...(v.ticket !== undefined ? { ticket: v.ticket } : {}),
    ...(v.expiresAt !== undefined ? { expiresAt: resolveWaiverExpiry(v.expiresAt, now) } : {}),
  };
  if (Object.keys(out).length === 0) throw new WaiverValidationError('(waiver)', 'update names no field (owner, reason, category, ticket, expiresAt)');
  return out;
}
