import { SLB_QUOTA_LISTENERS } from '@app/domain';
import { scopedCheck } from '../check-scope';
import { DOC_URL, FORECAST_HINT, SEED } from '../doc-links.constants';
import { count, limitSourceText, pct, pushQuotaUse, QUOTA_RATIO_SETTINGS, type PassText, type QuotaFigures } from '../result.util';
import { clbRef } from '../lb-refs';

/** The message of one CLB's listener use (`ref` is the CLB's: its id is the CLB id). */
const listenerQuotaText: PassText<QuotaFigures> = (ref, { used, limit, ratio, limitSource }) =>
  `CLB ${ref.id} has ${count(used, 'listener')}: ${pct(ratio)} of its listener quota ${limit} (${limitSourceText(limitSource)})`;

/**
 * Listeners on one CLB instance vs the per-instance listener quota (`slb_quota_listeners_num`, Quota Center
 * value of the region, else the documented default 50; seed 004 "Quota limits"). CCM creates one listener per
 * Service port, and Services sharing a reused CLB add up. Warning / critical at the configured ratios.
 */
export const clbListenerQuotaRule = scopedCheck({
  id: 'CLB_LISTENER_QUOTA',
  title: 'CLB listeners vs the per-instance listener quota',
  category: 'quota',
  resourceKind: 'LoadBalancer',
  defaultSeverity: 'warning',
  description:
    'Counts the listeners of each CLB instance (CCM creates one per Service port; Services reusing one CLB add ' +
    'up) against the listener quota of the instance. When it is reached, CCM cannot create the listener of a new ' +
    'Service port and the sync fails.',
  remediation:
    'Check your CLB quotas on the SLB Quota Management page (Quota Center, slb_quota_listeners_num) and request ' +
    'an increase, or spread the Services over more CLB instances instead of reusing one for many Services. ' +
    `${FORECAST_HINT} ${DOC_URL.lbConsiderations}`,
  source:
    `${SEED.lbConsiderations} "Quota limits"; ${SEED.troubleshooting} Throttling row ("Check your CLB quota on the ` +
    'SLB Quota Management page"); Quota Center quota slb_quota_listeners_num (default 50, CCM notes 7 (docs/sources.md#ccm-7))',
  settings: QUOTA_RATIO_SETTINGS,
  quotaUsage: true,
  quota: SLB_QUOTA_LISTENERS,
  scope: 'region',
  needs: ['slb'],
  check(re, out, r, ctx) {
    for (const clb of re.region.loadBalancers ?? []) {
      const used = clb.listeners.length;
      pushQuotaUse(
        out,
        r,
        ctx,
        { region: re.region, definition: SLB_QUOTA_LISTENERS, ref: clbRef(ctx.index, clb), used },
        listenerQuotaText,
      );
    }
  },
});
