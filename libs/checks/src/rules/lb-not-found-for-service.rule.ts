import {
  LABEL_SERVICE_LOADBALANCER_ID,
  TAG_CCM_OWNER,
  nlbPointers,
} from '@app/domain';
import { combinedCheck, nlbServicePart, scopedCheck } from '../check-scope';
import { nlbOfServiceOrSkip } from './nlb-quota.util';
import { DOC_URL, SEED } from '../doc-links.constants';
import { type PassText, serviceRef } from '../result.util';

/** A Service whose load balancer CCM finds: its message (built when read); `kind` is `CLB` or `NLB`. */
const foundText: PassText<{ loadBalancerId: string; foundBy: string }, string> = (ref, { loadBalancerId, foundBy }, kind) =>
  `${ref.id} uses ${kind} ${loadBalancerId} (found by ${foundBy})`;

/**
 * A CLB Service whose `loadbalancer-id` annotation names a CLB that does not exist in its account and region,
 * or whose status holds a load balancer address while CCM can find no CLB for it (CCM's `FindLoadBalancer`: the
 * annotation, else the tag `kubernetes.do.not.delete` = default LB name, else the name = default LB name). CCM
 * then fails every sync with "alicloud: can not find loadbalancer, but it's defined in service" (v1.9.3: "not
 * able to find loadbalancer named [%s] in openapi"), seed 002 row 4. A Service without an address and without a
 * CLB passes here (CCM will create one; SERVICE_LB_PENDING reports it if it does not). When a CLB of the region
 * holds the Service's address but lost its tag, the message names it.
 */
const clbPart = scopedCheck({
  id: 'LB_NOT_FOUND_FOR_SERVICE',
  title: 'Service points at a CLB or NLB that does not exist',
  category: 'ownership',
  resourceKind: 'Service',
  defaultSeverity: 'critical',
  description:
    'Resolves the CLB of every CLB Service the way CCM does (loadbalancer-id annotation, then the ' +
    'kubernetes.do.not.delete tag, then the default name). A Service that names a missing CLB, or that has an ' +
    'EXTERNAL-IP while no CLB can be found, fails to sync at every reconcile.',
  remediation:
    "Search for the CLB instance in the Server Load Balancer console using the service's EXTERNAL-IP. If the CLB " +
    'instance no longer exists and the service is not needed, delete the service. If the CLB instance exists and ' +
    'was created manually, add the service.beta.kubernetes.io/alibaba-cloud-loadbalancer-id annotation. If the CLB ' +
    'instance was created by CCM, add the kubernetes.do.not.delete tag (value: "a" + the Service UID without ' +
    `dashes, first 32 characters) to it. ${DOC_URL.troubleshooting}`,
  source:
    `${SEED.troubleshooting} "alicloud: not able to find loadbalancer ... or alicloud: can not find loadbalancer, ` +
    `but it's defined in service"; ${SEED.serviceFaqOld} same row (v1.9.3 wording); ${SEED.serviceFaq} "How to ` +
    'enable SLB renaming for older CCM versions"; CCM pkg/provider/alibaba/slb/loadbalancer.go FindLoadBalancer',
  scope: 'service',
  needs: ['kubernetes', 'slb'],
  applies: (se) => se.needClb,
  check(se, out, r, ctx) {
    const { service } = se;
    const { account, region } = se.cluster;
    const ref = serviceRef(se);
    const found = ctx.index.clbOf(se);
    const reused = se.reusedLbId;
    if (found.entry) {
      out.push(
        r.pass(ref, foundText, {
          loadBalancerId: found.entry.clb.loadBalancerId,
          foundBy: found.by,
        }, 'CLB'),
      );
      return;
    }
    if (reused) {
      const elsewhere = ctx.index.clbById.get(reused);
      out.push(
        r.fail(
          ref,
          `${ref.id} names CLB ${reused} in its loadbalancer-id annotation, which does not exist in account ` +
            `${account.accountId} / ${region.regionId}${elsewhere ? ` (a CLB with that id is in ${elsewhere.account.accountId} / ${elsewhere.region.regionId})` : ''}`,
          { figures: { loadBalancerId: reused, reason: 'annotation' } },
        ),
      );
      return;
    }
    const addresses = service.ingress.map((i) => i.ip ?? i.hostname).filter((a): a is string => !!a);
    if (addresses.length === 0 || service.deletionTimestamp) {
      out.push(
        r.pass(ref, `${ref.id} has no CLB and no load balancer address yet: CCM will create one`, {
          foundBy: 'none',
        }),
      );
      return;
    }
    const labelled = service.labels[LABEL_SERVICE_LOADBALANCER_ID];
    const byAddress = (region.loadBalancers ?? []).find(
      (c) => c.address !== undefined && addresses.includes(c.address),
    );
    const hint = byAddress
      ? `; CLB ${byAddress.loadBalancerId} holds ${byAddress.address} but ${byAddress.tags[TAG_CCM_OWNER] !== undefined ? `is tagged ${TAG_CCM_OWNER}=${byAddress.tags[TAG_CCM_OWNER]}` : `has no ${TAG_CCM_OWNER} tag`}`
      : '';
    out.push(
      r.fail(
        ref,
        `${ref.id} has the load balancer address ${addresses.join(', ')} but no CLB in ${region.regionId} is tagged ` +
          `${TAG_CCM_OWNER}=${se.defaultLbName} or named so${labelled ? ` (label ${LABEL_SERVICE_LOADBALANCER_ID}=${labelled})` : ''}` +
          `${hint}: CCM fails with "can not find loadbalancer, but it's defined in service"`,
        {
          figures: {
            reason: 'status',
            addresses,
            defaultLbName: se.defaultLbName,
            ...(labelled ? { labelledLoadBalancerId: labelled } : {}),
            ...(byAddress ? { loadBalancerWithAddress: byAddress.loadBalancerId } : {}),
          },
        },
      ),
    );
  },
});

