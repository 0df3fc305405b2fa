import { TAG_CCM_OWNER, TAG_CLUSTER_ID, nlbReuseError } from '@app/domain';
import { combinedCheck, nlbServicePart, scopedCheck } from '../check-scope';
import { nlbNotReadReason, nlbOfService } from '../nlb-index';
import { DOC_URL, SEED } from '../doc-links.constants';
import { serviceRef } from '../result.util';

/**
 * A Service reuses (`...-loadbalancer-id`) a CLB carrying `kubernetes.do.not.delete` or `ack.aliyun.com`:
 * CCM refuses ("the loadbalancer <id> can not be reused, can not reuse loadbalancer created by kubernetes",
 * `isLoadBalancerReusable`, pkg/controller/service/clbv1/model_applier.go), so the Service fails to sync at
 * the next reconcile. Covers both another Service's CLB and the Service's own CCM-created CLB edited to
 * "reused" (seeds 000/003 warn against that edit). The API-server CLB is reported by LB_REUSE_OF_APISERVER.
 */
const clbPart = scopedCheck({
  id: 'LB_REUSE_OF_CCM_CREATED',
  title: 'Service reuses a CLB that CCM created',
  category: 'ownership',
  resourceKind: 'Service',
  defaultSeverity: 'critical',
  description:
    'Checks every LoadBalancer Service that names an existing CLB with the loadbalancer-id annotation: the CLB must ' +
    'not carry the CCM ownership tags (kubernetes.do.not.delete, ack.aliyun.com). CCM refuses to reuse such a CLB ' +
    'and the Service stays out of sync.',
  remediation:
    'If the Service is Pending, replace the CLB ID in service.beta.kubernetes.io/alibaba-cloud-loadbalancer-id with ' +
    'the ID of a CLB instance created manually in the CLB console. If it is not Pending and the CLB IP matches the ' +
    'Service external IP, delete the loadbalancer-id annotation; otherwise find the CLB by the Service external IP ' +
    'and update the annotation, or point it at a console-created CLB and recreate the Service. Do not edit a ' +
    `Service to switch its CCM-created CLB to a reused one. ${DOC_URL.troubleshooting}`,
  source:
    `${SEED.troubleshooting} "SyncLoadBalancerFailed the loadbalancer xxx can not be reused, can not reuse ` +
    `loadbalancer created by kubernetes"; ${SEED.serviceFaqClb} same row and "Service deletion and CLB instances"; ` +
    `${SEED.lbConsiderations} "Which load balancers can be reused?"; CCM pkg/controller/service/clbv1/model_applier.go ` +
    'isLoadBalancerReusable',
  scope: 'service',
  needs: ['kubernetes'],
  applies: ({ needClb: clb, reusedLbId }) => clb && reusedLbId !== undefined,
  check(se, out, r, ctx) {
    const ref = serviceRef(se);
    // The CLB as CCM finds it (`FleetIndex.reusedClb`: the Service's account and region): CCM never sees a CLB
    // of another account or region, so it cannot refuse to reuse it (it answers "can not find loadbalancer").
    const reused = ctx.index.reusedClb(se)!;
    const { lbId, entry } = reused;
    // The API server CLB first, whether or not it was read: LB_REUSE_OF_APISERVER reports it.
    if (ctx.index.apiServerClusters.has(lbId)) {
      out.push(
        r.skipped(ref, `CLB ${lbId} is an API server CLB: reported by LB_REUSE_OF_APISERVER`, {
          loadBalancerId: lbId,
        }),
      );
      return;
    }
    if (!entry) {
      out.push(r.skipped(ref, reused.skipReason, { loadBalancerId: lbId }));
      return;
    }
    const tags = entry.clb.tags;
    const owner = tags[TAG_CCM_OWNER];
    const clusterTag = tags[TAG_CLUSTER_ID];
    if (owner === undefined && clusterTag === undefined) {
      out.push(
        r.pass(ref, `${ref.id} reuses CLB ${lbId}, which carries no CCM ownership tag`, {
          loadBalancerId: lbId,
        }),
      );
      return;
    }
    let whose: string;
    let ownService = false;
    if (owner !== undefined && se.defaultLbName !== '' && owner === se.defaultLbName) {
      ownService = true;
      whose =
        'its own CCM-created CLB, edited to be "reused": deleting the Service will no longer delete the CLB';
    } else if (owner !== undefined) {
      const o = ctx.index.servicesByDefaultLbName().get(owner)?.[0];
      whose = o
        ? `created by CCM for Service ${o.service.namespace}/${o.service.name} in cluster ${o.cluster.cluster.clusterId}`
        : `created by CCM (kubernetes.do.not.delete=${owner})`;
    } else {
      whose = `managed by ACK for cluster ${clusterTag} (ack.aliyun.com)`;
    }
    out.push(
      r.fail(
        ref,
        `${ref.id} reuses CLB ${lbId}, ${whose}; CCM refuses: "can not reuse loadbalancer created by kubernetes"`,
        {
          figures: {
            loadBalancerId: lbId,
            ownServiceClb: ownService,
            ...(owner !== undefined ? { ownerTag: owner } : {}),
            ...(clusterTag !== undefined ? { clusterTag } : {}),
          },
        },
      ),
    );
  },
});

