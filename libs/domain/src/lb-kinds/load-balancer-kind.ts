/**
 * One load-balancer kind CCM manages for `Service type=LoadBalancer`, as one interface with an instance per kind
 * (`CLB_KIND`, `NLB_KIND`). CCM reconciles both with one design (pkg/controller/service/reconcile, clbv1 and nlbv2):
 * which Services a kind's controller takes, the finalizer it owns, how it names what it creates (the default LB
 * name, listener and backend-group names, the description of the servers it attached), the servers it builds per
 * Service port (`CcmServerShape`, `ccmPortServers`), the quotas a kind counts against, the RAM actions its controller
 * calls and the annotations each CCM version reads. What the kinds share lives once in libs/domain/src/ccm
 * (node eligibility, endpoints, weights, Local-mode deduplication, ownership tags, lookup order); a kind module holds
 * only what differs, so the rules and forecasts ask the kind instead of branching on `clb` / `nlb`.
 */
import type { K8sService } from '../snapshot.types';
import type { ResourceKind } from '../finding.types';
import type { AnnotationMinimumVersion } from '../ccm/annotation-versions.constants';
import type { CcmRamRequirement } from '../ccm/ram-actions.constants';
import type { CcmServerShape } from '../ccm/backends.model';
import type { QuotaDefinition } from '../ccm/quota-definition.types';

import type { LoadBalancerKindId } from './kind-id';
import type { LoadBalancerKindData } from './kind-data';

export type { LoadBalancerKindId } from './kind-id';

/** A backend-group name CCM wrote, parsed: the port as written (NodePort, targetPort or a port range), the Service and cluster. */
export interface CcmGroupKey {
  port: string;
  /** Listener protocol as written (`TCP`, `UDP`, ...); absent for a CLB vServer group (its name has none). */
  protocol?: string;
  serviceName: string;
  namespace: string;
  clusterId: string;
}

/**
 * What CCM does differently for one kind of load balancer. Every member traces to CCM's controller of the kind
 * (clbv1 or nlbv2, tag v2.14.0) or the kind's API and quota documentation, cited on each instance.
 */
export interface LoadBalancerKind {
  /** Stable id, as in API fields and finding details. */
  readonly id: LoadBalancerKindId;
  /** The field's name of the kind: `CLB`, `NLB`. */
  readonly title: string;
  /** What the kind calls a backend group: `vServer group` (CLB) or `server group` (NLB). */
  readonly groupNoun: string;
  /** Quota Center product code of the kind's quotas (`slb`, `nlb`). */
  readonly quotaProductCode: string;
  /** The RAM service prefix of the kind's API actions (`slb`, `nlb`). */
  readonly ramService: string;
  /** The Service finalizer the kind's controller adds and removes (CCM `ServiceFinalizer`, `NLBFinalizer`). */
  readonly finalizer: string;
  /** First CCM version whose controller takes the kind's Services; `undefined`: every supported version. */
  readonly minimumCcmVersion?: string;
  /** Whether this kind's controller takes the Service (CCM helper/service_utils.go `NeedCLB`, `NeedNLB`). */
  manages(service: K8sService): boolean;
  /** The name CCM gives the backend group of one listener (`k8s/...` CLB, `k8s....` NLB). */
  groupName(port: number | string, protocol: string, serviceName: string, namespace: string, clusterId: string): string;
  /** A backend-group name (or server description) CCM wrote, parsed; `undefined` for a name CCM did not write. */
  parseGroupName(text: string | undefined): CcmGroupKey | undefined;
  /** How CCM writes the servers of a group of this kind (`default` group type). */
  readonly serverShape: CcmServerShape;
  /** The quotas the kind's resources count against, in catalogue order. */
  readonly quotas: readonly QuotaDefinition[];
  /** The RAM actions the kind's controller calls, by the CCM version that first calls them. */
  readonly ramRequirements: readonly CcmRamRequirement[];
  /**
   * The minimum CCM version of an annotation key for this kind's controller, or `undefined` for a key the tables do
   * not list (unknown and unversioned keys are not judged).
   */
  annotationMinimumVersion(key: string): AnnotationMinimumVersion | undefined;
  /**
   * The resource kinds of the kind's own resources that findings name (`ResourceKind`, each added to `ResourceKinds`
   * by the kind's module), in catalogue order; all region-scoped (named by id within an account and region). Absent
   * for CLB, whose `LoadBalancer` and `VServerGroup` are listed with the kinds of no load-balancer kind.
   */
  readonly resourceKinds?: readonly ResourceKind[];
  /**
   * The kind's data path (crawl, fleet files, snapshot mapping, simulator) that the generic code iterates over;
   * absent for CLB, whose SLB 2014-05-15 path the collectors, the fleet format and the simulator write out.
   */
  readonly data?: LoadBalancerKindData;
}
