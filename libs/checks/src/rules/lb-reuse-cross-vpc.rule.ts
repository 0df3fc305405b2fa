import { scopedCheck } from '../check-scope';
import { DOC_URL, SEED } from '../doc-links.constants';
import { serviceRef } from '../result.util';

/**
 * A Service reuses an internal-facing (intranet) CLB whose VPC differs from the cluster's VPC: the sync fails
 * with `Status Code: 400 Code: NetworkConflict` (seeds 002/003). Internet-facing CLBs pass (the VPC does not
 * matter); cross-VPC reuse is supported only for NLB (seed 004).
 */
export const lbReuseCrossVpcRule = scopedCheck({
  id: 'LB_REUSE_CROSS_VPC',
  title: 'Reused internal-facing CLB is in another VPC than the cluster',
  category: 'ownership',
  resourceKind: 'Service',
  defaultSeverity: 'critical',
  description:
    'Checks every LoadBalancer Service that reuses an existing CLB: when the CLB is internal-facing, its VPC must be ' +
    "the cluster's VPC, else CCM fails with NetworkConflict.",
  remediation:
    'Make sure that the CLB instance and the cluster are deployed in the same VPC: reuse an internal-facing CLB of ' +
    `the cluster's VPC (or an NLB, which supports cross-VPC reuse). ${DOC_URL.troubleshooting}`,
  source:
    `${SEED.troubleshooting} "Status Code: 400 Code: NetworkConflict"; ${SEED.serviceFaqClb} "Why does reusing a CLB ` +
    `instance fail?"; ${SEED.lbConsiderations} "Which load balancers can be reused?"`,
  scope: 'reusedClb',
  // The CLB as CCM finds it (the Service's account and region): a CLB of another account or region is never
  // attached, CCM answers "can not find loadbalancer" first (LB_NOT_FOUND_FOR_SERVICE), not NetworkConflict.
  needs: ['kubernetes'],
  applies: (se) => se.needClb,
  check({ service: se, clb: entry }, out, r) {
    const ref = serviceRef(se);
    const lbId = entry.clb.loadBalancerId;
    const clb = entry.clb;
    if (clb.addressType !== 'intranet') {
      out.push(
        r.pass(ref, `${ref.id} reuses ${clb.addressType} CLB ${lbId}: the VPC does not matter`, {
          loadBalancerId: lbId,
          addressType: clb.addressType,
        }),
      );
      return;
    }
    const clusterVpc = se.cluster.cluster.vpcId;
    if (!clb.vpcId || !clusterVpc) {
      out.push(
        r.skipped(
          ref,
          `${!clb.vpcId ? `VPC of CLB ${lbId}` : `VPC of cluster ${se.cluster.cluster.clusterId}`} is unknown`,
          { loadBalancerId: lbId },
        ),
      );
      return;
    }
    const figures = { loadBalancerId: lbId, loadBalancerVpcId: clb.vpcId, clusterVpcId: clusterVpc };
    if (clb.vpcId !== clusterVpc) {
      out.push(
        r.fail(
          ref,
          `${ref.id} reuses internal-facing CLB ${lbId} in ${clb.vpcId}, but cluster ${se.cluster.cluster.clusterId} is in ${clusterVpc}: NetworkConflict`,
          {
            figures,
          },
        ),
      );
    } else {
      out.push(
        r.pass(
          ref,
          `${ref.id} reuses internal-facing CLB ${lbId} in the cluster's VPC ${clusterVpc}`,
          figures,
        ),
      );
    }
  },
});