/**
 * The NLB part: an NLB Service whose `...-loadbalancer-id` names an NLB missing from its account and
 * region, or that carries what a synced Service carries (the `service.k8s.alibaba/loadbalancer-id` label, the status
 * hostname = the NLB's DNS name) while CCM's `FindNLB` (id, owner tag, default name) finds none: every sync then
 * fails "alicloud: can not find loadbalancer, but it's defined in service" (research/nlb.md 3.3; e2e
 * test/e2e/testcase/service/nlbv2/loadbalancer.go "auto-created nlb & delete tag & change name"). An NLB Service
 * that never synced (no label, no hostname) passes here (SERVICE_LB_PENDING reports it). Skipped naming the `nlb`
 * gap when the region's NLBs were not read.
 */
const nlbPart = nlbServicePart(clbPart, {
  check(se, out, r, ctx) {
    const ref = serviceRef(se);
    const read = nlbOfServiceOrSkip(se, ref, out, r, ctx);
    if (!read) return;
    const { found, view } = read;
    if (found.nlb) {
      out.push(r.pass(ref, foundText, { loadBalancerId: found.nlb.loadBalancerId, foundBy: found.by }, 'NLB'));
      return;
    }
    const reused = se.reusedLbId;
    if (reused) {
      out.push(r.fail(ref, `${ref.id} names NLB ${reused} in its loadbalancer-id annotation, which does not exist in ${se.cluster.region.regionId}: CCM fails "can not find loadbalancer"`, { figures: { loadBalancerId: reused, kind: 'NLB' } }));
      return;
    }
    const { labelId, hostname } = nlbPointers(se.service);
    if (!labelId && !hostname) {
      out.push(r.pass(ref, `${ref.id} has no NLB yet and points at none: CCM will create one`));
      return;
    }
    const existing = (labelId ? view.nlbById.get(labelId) : undefined) ?? (hostname ? view.nlbByDnsName.get(hostname) : undefined);
    const what = existing
      ? `NLB ${existing.loadBalancerId} still exists but lost its ${TAG_CCM_OWNER} tag and default name, so CCM cannot find it`
      : `the NLB it points at (${[labelId ? `label ${labelId}` : '', hostname ? `hostname ${hostname}` : ''].filter(Boolean).join(', ')}) no longer exists`;
    out.push(
      r.fail(ref, `${ref.id} was synced to an NLB, but ${what}: CCM fails "alicloud: can not find loadbalancer, but it's defined in service"`, {
        figures: { kind: 'NLB', ...(labelId ? { labelLoadBalancerId: labelId } : {}), ...(hostname ? { hostname } : {}), ...(existing ? { loadBalancerId: existing.loadBalancerId } : {}) },
      }),
    );
  },
});

/** A Service points at a CLB or NLB that does not exist (or that CCM can no longer find). */
export const lbNotFoundForServiceRule = combinedCheck(clbPart, nlbPart);
