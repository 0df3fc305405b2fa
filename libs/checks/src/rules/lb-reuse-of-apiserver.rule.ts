import { scopedCheck } from '../check-scope';
import { DOC_URL, SEED } from '../doc-links.constants';
import { serviceRef } from '../result.util';

/**
 * A Service reuses the API server CLB of a cluster (`external_loadbalancer_id`). CCM refuses (the CLB
 * carries `ack.aliyun.com`; "cannot reuse API-server SLB" since v1.9.3.276-g372aa98-aliyun), and editing
 * listeners on it risks the cluster's only API endpoint (seed 000: a deleted API Server SLB "cannot be
 * recovered. You must recreate the cluster").
 */
export const lbReuseOfApiserverRule = scopedCheck({
  id: 'LB_REUSE_OF_APISERVER',
  title: 'Service reuses the API server CLB',
  category: 'ownership',
  resourceKind: 'Service',
  defaultSeverity: 'critical',
  description:
    'Checks every LoadBalancer Service with the loadbalancer-id annotation against the API server CLBs of all ' +
    'clusters in the fleet. The API server CLB cannot be reused.',
  remediation:
    'Remove the service.beta.kubernetes.io/alibaba-cloud-loadbalancer-id annotation pointing at the API server CLB ' +
    'and reuse a CLB created in the SLB console instead (or let CCM create one); recreate the Service if it is ' +
    `already bound. ${DOC_URL.serviceFaq}`,
  source:
    `${SEED.serviceFaq} "FAQ about reusing an existing SLB instance" (cannot reuse the API Server SLB) and "What to ` +
    `do if I accidentally delete an SLB instance"; ${SEED.lbConsiderations} "Which load balancers can be reused?"; ` +
    'CCM pkg/controller/service/clbv1/model_applier.go isLoadBalancerReusable (ack.aliyun.com tag)',
  scope: 'service',
  needs: ['kubernetes'],
  applies: (se) => se.needClb,
  check(se, out, r, ctx) {
    const lbId = se.reusedLbId;
    if (!lbId) return;
    const ref = serviceRef(se);
    const clusters = ctx.index.apiServerClusters.get(lbId);
    if (clusters) {
      const ids = clusters.map((c) => c.cluster.clusterId);
      out.push(
        r.fail(ref, `${ref.id} reuses CLB ${lbId}, the API server CLB of cluster ${ids.join(', ')}`, {
          figures: { loadBalancerId: lbId, apiServerOf: ids },
        }),
      );
    } else {
      out.push(
        r.pass(ref, `${ref.id} reuses CLB ${lbId}, which is no cluster's API server CLB`, {
          loadBalancerId: lbId,
        }),
      );
    }
  },
});
