import {
  TAG_CCM_OWNER,
  TAG_CLUSTER_ID,
  TAG_REUSED_BY_USER,
  type Nlb,
} from '@app/domain';
import { combinedCheck, scopedCheck } from '../check-scope';
import { DOC_URL, SEED } from '../doc-links.constants';
import type { ServiceEntry } from '../fleet-index';
import { nlbNotReadReason, nlbOfService, nlbServicesOf, regionNlbView } from '../nlb-index';
import { type PassText, regionRef } from '../result.util';
import { clbRef, nlbRef } from '../lb-refs';

/** A load balancer that carries CCM's owner tag: its message (built when read); `kind` is `CLB` or `NLB`. */
const taggedText: PassText<{ ownerTag: string }, string> = (ref, { ownerTag }, kind) =>
  `${kind} ${ref.id} carries ${TAG_CCM_OWNER}=${ownerTag}: it can be renamed safely`;

/** The default LB name CCM gives a CLB: `"a"` + 31 hex characters of the Service UID. */
const DEFAULT_NAME_RE = /^a[0-9a-f]{31}$/;

/**
 * A CLB that CCM created without the `kubernetes.do.not.delete` tag: CLBs created by CCM v1.9.3.10 and earlier
 * (seeds 000/001/003 "How to enable SLB renaming for older CCM versions"). CCM finds such a CLB only by its name
 * (the Service's default LB name), so renaming it in the console makes CCM lose it: the Service fails with "can
 * not find loadbalancer" or gets a new CLB. Recognised by the name: the default LB name of a Service, or the
 * `a` + 31 hex pattern. CLBs that carry the tag pass; reused CLBs and console CLBs are out of scope.
 */
const clbPart = scopedCheck({
  id: 'LB_RENAME_TAG_MISSING',
  title: 'CCM-created CLB or NLB without kubernetes.do.not.delete tag (cannot be renamed)',
  category: 'ownership',
  resourceKind: 'LoadBalancer',
  defaultSeverity: 'warning',
  description:
    'Finds CLBs that CCM created (named with a Service default LB name) but that lack the kubernetes.do.not.delete ' +
    'tag CCM writes since v1.9.3.10, and NLBs that CCM finds for an NLB Service only by that name (CCM before ' +
    'v2.11.2 tagged a new NLB in a second call, which can fail). Without the tag CCM can only find the load ' +
    'balancer by name: renaming it breaks the Service.',
  remediation:
    'Add the tag to the CLB in the SLB console: key kubernetes.do.not.delete, value from kubectl get svc -n ' +
    '${namespace} ${service} -o jsonpath="{.metadata.uid}"|awk -F "-" \'{print "kubernetes.do.not.delete: ' +
    `"substr("a"$1$2$3$4$5,1,32)}'. Only then rename the CLB. For an NLB, add the same tag and ack.aliyun.com ` +
    `(the cluster id) in the NLB console (Tags) before renaming it. ${DOC_URL.serviceFaq}`,
  source:
    `${SEED.serviceFaq} "How to enable SLB renaming for older CCM versions"; ${SEED.serviceFaqOld} "How do I rename an ` +
    `SLB instance when the CCM version is V1.9.3.10 or earlier?"; ${SEED.serviceFaqClb} same section; CCM ` +
    'pkg/provider/alibaba/slb/loadbalancer.go FindLoadBalancer (by tag, then by name); NLB: ' +
    'pkg/provider/alibaba/nlb/loadbalancer.go FindNLB (id annotation, then the tag, then the default name), CCM ' +
    'commit a3cbd52ec (tags sent on CreateLoadBalancer from tag v2.11.2)',
  scope: 'clb',
  needs: ['slb'],
  check({ clb, account, region }, out, r, ctx) {
    const ref = clbRef(ctx.index, clb);
    const owner = clb.tags[TAG_CCM_OWNER];
    if (owner !== undefined) {
      out.push(
        r.pass(ref, taggedText, { ownerTag: owner }, 'CLB'),
      );
      return;
    }
    const candidates = ctx.index.servicesByDefaultLbName().get(clb.name) ?? [];
    const owners = candidates.filter(
      (s) =>
        s.cluster.account.accountId === account.accountId && s.cluster.region.regionId === region.regionId,
    );
    if (owners.length === 0 && !DEFAULT_NAME_RE.test(clb.name)) return;
    // A Service that reuses the CLB explicitly makes it a reused CLB, not a CCM-created one.
    if (
      clb.tags[TAG_REUSED_BY_USER] !== undefined ||
      owners.some((s) => s.reusedLbId === clb.loadBalancerId)
    )
      return;
    const svc = owners[0];
    out.push(
      r.fail(
        ref,
        `CLB ${clb.loadBalancerId} is named ${clb.name}, a CCM default LB name` +
          `${svc ? ` (Service ${svc.service.namespace}/${svc.service.name} in cluster ${svc.cluster.cluster.clusterId})` : ' (no Service with that UID was found)'}, ` +
          `but has no ${TAG_CCM_OWNER} tag: renaming it makes CCM lose it (add tag ${TAG_CCM_OWNER}=${clb.name}, ` +
          "what the seed's kubectl | awk command prints for the Service UID)",
        {
          figures: {
            name: clb.name,
            ...(svc
              ? {
                  service: `${svc.service.namespace}/${svc.service.name}`,
                  clusterId: svc.cluster.cluster.clusterId,
                }
              : {}),
          },
        },
      ),
    );
  },
});

