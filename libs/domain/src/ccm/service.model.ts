import type { ClusterSnapshot, K8sService } from '../snapshot.types';
import {
  ANNOTATION_BACKEND_TYPE,
  ANNOTATION_SERVICE_CLASS,
  ANNOTATION_TUNNEL_TYPE,
  LB_ANNOTATION,
  NLB_LOAD_BALANCER_CLASS,
  TAG_CCM_OWNER,
  TERWAY_ENI_DEFAULT_SINCE,
} from './ccm.constants';
import { getLbAnnotation } from './annotations.model';

/**
 * Which Services CCM takes, how it names their LB, and which backends mode applies.
 */

/**
 * The default LB name of a Service: `"a"` + the UID without dashes, cut to 32 characters.
 * CCM finds its own LB by the tag `kubernetes.do.not.delete=<this>` and creates it under this name.
 *
 * Source: `GetDefaultLoadBalancerName`, pkg/controller/service/reconcile/annotation/annotations.go;
 * test `TestGetDefaultLoadBalancerName` (UID `5e4dbfc9-c2ae-4642-b033-5607860aef6a` ->
 * `a5e4dbfc9c2ae4642b0335607860aef6`); seed 000 "How to enable SLB renaming for older CCM versions"
 * (`substr("a"$1$2$3$4$5,1,32)`).
 */
export function defaultLoadBalancerName(uid: string): string {
  const name = `a${uid.replace(/-/g, '')}`;
  return name.length > 32 ? name.slice(0, 32) : name;
}

/**
 * Whether the CLB controller takes this Service: type LoadBalancer, no `spec.loadBalancerClass`, no
 * `...-loadbalancer-tunnel-type` key, and an empty `service.beta.kubernetes.io/class`. (The
 * `LoadBalancerTypeAnnotation` feature gate is off by default and is not modelled.)
 * Source: `NeedCLB`, pkg/controller/helper/service_utils.go.
 */
export function needClb(svc: K8sService): boolean {
  if (svc.type !== 'LoadBalancer') return false;
  if (svc.loadBalancerClass !== undefined && svc.loadBalancerClass !== '') return false;
  if (Object.prototype.hasOwnProperty.call(svc.annotations, ANNOTATION_TUNNEL_TYPE)) return false;
  return (svc.annotations[ANNOTATION_SERVICE_CLASS] ?? '') === '';
}

/**
 * Whether the NLB controller takes this Service: type LoadBalancer with
 * `spec.loadBalancerClass: alibabacloud.com/nlb`. Source: `NeedNLB`, pkg/controller/helper/service_utils.go.
 */
export function needNlb(svc: K8sService): boolean {
  return svc.type === 'LoadBalancer' && svc.loadBalancerClass === NLB_LOAD_BALANCER_CLASS;
}

/**
 * The LB id a Service reuses (`...-loadbalancer-id` annotation, non-empty), or `undefined` when CCM
 * creates and owns the LB. Source: `IsUserManaged` (model), annotations.go; seed 000 deletion policy.
 */
export function reusedLoadBalancerId(svc: Pick<K8sService, 'annotations'>): string | undefined {
  const id = getLbAnnotation(svc.annotations, LB_ANNOTATION.id);
  return id !== undefined && id.trim() !== '' ? id.trim() : undefined;
}

/** Backend mode of a CLB Service: pod IPs (`eni`), nodes with pods (`local`), every node (`cluster`). */
export type TrafficPolicy = 'eni' | 'local' | 'cluster';

/** A traffic policy with why it was chosen. */
export interface TrafficPolicyDecision {
  policy: TrafficPolicy;
  /**
   * `annotation` (`service.beta.kubernetes.io/backend-type`), `cluster-default` (Terway clusters created
   * on/after 2020-08-10 default to ENI), or `external-traffic-policy`.
   */
  basis: 'annotation' | 'cluster-default' | 'external-traffic-policy';
  /** True when the cluster default was assumed because the cluster's creation time is unknown. */
  assumed?: boolean;
}

/**
 * Whether a cluster defaults its CLB Services to ENI backends: Terway clusters created on or after
 * 2020-08-10 (CLB annotation doc "backend-type"; release v1.9.3.313-g748f81e-aliyun). Flannel and older
 * Terway clusters default to `ecs`.
 *
 * @returns `{ eni, assumed }`: `assumed` is true for a Terway cluster without a creation time (ENI assumed,
 *   as every Terway cluster created since 2020 defaults to it)
 */
