import { TAG_CCM_OWNER, TAG_REUSED_BY_USER, reusedLoadBalancerId, type Severity } from '@app/domain';
import { scopedCheck } from '../check-scope';
import { DOC_URL, SEED } from '../doc-links.constants';
import { clbRef } from '../result.util';

const SEVERITY: Severity = 'warning';
const ID = 'LB_RENAME_TAG_MISSING';

/** The default LB name CCM gives a CLB: `"a"` + 31 hex characters of the Service UID. */
const DEFAULT_NAME_RE = /^a[0-9a-f]{31}$/;

/**
 * A CLB that CCM created without the `kubernetes.do.not.delete` tag: CLBs created by CCM v1.9.3.10 and earlier
 * (seeds 000/001/003 "How to enable SLB renaming for older CCM versions"). CCM finds such a CLB only by its name
 * (the Service's default LB name), so renaming it in the console makes CCM lose it: the Service fails with "can
 * not find loadbalancer" or gets a new CLB. Recognised by the name: the default LB name of a Service, or the
 * `a` + 31 hex pattern. CLBs that carry the tag pass; reused CLBs and console CLBs are out of scope.
 */
export const lbRenameTagMissingRule = scopedCheck({
  id: ID,
  title: 'CCM-created CLB without the kubernetes.do.not.delete tag (cannot be renamed)',
  category: 'ownership',
  resourceKind: 'LoadBalancer',
  defaultSeverity: SEVERITY,
  description:
    'Finds CLBs that CCM created (named with a Service default LB name) but that lack the kubernetes.do.not.delete ' +
    'tag CCM writes since v1.9.3.10. Without it CCM can only find the CLB by name: renaming it breaks the Service.',
  remediation:
    'Add the tag to the CLB in the SLB console: key kubernetes.do.not.delete, value from kubectl get svc -n ' +
    '${namespace} ${service} -o jsonpath="{.metadata.uid}"|awk -F "-" \'{print "kubernetes.do.not.delete: ' +
    `"substr("a"$1$2$3$4$5,1,32)}'. Only then rename the CLB. ${DOC_URL.serviceFaq}`,
  source:
    `${SEED.serviceFaq} "How to enable SLB renaming for older CCM versions"; ${SEED.serviceFaqOld} "How do I rename an ` +
    `SLB instance when the CCM version is V1.9.3.10 or earlier?"; ${SEED.serviceFaqClb} same section; CCM ` +
    'pkg/provider/alibaba/slb/loadbalancer.go FindLoadBalancer (by tag, then by name)',
  scope: 'clb',
  needs: ['slb'],
  check({ clb, account, region }, out, r, ctx) {
    const ref = clbRef(clb);
    const owner = clb.tags[TAG_CCM_OWNER];
    if (owner !== undefined) {
      out.push(
        r.pass(ref, `CLB ${clb.loadBalancerId} carries ${TAG_CCM_OWNER}=${owner}: it can be renamed safely`, {
          ownerTag: owner,
        }),
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
      owners.some((s) => reusedLoadBalancerId(s.service) === clb.loadBalancerId)
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