/**
 * The NLB part: an NLB Service reusing an NLB that carries `kubernetes.do.not.delete` or `ack.aliyun.com`
 * is refused the same way ("the loadbalancer <id> can not be reused, can not reuse loadbalancer created by
 * kubernetes.", `isNLBReusable`, pkg/controller/service/nlbv2/model_applier.go). Skipped naming the `nlb` gap when
 * the region's NLBs were not read, and deferred to LB_NOT_FOUND_FOR_SERVICE when the NLB is not there.
 */
const nlbPart = nlbServicePart(clbPart, {
  applies: ({ reusedLbId }) => reusedLbId !== undefined,
  check(se, out, r, ctx) {
    const ref = serviceRef(se);
    const lbId = se.reusedLbId!;
    const found = nlbOfService(ctx.index, se);
    if (!found) {
      out.push(r.skipped(ref, nlbNotReadReason(ctx.index, se.cluster.account, se.cluster.region), { loadBalancerId: lbId }));
      return;
    }
    if (!found.nlb) {
      out.push(r.skipped(ref, `NLB ${lbId} is not among the NLB instances of ${se.cluster.region.regionId} (see LB_NOT_FOUND_FOR_SERVICE)`, { loadBalancerId: lbId }));
      return;
    }
    const tags = found.nlb.tags;
    const owner = tags[TAG_CCM_OWNER];
    const clusterTag = tags[TAG_CLUSTER_ID];
    if (owner === undefined && clusterTag === undefined) {
      out.push(r.pass(ref, `${ref.id} reuses NLB ${lbId}, which carries no CCM ownership tag`, { loadBalancerId: lbId }));
      return;
    }
    const o = owner !== undefined ? ctx.index.servicesByDefaultLbName().get(owner)?.[0] : undefined;
    const whose =
      owner !== undefined && owner === se.defaultLbName
        ? 'its own CCM-created NLB, edited to be "reused"'
        : o
          ? `created by CCM for Service ${o.service.namespace}/${o.service.name} in cluster ${o.cluster.cluster.clusterId}`
          : owner !== undefined
            ? `created by CCM (kubernetes.do.not.delete=${owner})`
            : `managed by ACK for cluster ${clusterTag} (ack.aliyun.com)`;
    out.push(
      r.fail(ref, `${ref.id} reuses NLB ${lbId}, ${whose}; CCM refuses: "${nlbReuseError(se.service, found.nlb) ?? 'can not reuse loadbalancer created by kubernetes.'}"`, {
        figures: { loadBalancerId: lbId, kind: 'NLB', ...(owner !== undefined ? { ownerTag: owner } : {}), ...(clusterTag !== undefined ? { clusterTag } : {}) },
      }),
    );
  },
});

/**
 * A Service reuses (`...-loadbalancer-id`) a CLB or NLB that CCM created: the CLB part (`isLoadBalancerReusable`)
 * and the NLB part (`isNLBReusable`).
 */
export const lbReuseOfCcmCreatedRule = combinedCheck(clbPart, nlbPart);