export function clusterDefaultsToEni(cluster: Pick<ClusterSnapshot, 'networkPlugin' | 'created'>): {
  eni: boolean;
  assumed: boolean;
} {
  if (cluster.networkPlugin !== 'terway') return { eni: false, assumed: false };
  if (cluster.created === undefined) return { eni: true, assumed: true };
  const created = Date.parse(cluster.created);
  if (Number.isNaN(created)) return { eni: true, assumed: true };
  return { eni: created >= Date.parse(TERWAY_ENI_DEFAULT_SINCE), assumed: false };
}

/**
 * The backend mode CCM applies to a CLB Service.
 * ENI when `service.beta.kubernetes.io/backend-type` is non-empty and `eni` (a non-empty other value
 * means `ecs`), else when the cluster default is ENI; otherwise Local for `externalTrafficPolicy: Local`,
 * else Cluster. Source: `GetServiceTrafficPolicy` / `IsENIBackendType`, pkg/controller/helper/service_utils.go
 * (the cluster default is cloud-config `serviceBackendType`, which ACK sets per the rule above).
 */
export function serviceTrafficPolicy(
  svc: Pick<K8sService, 'annotations' | 'externalTrafficPolicy'>,
  cluster: Pick<ClusterSnapshot, 'networkPlugin' | 'created'>,
): TrafficPolicyDecision {
  const backendType = svc.annotations[ANNOTATION_BACKEND_TYPE] ?? '';
  if (backendType !== '') {
    if (backendType === 'eni') return { policy: 'eni', basis: 'annotation' };
  } else {
    const d = clusterDefaultsToEni(cluster);
    if (d.eni) return { policy: 'eni', basis: 'cluster-default', ...(d.assumed ? { assumed: true } : {}) };
  }
  if (svc.externalTrafficPolicy === 'Local') return { policy: 'local', basis: 'external-traffic-policy' };
  return { policy: 'cluster', basis: 'external-traffic-policy' };
}

/** How CCM found a Service's CLB (`findServiceClb`): by the `loadbalancer-id` annotation, the ownership tag, the default name, or not at all. */
export type ServiceClbMatch = 'id' | 'tag' | 'name' | 'none';

/**
 * The CLBs CCM can see for one Service: those of the Service's cluster's account and region (CCM calls the SLB
 * API with that account's credentials in that region, so a CLB of another account or region is never found).
 * The caller builds the lookups over that set only.
 */
export interface CcmClbView<T> {
  /** The CLB with this id, or `undefined`. */
  byId(loadBalancerId: string): T | undefined;
  /** A CLB tagged `kubernetes.do.not.delete` = this default LB name, or `undefined`. */
  byOwnerTag(defaultLbName: string): T | undefined;
  /** A CLB named this (the default LB name), or `undefined`. */
  byName(name: string): T | undefined;
}

/**
 * The lookups of a `CcmClbView` (and of the NLB `CcmNlbView`, same shape) over one account and region's load
 * balancers, as CCM's List/Describe calls answer them: by id; by the ownership tag `kubernetes.do.not.delete`
 * (`TAG_CCM_OWNER`), the first load balancer carrying that value; by name, the first carrying it (a load balancer
 * without a name is never found by name). The caller passes only the load balancers CCM can see (the Service's
 * account and region).
 */
export class CcmLbLookup<T extends { loadBalancerId: string; name?: string; tags: Readonly<Record<string, string>> }> implements CcmClbView<T> {
  private readonly ids = new Map<string, T>();
  private readonly owners = new Map<string, T>();
  private readonly names = new Map<string, T>();

  /** @param lbs the load balancers of one account and region (a later duplicate id replaces an earlier one) */
  constructor(lbs: Iterable<T>) {
    for (const lb of lbs) {
      this.ids.set(lb.loadBalancerId, lb);
      const owner = lb.tags[TAG_CCM_OWNER];
      if (owner && !this.owners.has(owner)) this.owners.set(owner, lb);
      if (lb.name !== undefined && !this.names.has(lb.name)) this.names.set(lb.name, lb);
    }
  }

  /** The load balancer with this id, or `undefined`. */
  byId(loadBalancerId: string): T | undefined {
    return this.ids.get(loadBalancerId);
  }

  /** The first load balancer tagged `kubernetes.do.not.delete` = this default LB name, or `undefined`. */
  byOwnerTag(defaultLbName: string): T | undefined {
    return this.owners.get(defaultLbName);
  }

  /** The first load balancer named this, or `undefined`. */
  byName(name: string): T | undefined {
    return this.names.get(name);
  }

