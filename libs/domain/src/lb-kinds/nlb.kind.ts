/**
 * The NLB kind: CCM's nlbv2 controller (pkg/controller/service/nlbv2, tag v2.14.0; research/nlb.md). Sources:
 * `NeedNLB` and `NLBFinalizer` (pkg/controller/helper/service_utils.go); the controller exists from CCM v2.5.0 (ACK
 * doc "Configure NLB using annotations"); server group names `k8s.{port}.{proto}.{svc}.{ns}.{cluster}`
 * (nlbv2/server_groups.go `getServerGroupName`); quotas on nlb-quota.constants.ts ("NLB quotas"); RAM actions
 * `CCM_NLB_RAM_REQUIREMENTS` (pkg/provider/alibaba/nlb); annotation versions `NLB_ANNOTATION_MIN_VERSIONS`.
 */
import { FINALIZER_NLB } from '../ccm/ccm.constants';
import { needNlb } from '../ccm/service.model';
import { nlbServerGroupName, parseNlbNamedKey } from '../ccm/nlb-naming.model';
import { NLB_QUOTAS } from '../ccm/nlb-quota.constants';
import { CCM_NLB_RAM_REQUIREMENTS } from '../ccm/ram-actions.constants';
import { NLB_MIN_VERSION } from '../ccm/annotation-versions.constants';
import { annotationMinimumVersion } from '../ccm/annotation-versions.model';
import type { LoadBalancerKind } from './load-balancer-kind';
import { NLB_DATA } from './nlb/nlb.data';

/** The NLB kind (see the file comment for sources). */
export const NLB_KIND: LoadBalancerKind = Object.freeze({
  id: 'nlb',
  title: 'NLB',
  groupNoun: 'server group',
  quotaProductCode: 'nlb',
  ramService: 'nlb',
  finalizer: FINALIZER_NLB,
  minimumCcmVersion: NLB_MIN_VERSION,
  manages: needNlb,
  groupName: nlbServerGroupName,
  parseGroupName: parseNlbNamedKey,
  // `Instance` groups, the default `server-group-type`; an `Ip` group writes nodes and pods as IPs.
  serverShape: Object.freeze({ node: 'ecs', pod: 'eni', nodeNameNilTrailer: ' ' } as const),
  quotas: NLB_QUOTAS,
  ramRequirements: CCM_NLB_RAM_REQUIREMENTS,
  annotationMinimumVersion: (key: string) => annotationMinimumVersion(key, 'nlb'),
  resourceKinds: Object.freeze(['NetworkLoadBalancer', 'NlbServerGroup', 'NlbServer'] as const),
  data: NLB_DATA,
});
