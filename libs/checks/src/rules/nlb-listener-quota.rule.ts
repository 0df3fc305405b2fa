import { NLB_QUOTA_LISTENERS } from '@app/domain';
import { DOC_URL, FORECAST_HINT, SEED } from '../doc-links.constants';
import { count, QUOTA_RATIO_SETTINGS } from '../result.util';
import { nlbQuotaText, nlbRegionCheck, pushNlbQuota } from './nlb-quota.util';
import { nlbRef } from '../lb-refs';

/** `NLB nlb-x has 1 listener: ...` (`ref` is the NLB's). */
const listenersText = nlbQuotaText((ref, f) => `NLB ${ref.id} has ${count(f.used, 'listener')}`);

/**
 * Listeners on one NLB vs `nlb_quota_loadbalancer_listeners_num` (default 50; NLB "NLB quotas"). CCM creates one
 * listener per Service port and protocol; Services reusing one NLB add up. Region scope; skipped where the NLB
 * data was not read.
 */
export const nlbListenerQuotaRule = nlbRegionCheck({
  id: 'NLB_LISTENER_QUOTA',
  title: 'NLB listeners vs the per-instance listener quota',
  category: 'quota',
  resourceKind: 'NetworkLoadBalancer',
  defaultSeverity: 'warning',
  description:
    'Counts the listeners of each NLB (one per Service port and protocol; Services reusing one NLB add up) against ' +
    'the per-NLB listener quota. When it is reached, CCM cannot create the listener of a new port and the sync fails.',
  remediation:
    'Request a higher nlb_quota_loadbalancer_listeners_num in Quota Center, or spread the Services over more NLBs ' +
    `instead of reusing one for many Services. ${FORECAST_HINT} ${DOC_URL.nlbQuotas}`,
  source: `${SEED.lbConsiderations} "Quota limits"; ${SEED.nlbQuotas} nlb_quota_loadbalancer_listeners_num (default 50); CCM pkg/controller/service/nlbv2/listeners.go`,
  settings: QUOTA_RATIO_SETTINGS,
  quotaUsage: true,
  quota: NLB_QUOTA_LISTENERS,
  check(_view, re, out, r, ctx) {
    for (const nlb of re.region.nlbs ?? [])
      pushNlbQuota(out, r, ctx, re.region, NLB_QUOTA_LISTENERS, nlbRef(ctx.index, nlb), nlb.listeners.length, listenersText);
  },
});
