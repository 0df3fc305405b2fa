import { TAG_CCM_OWNER, TAG_CLUSTER_ID, needClb, reusedLoadBalancerId, type Severity } from '@app/domain';
import { scopedCheck } from '../check-scope';
import { DOC_URL, SEED } from '../doc-links.constants';
import { serviceRef } from '../result.util';

const SEVERITY: Severity = 'critical';
const ID = 'LB_REUSE_OF_CCM_CREATED';

/**
 * A Service reuses (`...-loadbalancer-id`) a CLB carrying `kubernetes.do.not.delete` or `ack.aliyun.com`:
 * CCM refuses ("the loadbalancer <id> can not be reused, can not reuse loadbalancer created by kubernetes",
 * `isLoadBalancerReusable`, pkg/controller/service/clbv1/model_applier.go), so the Service fails to sync at
 * the next reconcile. Covers both another Service's CLB and the Service's own CCM-created CLB edited to
 * "reused" (seeds 000/003 warn against that edit). The API-server CLB is reported by LB_REUSE_OF_APISERVER.
 */
export const lbReuseOfCcmCreatedRule = scopedCheck({
  id: ID,
  title: 'Service reuses a CLB that CCM created',
  category: 'ownership',
  resourceKind: 'Service',
  defaultSeverity: SEVERITY,
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
  applies: ({ service }) => needClb(service) && reusedLoadBalancerId(service) !== undefined,
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
