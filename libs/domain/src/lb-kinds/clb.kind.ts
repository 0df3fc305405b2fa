/**
 * The CLB (SLB) kind: CCM's clbv1 controller (pkg/controller/service/clbv1, tag v2.14.0). Sources: `NeedCLB` and
 * `ServiceFinalizer` (pkg/controller/helper/service_utils.go); vServer group names `k8s/{port}/{svc}/{ns}/{cluster}`
 * (clbv1/vgroups.go `getVGroupNamedKey`); quotas on slb-quota.constants.ts; RAM actions on ram-actions.constants.ts;
 * annotation versions on annotation-versions.constants.ts (ACK doc "Add annotations to the YAML file of a Service to
 * configure CLB instances").
 */
import { FINALIZER_CLB } from '../ccm/ccm.constants';
import { CLB_SERVER_SHAPE } from '../ccm/backends.model';
import { needClb } from '../ccm/service.model';
import { parseCcmNamedKey, vServerGroupName } from '../ccm/naming.model';
import { CLB_QUOTAS } from '../ccm/slb-quota.constants';
import { CCM_RAM_REQUIREMENTS } from '../ccm/ram-actions.constants';
import { annotationMinimumVersion } from '../ccm/annotation-versions.model';
import type { LoadBalancerKind } from './load-balancer-kind';

/** The CLB kind (see the file comment for sources). */
export const CLB_KIND: LoadBalancerKind = Object.freeze({
  id: 'clb',
  title: 'CLB',
  groupNoun: 'vServer group',
  quotaProductCode: 'slb',
  ramService: 'slb',
  finalizer: FINALIZER_CLB,
  manages: needClb,
  // A CLB vServer group's name has no protocol: CCM keys it by port alone.
  groupName: (port: number | string, _protocol: string, serviceName: string, namespace: string, clusterId: string) =>
    vServerGroupName(port, serviceName, namespace, clusterId),
  parseGroupName: parseCcmNamedKey,
  serverShape: CLB_SERVER_SHAPE,
  quotas: CLB_QUOTAS,
  ramRequirements: Object.freeze(CCM_RAM_REQUIREMENTS.filter((r) => r.action.startsWith('slb:'))),
  annotationMinimumVersion: (key: string) => annotationMinimumVersion(key, 'clb'),
});
