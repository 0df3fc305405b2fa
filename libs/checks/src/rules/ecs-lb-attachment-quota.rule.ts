import { SLB_QUOTA_BACKEND_ATTACHED, type ResourceRef } from '@app/domain';
import { scopedCheck } from '../check-scope';
import { DOC_URL, FORECAST_HINT, SEED } from '../doc-links.constants';
import { sampleLoadBalancerIdsOf, type EcsAttachment } from '../fleet-index';
import { count, ecsRef, limitSourceText, listSome, pct, QUOTA_RATIO_SETTINGS, quotaSeverity, type QuotaFigures } from '../result.util';

/**
 * The message of one ECS instance's attachment use (`ref` is the instance's: its id). The CLB list only where it helps
 * (failures, given `a`): a fleet has tens of thousands of passing ECS instances, whose message is built when read.
 * @param nodeName the Kubernetes node of the instance, when it is one
 */
function attachmentText(
  ref: ResourceRef,
  { used, ratio, limit, limitSource }: QuotaFigures,
  nodeName: string | undefined,
  a?: EcsAttachment,
): string {
  return (
    `ECS ${ref.id}${nodeName !== undefined ? ` (node ${nodeName})` : ''} is a backend of ${count(used, 'CLB instance')}` +
    `${a ? ` (${count(a.groups, 'server group')}; e.g. ${listSome(sampleLoadBalancerIdsOf(a))})` : ''}: ${pct(ratio)} of the ` +
    `attachment quota ${limit} (${limitSourceText(limitSource)})`
  );
}

/**
 * Number of CLB instances one ECS instance is a backend of vs the per-server attachment quota
 * (`slb_quota_backendserver_attached_num`, default 50). Seed 004: in Cluster mode CCM attaches all nodes,
 * "SLB has a quota limit on how many SLB instances an ECS instance can be attached to. This method quickly
 * consumes the quota. When the quota is exhausted, the service fails to reconcile."
 * Evaluated per ECS instance of the region (listed instances plus any ECS id found among CLB backends).
 */
export const ecsLbAttachmentQuotaRule = scopedCheck({
  id: 'ECS_LB_ATTACHMENT_QUOTA',
  title: 'CLB instances per ECS instance vs the attachment quota',
  category: 'quota',
  resourceKind: 'EcsInstance',
  defaultSeverity: 'warning',
  description:
    'Counts, for each ECS instance, the CLB instances that list it as a backend server (any vServer group or the ' +
    'default group) against the quota of CLB instances one server can be added to. Flannel Services in Cluster ' +
    'mode attach every node to every CLB and exhaust it quickly; Services then fail to reconcile.',
  remediation:
    'Use Services in Local mode (externalTrafficPolicy: Local) so that only nodes running the pods are attached, ' +
    'or limit the nodes of Cluster-mode Services with the ' +
    'service.beta.kubernetes.io/alibaba-cloud-loadbalancer-backend-label annotation; request a quota increase for ' +
    `slb_quota_backendserver_attached_num in Quota Center. ${FORECAST_HINT} ${DOC_URL.lbConsiderations}`,
  source:
    `${SEED.lbConsiderations} "Load balancing update policies" (Cluster mode quickly consumes the quota); ` +
    'Quota Center quota slb_quota_backendserver_attached_num (default 50); CCM notes 7 (docs/sources.md#ccm-7), 9',
  settings: QUOTA_RATIO_SETTINGS,
  quotaUsage: true,
  quota: SLB_QUOTA_BACKEND_ATTACHED,
  scope: 'ecs',
  needs: ['slb'],
  check({ instanceId: id, account, region, ecs, node, attachment: a }, out, r, ctx) {
    const { limit, limitSource } = ctx.index.quota(region, SLB_QUOTA_BACKEND_ATTACHED);
    const used = a?.loadBalancers ?? 0;
    const ref = ecsRef(
      id,
      account.accountId,
      region.regionId,
      ecs?.name ?? node?.node.name,
      node?.cluster.cluster.clusterId,
    );
    const ratio = used / limit;
    const figures = { used, limit, ratio, vServerGroups: a?.groups ?? 0, limitSource };
    const severity = quotaSeverity(ratio, ctx.settings.quota);
    const nodeName = node?.node.name;
    if (severity)
      out.push(
        r.fail(ref, attachmentText(ref, figures, nodeName, a), {
          severity,
          figures: { ...figures, loadBalancerIds: a ? sampleLoadBalancerIdsOf(a) : [] },
        }),
      );
    else out.push(r.pass(ref, attachmentText, figures, nodeName));
  },
});
