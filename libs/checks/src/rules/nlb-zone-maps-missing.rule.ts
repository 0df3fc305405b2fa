import { NLB_ANNOTATION, lbAnnotationKey, nlbLoadBalancerBuildError } from '@app/domain';
import { scopedCheck } from '../check-scope';
import { DOC_URL, SEED } from '../doc-links.constants';
import { type PassText, serviceRef } from '../result.util';

/** An NLB Service whose zone-maps CCM can parse: its message (built when read). */
const parsedText: PassText<undefined> = (ref) => `NLB Service ${ref.id} has zone-maps CCM can parse, or reuses an NLB`;

/**
 * An NLB Service that asks CCM to create its NLB (no `...-loadbalancer-id`) without the `zone-maps` annotation, or
 * with a malformed one: CCM fails every sync before any API call, "ParameterMissing, zone mappings are required" or
 * "ZoneMapping format error" (pkg/controller/service/nlbv2/loadbalancer.go `BuildLocalModel`, `parseZoneMappings`;
 * ACK "Configure an NLB instance by using annotations": zone-maps is required, at least two zones). Needs only the
 * Service; a reused NLB needs no zone-maps.
 */
export const nlbZoneMapsMissingRule = scopedCheck({
  id: 'NLB_ZONE_MAPS_MISSING',
  title: 'NLB Service without (valid) zone-maps: CCM cannot create its NLB',
  category: 'configuration',
  resourceKind: 'Service',
  defaultSeverity: 'critical',
  description:
    'Finds Services of loadBalancerClass alibabacloud.com/nlb that ask CCM to create an NLB without the zone-maps ' +
    'annotation (or with one CCM cannot parse): every sync fails before anything is created, and the Service stays ' +
    'without an address.',
  remediation:
    `Add ${lbAnnotationKey(NLB_ANNOTATION.zoneMaps)}: "<zone-a>:<vsw-a>,<zone-b>:<vsw-b>" with at least two zones ` +
    'and a vSwitch of the cluster VPC in each, or reuse an existing NLB with the loadbalancer-id annotation. ' +
    DOC_URL.nlbAnnotations,
  source: `${SEED.nlbAnnotations} zone-maps; ${SEED.lbConsiderations}; CCM pkg/controller/service/nlbv2/loadbalancer.go BuildLocalModel, parseZoneMappings`,
  scope: 'service',
  needs: ['kubernetes'],
  applies: ({ service, needNlb: nlb }) => nlb && !service.deletionTimestamp,
  check(se, out, r) {
    const ref = serviceRef(se);
    const error = nlbLoadBalancerBuildError(se.service);
    if (error) out.push(r.fail(ref, `CCM fails every sync of NLB Service ${ref.id}: "${error}"`, { figures: { ccmError: error } }));
    else out.push(r.pass(ref, parsedText, undefined));
  },
});
