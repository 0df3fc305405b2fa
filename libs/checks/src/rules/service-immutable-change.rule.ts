import {
  CCM_FEATURES,
  LB_ANNOTATION,
  NLB_ANNOTATION,
  getLbAnnotation,
  nlbImmutableChangeErrors,
  nlbServerGroupType,
  nlbVGroupPortBinding,
  reusedLoadBalancerId,
  type K8sService,
} from '@app/domain';
import { combinedCheck, nlbServicePart, scopedCheck } from '../check-scope';
import { nlbOfServiceOrSkip } from './nlb-quota.util';
import { DOC_URL, SEED } from '../doc-links.constants';
import { serviceRef } from '../result.util';

/** Whether a Service has one of the annotations this check compares with its CLB. */
function asksForImmutable(service: K8sService): boolean {
  const annotations = [
    LB_ANNOTATION.addressType,
    LB_ANNOTATION.resourceGroupId,
    LB_ANNOTATION.spec,
    LB_ANNOTATION.instanceChargeType,
  ];
  return (
    annotations.some((a) => !!getLbAnnotation(service.annotations, a)) ||
    reusedLoadBalancerId(service) !== undefined
  );
}

/**
 * A CLB Service whose annotations ask CCM to change what cannot change on its existing CLB, so every sync fails
 * (seed 002 rows; CCM `LoadBalancerManager.Update` / `updateInstanceChargeTypeAndInstanceSpec`,
 * pkg/controller/service/clbv1/loadbalancer.go, and `isLoadBalancerReusable`, model_applier.go):
 * - `address-type` differs from a CCM-created CLB's AddressType ("can not change LoadBalancer AddressType once
 *   created"; reused CLBs are LB_REUSE_ADDRESS_TYPE_MISMATCH);
 * - `resource-group-id` differs from the CLB's resource group ("can not change ResourceGroupId once created");
 * - pay-by-spec asked of a PayByCLCU CLB: `instance-charge-type: PayBySpec`, or a `spec` annotation on a CCM older
 *   than v2.4.0, which applied the spec to any CLB ("instanceChargeType of loadbalancer is PayByCLCU");
 * - a `loadbalancer-id` naming a different CLB than the one whose address the Service already has ("service has
 *   been associated with ip [x], cannot be bound to ip [y]"; not checked with `external-ip-type: eip`).
 * Scope: CLB Services with one of these annotations. Skipped when the CLB is unknown or a fact cannot be told.
 */
const clbPart = scopedCheck({
  id: 'SERVICE_IMMUTABLE_CHANGE',
  title: 'Service annotation asks to change what cannot change on its CLB or NLB',
  category: 'configuration',
  resourceKind: 'Service',
  defaultSeverity: 'critical',
  description:
    "Compares the Service's address-type, resource-group-id, spec / instance-charge-type and loadbalancer-id " +
    'annotations with its existing CLB. Address type, resource group, the pay-by-CLCU billing method and the bound ' +
    'CLB cannot change after creation: CCM fails every sync until the annotation is reverted. For NLB Services: the ' +
    "ip-version annotation against the NLB's AddressIpVersion, and server-group-type against the type of a user " +
    'server group bound by vgroup-port.',
  remediation:
    'Revert the annotation to what the CLB has: remove resource-group-id (the resource group cannot change), ' +
    'remove spec or set instance-charge-type to PayByCLCU on a pay-by-CLCU CLB; to change the address type or the ' +
    `CLB a Service is bound to, delete the Service and recreate it. ${DOC_URL.troubleshooting}`,
  source:
    `${SEED.troubleshooting} rows "can not change ResourceGroupId once created", "instanceChargeType of loadbalancer ` +
    'is PayByCLCU", "can not change LoadBalancer AddressType once created", "service has been associated with ip"; ' +
    `${SEED.lbConsiderations} "How to replace the SLB instance for a service"; CCM ` +
    'pkg/controller/service/clbv1/loadbalancer.go Update, model_applier.go isLoadBalancerReusable; ' +
    'pkg/controller/service/nlbv2/loadbalancer.go Update ("AddressIpVersion cannot be changed"), ' +
    'nlbv2/model_applier.go buildServerGroupCreateAndUpdateActions ("ServerGroupType of user managed server group")',
  scope: 'service',
  needs: ['kubernetes', 'slb'],
  applies: ({ service, needClb: clb }) => clb && !service.deletionTimestamp && asksForImmutable(service),
  check(se, out, r, ctx) {
    const { service } = se;
    const a = service.annotations;
    const addressType = getLbAnnotation(a, LB_ANNOTATION.addressType);
    const resourceGroup = getLbAnnotation(a, LB_ANNOTATION.resourceGroupId);
    const spec = getLbAnnotation(a, LB_ANNOTATION.spec);
    const chargeType = getLbAnnotation(a, LB_ANNOTATION.instanceChargeType);
    const reused = se.reusedLbId;
    const ref = serviceRef(se);
    const { cluster } = se.cluster;
    const found = ctx.index.clbOf(se);
    if (!found.entry) {
      out.push(
        r.skipped(
          ref,
          `${ref.id} has no CLB yet: nothing to compare (see LB_NOT_FOUND_FOR_SERVICE, SERVICE_LB_PENDING)`,
        ),
      );
      return;
    }
    const clb = found.entry.clb;
    const items: string[] = [];
    const unknown: string[] = [];
    if (addressType && !reused && addressType !== clb.addressType)
      items.push(
        `address-type ${addressType} on ${clb.addressType} CLB: "can not change LoadBalancer AddressType once created"`,
      );
    if (resourceGroup) {
      if (!clb.resourceGroupId) unknown.push(`the resource group of CLB ${clb.loadBalancerId} was not read`);
      else if (resourceGroup !== clb.resourceGroupId)
        items.push(
          `resource-group-id ${resourceGroup} on a CLB in ${clb.resourceGroupId}: "can not change ResourceGroupId once created"`,
        );
    }
    if (clb.instanceChargeType === 'PayByCLCU') {
      if (chargeType === 'PayBySpec')
        items.push(
          'instance-charge-type PayBySpec on a PayByCLCU CLB: "User does not have permission modify InstanceChargeType to spec"',
        );
      else if (spec && !chargeType) {
        const modern = ctx.index.ccmAtLeast(
          cluster.ccmVersion,
          CCM_FEATURES.payBySpecOnlySpecUpdates.sinceVersion,
        );
        if (modern === false)
          items.push(
            `spec ${spec} on a PayByCLCU CLB with CCM ${cluster.ccmVersion}: "instanceChargeType of loadbalancer is PayByCLCU"`,
          );
        else if (modern === undefined)
          unknown.push('the CCM version is unknown (spec on a PayByCLCU CLB fails before v2.4.0)');
      }
    }
    const externalIpType = getLbAnnotation(a, LB_ANNOTATION.externalIpType);
    if (reused && found.by === 'id' && externalIpType !== 'eip') {
      const ips = service.ingress.map((i) => i.ip).filter((ip): ip is string => !!ip);
      if (ips.length > 0 && clb.address && !ips.includes(clb.address))
        items.push(
          `loadbalancer-id ${reused} (address ${clb.address}) but the Service is bound to ${ips.join(', ')}: "cannot be bound to ip"`,
        );
    }
    const figures = {
      loadBalancerId: clb.loadBalancerId,
      ...(clb.instanceChargeType ? { instanceChargeType: clb.instanceChargeType } : {}),
      immutableChanges: items.length,
    };
    if (items.length > 0)
      out.push(r.fail(ref, `${ref.id} on CLB ${clb.loadBalancerId}: ${items.join('; ')}`, { figures }));
    else if (unknown.length > 0) out.push(r.skipped(ref, unknown.join('; '), figures));
    else
      out.push(
        r.pass(ref, `${ref.id}: its annotations match what CLB ${clb.loadBalancerId} can keep`, figures),
      );
  },
});

