/** Quota forecasts as the pages read them: the trends of a scan's quotas, keyed by quota sample (check + resource). */
import { api, query } from './api';
import type { Quota, Trend } from './types';

/** The key of a quota sample: check, account, resource kind and id (a trend and a quota of one sample share it). */
export function quotaKey(q: {
  checkId: string;
  resource: { kind: string; id: string; accountId: string };
}): string {
  return `${q.checkId}|${q.resource.accountId}|${q.resource.kind}|${q.resource.id}`;
}

/**
 * The trends heading to their limit (status ok: a positive slope with enough samples, or exhausted already), every
 * page of GET /v1/forecasts/trends for both statuses, soonest exhaustion first.
 */
export async function exhaustingTrends(
  extra: Record<string, string | undefined> = {},
  signal?: AbortSignal,
): Promise<Trend[]> {
  const pages = async (status: string) => {
    const out: Trend[] = [];
    let after: string | undefined;
    for (let i = 0; i < 20; i++) {
      const page = await api<{ trends: Trend[]; nextCursor: string | null }>(
        `/v1/forecasts/trends${query({ ...extra, status, limit: 500, after })}`,
        { signal },
      );
      out.push(...page.trends);
      if (!page.nextCursor) break;
      after = page.nextCursor;
    }
    return out;
  };
  // Both statuses at once.
  const out = (await Promise.all([pages('exhausted'), pages('ok')])).flat();
  const at = (t: Trend) =>
    t.status === 'exhausted' ? 0 : (t.secondsToExhaustion.p50 ?? Number.POSITIVE_INFINITY);
  return out.sort((a, b) => at(a) - at(b));
}

/** Every quota sample of the latest scan (all pages of GET /v1/quotas), fullest first. */
export async function allQuotas(signal?: AbortSignal): Promise<Quota[]> {
  const out: Quota[] = [];
  let after: string | undefined;
  for (let i = 0; i < 50; i++) {
    const page = await api<{ items: Quota[]; nextCursor: string | null }>(
      `/v1/quotas${query({ limit: 1000, after })}`,
      { signal },
    );
    out.push(...page.items);
    if (!page.nextCursor) break;
    after = page.nextCursor;
  }
  return out.sort((a, b) => b.ratio - a.ratio);
}
