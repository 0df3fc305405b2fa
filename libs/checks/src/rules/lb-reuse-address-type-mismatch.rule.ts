import { LB_ANNOTATION, getLbAnnotation } from '@app/domain';
import { scopedCheck } from '../check-scope';
import { DOC_URL, SEED } from '../doc-links.constants';
import { serviceRef } from '../result.util';

/**
 * A Service reusing a CLB whose `address-type` annotation (`internet` | `intranet`) differs from the CLB's
 * AddressType. Seed 004 "Which load balancers can be reused?": "The address type of the reused SLB instance must
 * match the access type of the Service". CCM compares only when the annotation is set
 * (`LoadBalancerManager.Update`, pkg/controller/service/clbv1/loadbalancer.go) and then fails every sync with
 * "alicloud: can not change LoadBalancer AddressType once created. delete and retry" (seed 002). Without the
 * annotation CCM keeps the CLB's type: pass, with the type in the figures.
 */
export const lbReuseAddressTypeMismatchRule = scopedCheck({
  id: 'LB_REUSE_ADDRESS_TYPE_MISMATCH',
  title: "Reused CLB's address type differs from the Service's address-type",
  category: 'ownership',
  resourceKind: 'Service',
  defaultSeverity: 'critical',
  description:
    'Checks every Service that reuses an existing CLB: its address-type annotation (internet or intranet) must be ' +
    "the CLB's AddressType, else CCM refuses to sync the Service (the address type cannot change once created).",
  remediation:
    'Reuse a CLB whose address type matches the Service: a public (internet) CLB for ' +
    'service.beta.kubernetes.io/alibaba-cloud-loadbalancer-address-type: "internet", a private (intranet) CLB for ' +
    '"intranet"; or correct the annotation to the CLB\'s type. The type of a CLB cannot be changed after creation. ' +
    DOC_URL.lbConsiderations,
  source:
    `${SEED.lbConsiderations} "Which load balancers can be reused?"; ${SEED.troubleshooting} "alicloud: can not ` +
    'change LoadBalancer AddressType once created. delete and retry"; CCM pkg/controller/service/clbv1/loadbalancer.go Update',
  scope: 'reusedClb',
  needs: ['kubernetes'],
  applies: (se) => se.needClb,
  check({ service: se, clb: { clb } }, out, r) {
    const ref = serviceRef(se);
    const wanted = getLbAnnotation(se.service.annotations, LB_ANNOTATION.addressType);
    const figures = {
      loadBalancerId: clb.loadBalancerId,
      loadBalancerAddressType: clb.addressType,
      ...(wanted ? { serviceAddressType: wanted } : {}),
    };
    if (!wanted) {
      out.push(
        r.pass(
          ref,
          `${ref.id} reuses ${clb.addressType} CLB ${clb.loadBalancerId} without an address-type annotation: CCM keeps the CLB's type`,
          figures,
        ),
      );
    } else if (wanted !== clb.addressType) {
      out.push(
        r.fail(
          ref,
          `${ref.id} asks for address-type ${wanted} but reuses ${clb.addressType} CLB ${clb.loadBalancerId}: CCM fails with ` +
            '"can not change LoadBalancer AddressType once created"',
          { figures },
        ),
      );
    } else {
      out.push(
        r.pass(
          ref,
          `${ref.id} reuses ${clb.addressType} CLB ${clb.loadBalancerId}, as its address-type asks`,
          figures,
        ),
      );
    }
  },
});
