import { Injectable } from '@nestjs/common';
import { z } from 'zod';
import { ForecastUnavailableError, quotaPlanFromStore, openApplicationRefs } from '@app/audit';
import { teamOf, type FleetSnapshot } from '@app/domain';
import type { QuotaPlan } from '@app/forecast';
import { Store, scopeIncludes, teamScopeIncludes, type Principal } from '@app/store';
import { ApiError } from '../common/api.exception';

/** A whole number of days or a percentage given in the query, within `[min, max]`. */
function queryInt(description: string, min: number, max: number) {
  return z
    .string()
    .regex(/^\d{1,4}$/, `must be a whole number from ${min} to ${max}`)
    .transform(Number)
    .pipe(z.number().int().min(min, `must be a whole number from ${min} to ${max}`).max(max, `must be a whole number from ${min} to ${max}`))
    .optional()
    .describe(description);
}

/** Query of `GET /v1/quota-plan`. */
export const quotaPlanQuerySchema = z.strictObject({
  horizonDays: queryInt('Days the value must cover (default 30)', 1, 3650),
  marginPercent: queryInt('Head room above the need, percent (default 10)', 0, 1000),
  now: z
    .string()
    .refine((s) => !Number.isNaN(Date.parse(s)), 'must be an ISO 8601 time')
    .transform((s) => new Date(s))
    .optional()
    .describe('Plan clock (default: now)'),
});
/** The parsed query. */
export type QuotaPlanQuery = z.output<typeof quotaPlanQuerySchema>;

/**
 * The quota plan within a principal's scope: rows of its accounts; for a team-scoped principal, rows of the accounts
 * and regions where one of its teams owns a cluster (an account's region quota is shared by every cluster drawing on
 * it, so a team sees the quota its clusters use, as the quota pages do).
 */
@Injectable()
export class QuotaPlanService {
  constructor(private readonly store: Store) {}

  /**
   * `quotaPlanFromStore` with the stored applications in review, narrowed to the scope.
   * @throws ApiError NOT_FOUND when no scan stored a snapshot
   */
  async plan(q: QuotaPlanQuery, principal: Principal): Promise<{ scanId: string } & QuotaPlan> {
    try {
      const open = await this.store.quotaApplications.list({ statuses: ['submitting', 'Process'] });
      const { scanId, plan, snapshot } = await quotaPlanFromStore(this.store, {
        ...(q.now ? { now: q.now } : {}),
        settings: { ...(q.horizonDays !== undefined ? { horizonDays: q.horizonDays } : {}), ...(q.marginPercent !== undefined ? { marginPercent: q.marginPercent } : {}) },
        applications: openApplicationRefs(open).map((a) => ({ ...a, status: 'Process' })),
      });
      const rows = principal.accountScope.all && principal.teamScope === undefined ? plan.rows : this.inScope(plan.rows, principal, snapshot);
      return { scanId, ...plan, rows };
    } catch (e) {
      if (e instanceof ForecastUnavailableError) throw new ApiError('NOT_FOUND', e.message);
      throw e;
    }
  }

  private inScope(rows: QuotaPlan['rows'], principal: Principal, snapshot: FleetSnapshot): QuotaPlan['rows'] {
    const accounts = rows.filter((r) => scopeIncludes(principal.accountScope, r.accountId));
    if (principal.teamScope === undefined) return accounts;
    const owned = new Set<string>();
    for (const a of snapshot.accounts)
      for (const r of a.regions) if (r.clusters.some((c) => teamScopeIncludes(principal, teamOf(c, undefined)))) owned.add(`${a.accountId}/${r.regionId}`);
    return accounts.filter((r) => owned.has(`${r.accountId}/${r.regionId}`));
  }
}