/**
 * The NLB part: an NLB without the `kubernetes.do.not.delete` tag that CCM finds for a live NLB Service
 * only by its name, the Service's default LB name (`FindNLB`, pkg/provider/alibaba/nlb/loadbalancer.go: the `id`
 * annotation, then `ListLoadBalancers` by the owner tag, then by `LoadBalancerNames=[default name]`; research/nlb.md
 * 3.2). CCM before open-source tag v2.11.2 (commit a3cbd52ec) created an NLB and tagged it in a second call; when
 * that call failed, or the tag was removed by hand, renaming the NLB (console, or the `name` annotation) makes CCM
 * lose it and create another NLB for the Service (research/nlb.md 3.3). Tagged NLBs pass. Out of scope (no result):
 * reused NLBs (CCM never tags them, research/nlb.md 3.1), console NLBs, and untagged NLBs no Service finds: an NLB
 * kept by `preserve-lb-on-delete` has its tags removed on purpose, and one CCM cannot find at all is
 * LB_NOT_FOUND_FOR_SERVICE's. Skipped: the region's NLBs not read while it has NLB Services (one result per region),
 * and an untagged NLB with a default LB name no read Service finds while some cluster of its region was not read.
 */
const nlbPart = scopedCheck({
  ...clbPart,
  scope: 'region',
  needs: [],
  check(re, out, r, ctx) {
    const services = nlbServicesOf(ctx.index, re.region);
    const view = regionNlbView(ctx.index, re.region);
    if (!view) {
      if (services.length > 0)
        out.push(r.skipped(regionRef(re), nlbNotReadReason(ctx.index, re.account, re.region)));
      return;
    }
    const byName = new Map<Nlb, ServiceEntry>();
    for (const se of services) {
      const found = nlbOfService(ctx.index, se);
      if (found?.by === 'name' && found.nlb && !byName.has(found.nlb)) byName.set(found.nlb, se);
    }
    for (const nlb of re.region.nlbs ?? []) {
      const ref = nlbRef(ctx.index, nlb);
      const owner = nlb.tags[TAG_CCM_OWNER];
      if (owner !== undefined) {
        out.push(
          r.pass(ref, taggedText, { ownerTag: owner }, 'NLB'),
        );
        continue;
      }
      const se = byName.get(nlb);
      if (!se) {
        const unread = DEFAULT_NAME_RE.test(nlb.name ?? '')
          ? ctx.index.clustersNotAllRead(re.account, re.region)
          : undefined;
        if (unread)
          out.push(
            r.skipped(
              ref,
              `cannot search every cluster for a Service that finds NLB ${nlb.loadBalancerId} by its name ${nlb.name}: ${unread}`,
              { name: nlb.name ?? '' },
            ),
          );
        continue;
      }
      const svc = `${se.service.namespace}/${se.service.name}`;
      const clusterId = se.cluster.cluster.clusterId;
      out.push(
        r.fail(
          ref,
          `NLB ${nlb.loadBalancerId} is named ${nlb.name}, the default LB name of NLB Service ${svc} in cluster ${clusterId}, ` +
            `but has no ${TAG_CCM_OWNER} tag: CCM finds it only by that name, so renaming it makes CCM lose it and create ` +
            `another NLB for the Service (add tags ${TAG_CCM_OWNER}=${nlb.name} and ${TAG_CLUSTER_ID}=${clusterId} first; ` +
            'CCM before v2.11.2 tagged a new NLB in a second call, which can have failed)',
          { figures: { name: nlb.name ?? '', service: svc, clusterId } },
        ),
      );
    }
  },
});

/** A CCM-created CLB or NLB that CCM can find only by its name (no `kubernetes.do.not.delete` tag). */
export const lbRenameTagMissingRule = combinedCheck(clbPart, nlbPart);
