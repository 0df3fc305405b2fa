import { Injectable } from '@nestjs/common';
import { ForecastUnavailableError, headroomFromStore, trendsFromStore, whatIfFromStore } from '@app/audit';
import { HeadroomOptionError, ScenarioError, parseScenario, type HeadroomEntry, type TrendEntry, type WhatIfResult } from '@app/forecast';
import { Store, scopeIncludes, type Principal } from '@app/store';
import { ApiError } from '../common/api.exception';
import type { HeadroomQuery, TrendsQuery } from './forecasts.schemas';

/** Forecast use cases for the REST API (libs/audit forecast-runner over the store). */
@Injectable()
export class ForecastsService {
  constructor(private readonly store: Store) {}

  /** Trends of the stored quota series (JSON contract: libs/forecast README). */
  async trends(q: TrendsQuery, principal: Principal): Promise<{ trends: TrendEntry[] }> {
    const trends = await trendsFromStore(this.store, {
      now: q.now ?? new Date(),
      settings: {
        ...(q.windowDays ? { windowDays: q.windowDays } : {}),
        ...(q.minSamples ? { minSamples: Math.ceil(q.minSamples) } : {}),
        ...(q.minSpanHours ? { minSpanHours: q.minSpanHours } : {}),
      },
      ...(q.checkId ? { checkId: q.checkId } : {}),
      ...(q.accountId ? { accountId: q.accountId } : {}),
      ...(q.clusterId ? { clusterId: q.clusterId } : {}),
      ...(q.status ? { status: q.status } : {}),
    });
    return { trends: trends.filter((t) => scopeIncludes(principal.accountScope, t.resource.accountId)) };
  }

  /**
   * Headroom and what-ifs read the whole stored snapshot (every account of the fleet): only principals over
   * every account may run them.
   * @throws ApiError FORBIDDEN for an account-scoped principal
   */
  private requireAllAccounts(principal: Principal): void {
    if (!principal.accountScope.all) throw new ApiError('FORBIDDEN', 'headroom and what-if read the whole fleet snapshot: they need a token scoped to all accounts');
  }

  /**
   * Headroom on the latest stored snapshot.
   * @throws ApiError NOT_FOUND when no scan stored a snapshot; VALIDATION_FAILED for an unknown `like` node
   */
  async headroom(q: HeadroomQuery, principal: Principal): Promise<{ scanId: string; headroom: HeadroomEntry[] }> {
    this.requireAllAccounts(principal);
    try {
      return await headroomFromStore(this.store, {
        ...(q.clusterId ? { clusterIds: [q.clusterId] } : {}),
        ...(q.like ? { like: q.like } : {}),
        ...(q.ports ? { ports: Math.ceil(q.ports) } : {}),
        ...(q.podsPerService ? { podsPerService: Math.ceil(q.podsPerService) } : {}),
      });
    } catch (e) {
      if (e instanceof ForecastUnavailableError) throw new ApiError('NOT_FOUND', e.message);
      if (e instanceof HeadroomOptionError)
        throw new ApiError('VALIDATION_FAILED', e.message.replace('--like', 'query.like'), [{ path: 'query.like', message: e.message }]);
      throw e;
    }
  }

  /**
   * A what-if scenario on the latest stored snapshot.
   * @throws ApiError VALIDATION_FAILED naming the step and field; NOT_FOUND when no scan stored a snapshot
   */
  async whatIf(body: unknown, principal: Principal): Promise<{ scanId: string } & WhatIfResult> {
    this.requireAllAccounts(principal);
    try {
      const scenario = parseScenario(body);
      const { scanId, result } = await whatIfFromStore(this.store, scenario);
      return { scanId, ...result };
    } catch (e) {
      if (e instanceof ScenarioError)
        throw new ApiError('VALIDATION_FAILED', e.message, [{ path: `body${e.field ? `.${e.step ? `steps.${e.step - 1}.` : ''}${e.field}` : ''}`, message: e.message }]);
      if (e instanceof ForecastUnavailableError) throw new ApiError('NOT_FOUND', e.message);
      throw e;
    }
  }
}
