import { standingRefusals, type StandingRefusal } from '@app/domain';
import { scopedCheck } from '../check-scope';
import { DOC_URL, SEED } from '../doc-links.constants';
import { count, listSome, notReadReason, regionRef } from '../result.util';

/** `slb_quota_instances_num: asked 60, limit 30 (application app-1: "not enough justification")`. */
function refusalText(r: StandingRefusal): string {
  const a = r.application;
  const limit = r.currentLimit !== undefined ? `, limit ${r.currentLimit}` : '';
  const why = a.auditReason ? `: "${a.auditReason}"` : ', no reason given';
  return `${a.quotaActionCode}: asked ${a.desireValue}${limit} (application ${a.applicationId}${why})`;
}

/**
 * Quota Center applications for a region's CLB (`slb`) or NLB (`nlb`) quotas that the reviewer refused, and that still
 * stand (`standingRefusals`): whoever planned on the higher value (`fleet-audit quota plan` and `quota request`, or an
 * application filed by hand) does not get it, so the forecast's exhaustion date holds. One result per account and
 * region whose applications were read: `fail` naming each refused quota with the reviewer's reason, else `pass`. A
 * region whose `quota-applications` dataset failed (e.g. no `quotas:ListQuotaApplications` permission) is `skipped`;
 * one with no application (Quota Center lists none, or an offline fleet has no `quota-applications.json`) gets no result.
 * Source: seed 002 "Troubleshoot LoadBalancer services" (a quota limit is met by a quota increase request or by Local
 * mode), seed 004 "Quota limits"; Quota Center 2020-05-10 ListQuotaApplications (`Status` Process / Agree / Disagree,
 * `AuditReason`, `DesireValue`; research/quota-center.md 4) and ListProductQuotas `TotalQuota` (research 6).
 */
export const quotaApplicationRefusedRule = scopedCheck({
  id: 'QUOTA_APPLICATION_REFUSED',
  title: 'Quota Center refused a CLB or NLB quota application',
  category: 'quota',
  resourceKind: 'Region',
  defaultSeverity: 'warning',
  description:
    'Reads the Quota Center applications for the CLB and NLB quotas of each account and region and reports those ' +
    'the reviewer refused (status Disagree) when no later application of the same quota was filed and the quota ' +
    'has not reached the asked value since: the capacity the application was meant to add will not come.',
  remediation:
    'Read the reviewer\'s reason, then either file a new application with the justification it asks for ' +
    '(`fleet-audit quota plan` gives the value and the numbers behind it; `fleet-audit quota request --apply` files ' +
    'it), or buy the same room without a higher quota: the remediations `fleet-audit quota plan` lists (Local mode ' +
    'for Cluster-mode Services, deleting orphaned load balancers and server groups) or another region or account. ' +
    DOC_URL.troubleshooting,
  source:
    `${SEED.troubleshooting} (a quota limit is met by "Request a quota increase on the SLB Quota Management page" or ` +
    `by Local mode); ${SEED.lbConsiderations} "Quota limits"; Quota Center 2020-05-10 ListQuotaApplications (Status ` +
    'Disagree, AuditReason, DesireValue) and ListProductQuotas TotalQuota (docs/sources.md "Alibaba Cloud API references")',
  scope: 'region',
  needs: [],
  check(re, out, r, ctx) {
    const { account, region } = re;
    if (region.quotaApplications === undefined) {
      if (ctx.index.failedCoverage(account.accountId, region.regionId, undefined, 'quota-applications'))
        out.push(r.skipped(regionRef(re), notReadReason(ctx.index, 'Quota Center applications', 'quota-applications', account.accountId, region.regionId)));
      return;
    }
    const refusals = standingRefusals(region);
    const where = `${region.regionId} of account ${account.accountId}`;
    const figures = { applications: region.quotaApplications.length, refused: refusals.length };
    if (refusals.length === 0) {
      out.push(r.pass(regionRef(re), `${where}: no standing refusal among ${count(region.quotaApplications.length, 'quota application')}`, figures));
      return;
    }
    out.push(
      r.fail(
        regionRef(re),
        `Quota Center refused ${count(refusals.length, 'quota application')} in ${where}: ${listSome(refusals.map(refusalText), 3)}`,
        { figures: { ...figures, quotas: refusals.map((x) => x.application.quotaActionCode) } },
      ),
    );
  },
});
