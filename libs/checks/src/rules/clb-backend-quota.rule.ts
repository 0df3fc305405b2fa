import { SLB_QUOTA_BACKEND_SERVERS } from '@app/domain';
import { scopedCheck } from '../check-scope';
import { DOC_URL, FORECAST_HINT, SEED } from '../doc-links.constants';
import { count, limitSourceText, pct, QUOTA_RATIO_SETTINGS, quotaSeverity, type PassText, type QuotaFigures } from '../result.util';
import { clbRef } from '../lb-refs';

/** The message of one CLB's backend use (`ref` is the CLB's: its id). */
const backendQuotaText: PassText<QuotaFigures & { distinctServers: number; vServerGroups: number }> = (
  ref,
  { used, distinctServers, vServerGroups, ratio, limit, limitSource },
) =>
  `CLB ${ref.id} has ${count(used, 'backend server entry', 'backend server entries')} (${count(distinctServers, 'distinct server')}) in ` +
  `${count(vServerGroups, 'vServer group')} and the default group: ${pct(ratio)} of its backend quota ${limit} ` +
  `(${limitSourceText(limitSource)})`;

/**
 * Backend servers on one CLB instance vs the per-instance quota. Entries are summed over the default
 * server group and every vServer group, across all Services sharing the CLB (seed 003: "When multiple
 * Services share one CLB instance, the number of backend servers is cumulative"); distinct servers are
 * reported beside. Quota: Quota Center `slb_quota_backendservers_num` of the region, else 200 (seeds
 * 002/003). Warning / critical at the configured ratios.
 */
export const clbBackendQuotaRule = scopedCheck({
  id: 'CLB_BACKEND_QUOTA',
  title: 'CLB backend servers vs the per-instance backend quota',
  category: 'quota',
  resourceKind: 'LoadBalancer',
  defaultSeverity: 'warning',
  description:
    'Counts the backend server entries of each CLB instance (default server group plus every vServer group; ' +
    'Services sharing a CLB add up) against the backend-server quota of the instance. When the quota is reached, ' +
    'CCM fails to sync with "The backend server number has reached to the quota limit of this load balancer".',
  remediation:
    'Request a quota increase on the SLB Quota Management page; set externalTrafficPolicy: Local to reduce backend ' +
    'server consumption, or in Cluster mode limit the nodes with the ' +
    'service.beta.kubernetes.io/alibaba-cloud-loadbalancer-backend-label annotation; create a new CLB instance ' +
    `instead of sharing one across multiple Services (the number of backend servers is cumulative). ${FORECAST_HINT} ${DOC_URL.troubleshooting}`,
  source:
    `${SEED.troubleshooting} "Service error events and solutions" (200-backend-server quota); ` +
    `${SEED.serviceFaqClb} "Service error messages and solutions" (cumulative when Services share a CLB); ` +
    `${SEED.lbConsiderations} "Quota limits"; Quota Center quota slb_quota_backendservers_num; ` +
    'CCM pkg/provider/vmock/slb.go (InstanceBackendServerNumberOverLimit above 200)',
  settings: QUOTA_RATIO_SETTINGS,
  quotaUsage: true,
  quota: SLB_QUOTA_BACKEND_SERVERS,
  scope: 'clb',
  needs: ['slb'],
  check({ clb, region }, out, r, ctx) {
    const { limit, limitSource } = ctx.index.quota(region, SLB_QUOTA_BACKEND_SERVERS);
    const stats = ctx.index.clbBackendStats(region).get(clb.loadBalancerId);
    const used = stats?.entries ?? 0;
    const distinct = stats?.distinctServers ?? 0;
    const ratio = used / limit;
    const figures = {
      used,
      limit,
      ratio,
      distinctServers: distinct,
      vServerGroups: clb.vServerGroups.length,
      limitSource,
    };
    const severity = quotaSeverity(ratio, ctx.settings.quota);
    const ref = clbRef(ctx.index, clb);
    out.push(severity ? r.fail(ref, backendQuotaText(ref, figures, undefined), { severity, figures }) : r.pass(ref, backendQuotaText, figures));
  },
});