  /**
   * Record a load balancer CCM creates (a what-if's new one): found by its id, by its ownership tag (it takes
   * the tag over, as CCM's newly tagged load balancer is the one found next), and by its name unless taken.
   */
  add(lb: T): void {
    this.ids.set(lb.loadBalancerId, lb);
    const owner = lb.tags[TAG_CCM_OWNER];
    if (owner !== undefined) this.owners.set(owner, lb);
    if (lb.name !== undefined && !this.names.has(lb.name)) this.names.set(lb.name, lb);
  }
}

/**
 * The ONE way to find a Service's CLB: what CCM's `LoadBalancerManager.Find` + `FindLoadBalancer` find at the
 * next sync (kubernetes/cloud-provider-alibaba-cloud pkg/controller/service/clbv1/loadbalancer.go `Find`: the
 * `loadbalancer-id` annotation, else the tag `kubernetes.do.not.delete` = the default LB name; then
 * pkg/provider/alibaba/slb/loadbalancer.go `FindLoadBalancer`: by id, else by that tag, else by the default LB
 * name, for CLBs created by CCM <= v1.9.3.10 that carry no tag; CCM notes 1.4 (docs/sources.md#ccm-1)). An annotation
 * naming a CLB outside `view` finds nothing (`by: 'none'`, no fallback: CCM fails the sync with "can not find
 * loadbalancer").
 *
 * The Service label `service.k8s.alibaba/loadbalancer-id` (`helper.LabelLoadBalancerId`, CCM v2.4.0) is NOT
 * read: CCM writes it after a sync as a marker and removes it on cleanup, but neither `Find` nor
 * `FindLoadBalancer` reads it (CCM notes 1.1 (docs/sources.md#ccm-1), §1.4). Following it would attribute a Service
 * to a CLB that CCM itself would not find at the next sync (for example after the CLB was deleted and a stale
 * label remained).
 * @param service the Service (its annotations and UID)
 * @param view the CLBs of the Service's account and region (`CcmClbView`)
 * @param keys the Service's lookup keys when the caller computed them already (`ServiceLbKeys`)
 * @returns the CLB and how it was found; `by: 'name'` matches are not attributed to the Service by the quota
 *   checks (names are not unique; LB_RENAME_TAG_MISSING reports them)
 */
export function findServiceClb<T>(
  service: Pick<K8sService, 'annotations' | 'uid'>,
  view: CcmClbView<T>,
  keys?: ServiceLbKeys,
): { clb?: T; by: ServiceClbMatch } {
  const { lb, by } = findServiceLb(service, view, keys);
  return lb ? { clb: lb, by } : { by };
}

/**
 * A Service's keys for finding its load balancer, as `reusedLoadBalancerId(service)` and
 * `defaultLoadBalancerName(service.uid)` give them (`''` without a UID): a caller that looks up many Services (the
 * fleet index keeps both per Service) passes them instead of having them parsed again per lookup.
 */
export interface ServiceLbKeys {
  reusedLbId: string | undefined;
  defaultLbName: string;
}

/**
 * The lookup order CCM's CLB `FindLoadBalancer` and NLB `FindNLB` share (`findServiceClb`, `findServiceNlb`): the
 * `loadbalancer-id` annotation (no fallback when it names nothing), else the ownership tag
 * `kubernetes.do.not.delete` = the default LB name, else the default LB name; a Service without a UID has no
 * default name. Written once so that the two kinds cannot drift apart.
 * @param view the load balancers of one kind that CCM can see for the Service (its account and region)
 * @param keys the Service's keys when the caller has them (`ServiceLbKeys`); computed from `service` otherwise
 * @returns the load balancer and how it was found
 */
export function findServiceLb<T>(
  service: Pick<K8sService, 'annotations' | 'uid'>,
  view: CcmClbView<T>,
  keys?: ServiceLbKeys,
): { lb?: T; by: ServiceClbMatch } {
  const reused = keys ? keys.reusedLbId : reusedLoadBalancerId(service);
  if (reused) {
    const lb = view.byId(reused);
    return lb ? { lb, by: 'id' } : { by: 'none' };
  }
  if (!service.uid) return { by: 'none' };
  const name = keys ? keys.defaultLbName : defaultLoadBalancerName(service.uid);
  const tagged = view.byOwnerTag(name);
  if (tagged) return { lb: tagged, by: 'tag' };
  const named = view.byName(name);
  return named ? { lb: named, by: 'name' } : { by: 'none' };
}
