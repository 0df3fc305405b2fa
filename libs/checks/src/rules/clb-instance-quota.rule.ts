import { SLB_QUOTA_INSTANCES } from '@app/domain';
import { scopedCheck } from '../check-scope';
import { DOC_URL, FORECAST_HINT, SEED } from '../doc-links.constants';
import { count, pct, pushQuotaUse, QUOTA_RATIO_SETTINGS, regionRef, type PassText, type QuotaFigures } from '../result.util';

/** The message of a region's CLB instance use (`ref` is the region's: account and region id). */
const instanceQuotaText: PassText<QuotaFigures> = ({ accountId, regionId }, { used, limit, ratio, limitSource }) =>
  `Account ${accountId} has ${count(used, 'CLB instance')} in ${regionId}: ${pct(ratio)} of ` +
  `the instance quota ${limit} (${limitSource === 'quota-center' ? 'Quota Center' : 'documented default, 30 of the conflicting 30/60'})`;

/**
 * CLB instances of one account in one region vs the instance quota (`slb_quota_instances_num`). The documented
 * defaults conflict (30 vs 60): the Quota Center value wins when read, else 30 (`SLB_QUOTA_INSTANCES`). Every
 * LoadBalancer Service that does not reuse a CLB makes CCM create one (seed 004 "Load balancing update
 * policies"), so a fleet of small Services runs into this quota. One result per region.
 */
export const clbInstanceQuotaRule = scopedCheck({
  id: 'CLB_INSTANCE_QUOTA',
  title: 'CLB instances per account and region vs the instance quota',
  category: 'quota',
  resourceKind: 'Region',
  defaultSeverity: 'warning',
  description:
    'Counts the CLB instances of each account and region against the CLB instance quota (Quota Center ' +
    'slb_quota_instances_num; documented defaults are 30 or 60, 30 is assumed when Quota Center was not read). ' +
    'When it is reached, CCM cannot create the CLB of a new LoadBalancer Service and the Service stays Pending.',
  remediation:
    'Request a higher slb_quota_instances_num on the SLB Quota Management page (Quota Center), release orphaned ' +
    'CLB instances (see LB_ORPHANED), or expose several Services through one Ingress or a reused CLB. ' +
    `${FORECAST_HINT} ${DOC_URL.lbConsiderations}`,
  source:
    `${SEED.lbConsiderations} "Quota limits" and "Load balancing update policies" (CCM creates a CLB per Service); ` +
    'Quota Center quota slb_quota_instances_num (30 intl vs 60 newer docs, CCM notes 7 (docs/sources.md#ccm-7))',
  settings: QUOTA_RATIO_SETTINGS,
  quotaUsage: true,
  quota: SLB_QUOTA_INSTANCES,
  scope: 'region',
  needs: ['slb'],
  check(re, out, r, ctx) {
    const used = re.region.loadBalancers?.length ?? 0;
    const reported = re.region.quotas?.find((q) => q.quotaActionCode === SLB_QUOTA_INSTANCES.quotaActionCode);
    pushQuotaUse(
      out,
      r,
      ctx,
      { region: re.region, definition: SLB_QUOTA_INSTANCES, ref: regionRef(re), used },
      instanceQuotaText,
      reported?.totalUsage !== undefined ? { quotaCenterUsage: reported.totalUsage } : {},
    );
  },
});