/** Whether an NLB Service has an annotation the NLB part compares with its NLB or its bound server groups. */
function asksForNlbImmutable(service: K8sService): boolean {
  return (
    !!getLbAnnotation(service.annotations, NLB_ANNOTATION.ipVersion) ||
    (reusedLoadBalancerId(service) !== undefined && !!getLbAnnotation(service.annotations, LB_ANNOTATION.vgroupPort))
  );
}

/**
 * The NLB part: what an NLB Service asks to change that CCM cannot change, so every sync fails (research/nlb.md 2):
 * - `ip-version` that is not the NLB's `AddressIpVersion` (`nlbImmutableChangeErrors`; nlbv2/loadbalancer.go Update:
 *   "AddressIpVersion cannot be changed");
 * - a `server-group-type` annotation that is not the type of a user server group `vgroup-port` binds on a reused NLB
 *   (nlbv2/model_applier.go buildServerGroupCreateAndUpdateActions: "ServerGroupType of user managed server group %s
 *   should be [%s], but [%s]"; CCM recreates only its own groups on a type change).
 * `ResourceGroupId` is immutable too; the snapshot does not keep an NLB's resource group, so it is not judged.
 * Skipped naming the `nlb` gap where the region's NLBs were not read, and when there is no NLB yet.
 */
const nlbPart = nlbServicePart(clbPart, {
  applies: ({ service }) => !service.deletionTimestamp && asksForNlbImmutable(service),
  check(se, out, r, ctx) {
    const { service } = se;
    const ref = serviceRef(se);
    const read = nlbOfServiceOrSkip(se, ref, out, r, ctx);
    if (!read) return;
    const nlb = read.found.nlb;
    if (!nlb) {
      out.push(r.skipped(ref, `${ref.id} has no NLB yet: nothing to compare (see LB_NOT_FOUND_FOR_SERVICE, SERVICE_LB_PENDING)`));
      return;
    }
    const items = nlbImmutableChangeErrors(service, nlb).map((e) => `ip-version: "${e}"`);
    // CCM sets a local group's type only from the annotation (setServerGroupAttributeFromAnno): without it, any type.
    const sgType = nlbServerGroupType(service);
    if (getLbAnnotation(service.annotations, NLB_ANNOTATION.serverGroupType) && !('error' in sgType))
      for (const port of service.ports) {
        const bound = nlbVGroupPortBinding(service, port.port);
        if (!('id' in bound) || bound.id === undefined) continue;
        const group = read.view.groupById.get(bound.id);
        if (group && group.type.toLowerCase() !== sgType.type.toLowerCase())
          items.push(
            `server-group-type ${sgType.type} on user server group ${bound.id} of type ${group.type}: "ServerGroupType of user managed server group ${bound.id} should be [${sgType.type}], but [${group.type}]"`,
          );
      }
    const figures = {
      loadBalancerId: nlb.loadBalancerId,
      kind: 'NLB',
      ...(nlb.addressIpVersion ? { addressIpVersion: nlb.addressIpVersion } : {}),
      immutableChanges: items.length,
    };
    if (items.length > 0) out.push(r.fail(ref, `${ref.id} on NLB ${nlb.loadBalancerId}: ${items.join('; ')}`, { figures }));
    else out.push(r.pass(ref, `${ref.id}: its annotations match what NLB ${nlb.loadBalancerId} can keep`, figures));
  },
});

/** A CLB or NLB Service whose annotations ask CCM to change what cannot change on its load balancer. */
export const serviceImmutableChangeRule = combinedCheck(clbPart, nlbPart);
