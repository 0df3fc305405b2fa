import { serviceTrafficPolicy } from '@app/domain';
import { scopedCheck } from '../check-scope';
import { DOC_URL, SEED } from '../doc-links.constants';
import { listSome, type PassText } from '../result.util';
import { clbRef } from '../lb-refs';

/** A CLB with a specification: its message (built when read). */
const specText: PassText<{ spec: string }> = (ref, { spec }) => `CLB ${ref.id} has the specification ${spec}`;

/**
 * A shared-resource CLB: no `LoadBalancerSpec` and not pay-by-CLCU (a PayByCLCU instance has no spec either but
 * is performance-guaranteed). Seed 002: "Older CCM versions create shared CLB instances by default, which are now
 * discontinued" (ShareSlbHaltSales) and "Shared CLB instances do not support Elastic Network Interface (ENI)
 * backends". Critical when a Service using the CLB is in ENI mode (its backends cannot be added now), warning
 * otherwise. Skipped when the instance charge type is unknown (shared cannot be told from PayByCLCU).
 */
export const lbSharedSpecDiscontinuedRule = scopedCheck({
  id: 'LB_SHARED_SPEC_DISCONTINUED',
  title: 'Shared-resource CLB: discontinued, and cannot take ENI backends',
  category: 'ownership',
  resourceKind: 'LoadBalancer',
  defaultSeverity: 'warning',
  description:
    'Finds CLB instances without a specification that are not pay-by-CLCU: shared-resource instances. They are ' +
    'discontinued (no new ones can be bought) and reject ENI backends, so a Service in ENI mode on one cannot sync.',
  remediation:
    'Add the annotation service.beta.kubernetes.io/alibaba-cloud-loadbalancer-spec: "slb.s1.small" (or another ' +
    'specification) to the Service to use a high-performance (performance-guaranteed) CLB instance, and upgrade ' +
    'the CCM component so that new CLBs are not created as shared instances. Check that the annotation is ' +
    `supported by your CCM version. ${DOC_URL.troubleshooting}`,
  source:
    `${SEED.troubleshooting} rows "The loadbalancer does not support backend servers of eni type" and ` +
    `"ShareSlbHaltSales"; ${SEED.serviceFaqOld} same rows; SLB API DescribeLoadBalancerAttribute ` +
    '(LoadBalancerSpec, InstanceChargeType)',
  scope: 'region',
  needs: ['slb'],
  check(re, out, r, ctx) {
    for (const clb of re.region.loadBalancers ?? []) {
      const ref = clbRef(ctx.index, clb);
      if (clb.spec) {
        out.push(
          r.pass(ref, specText, { spec: clb.spec }),
        );
        continue;
      }
      if (clb.instanceChargeType === 'PayByCLCU') {
        out.push(
          r.pass(ref, `CLB ${clb.loadBalancerId} is pay-by-CLCU (no specification, not shared)`, {
            instanceChargeType: 'PayByCLCU',
          }),
        );
        continue;
      }
      if (!clb.instanceChargeType) {
        out.push(
          r.skipped(
            ref,
            `CLB ${clb.loadBalancerId} has no specification and no InstanceChargeType: shared-resource or pay-by-CLCU cannot be told apart`,
          ),
        );
        continue;
      }
      const eniUsers = (ctx.index.servicesByClb().get(clb.loadBalancerId) ?? [])
        .filter((se) => serviceTrafficPolicy(se.service, se.cluster.cluster).policy === 'eni')
        .map((se) => `${se.service.namespace}/${se.service.name}`);
      out.push(
        r.fail(
          ref,
          `CLB ${clb.loadBalancerId} is a shared-resource instance (no specification, ${clb.instanceChargeType}): discontinued` +
            (eniUsers.length
              ? `, and ENI-mode Services ${listSome(eniUsers, 3)} cannot add their pod backends to it`
              : ''),
          {
            severity: eniUsers.length ? 'critical' : r.defaultSeverity,
            figures: { instanceChargeType: clb.instanceChargeType, eniServices: eniUsers },
          },
        ),
      );
    }
  },
});
