import { CCM_FEATURES } from '@app/domain';
import { scopedCheck } from '../check-scope';
import { DOC_URL, SEED } from '../doc-links.constants';
import { notReadReason, type PassText, serviceRef } from '../result.util';

/** A cluster whose CCM supports NLB Services: the message of each of its NLB Services (built when read; `ref` is the Service's). */
const supportsText: PassText<{ ccmVersion: string }> = (ref, { ccmVersion }) =>
  `CCM ${ccmVersion} of cluster ${ref.clusterId ?? ''} supports NLB Services (since ${CCM_FEATURES.nlbController.sinceVersion})`;

/**
 * An NLB-class Service (`spec.loadBalancerClass: alibabacloud.com/nlb`) in a cluster whose CCM predates NLB support
 * (`CCM_FEATURES.nlbController`, v2.5.0: ACK "Configure an NLB instance by using annotations"; code: first tag
 * v2.5.1): no controller takes it (the CLB controller skips every Service with a class, `NeedCLB`), so it stays
 * pending. Skipped when the cluster's add-ons (the CCM version) were not read or the version does not parse.
 */
export const nlbCcmUnsupportedRule = scopedCheck({
  id: 'NLB_CCM_UNSUPPORTED',
  title: 'NLB Service in a cluster whose CCM predates NLB support',
  category: 'version',
  resourceKind: 'Service',
  defaultSeverity: 'critical',
  description:
    'Finds Services of loadBalancerClass alibabacloud.com/nlb in clusters whose cloud-controller-manager is older ' +
    'than v2.5.0: no controller takes them, so no NLB is created and the Service stays pending.',
  remediation:
    'Upgrade the cloud-controller-manager add-on to v2.5.0 or later (Kubernetes 1.24 or later is required for NLB ' +
    `Services), or use a CLB Service (no loadBalancerClass) on this cluster. ${DOC_URL.nlbAnnotations}`,
  source: `${SEED.nlbAnnotations} (CCM v2.5.0, Kubernetes 1.24); ${SEED.lbConsiderations}; CCM pkg/controller/helper/service_utils.go NeedNLB / NeedCLB, pkg/controller/service/nlbv2/nlb_controller.go (commit 260c65575, first tag v2.5.1)`,
  scope: 'service',
  needs: ['kubernetes'],
  applies: ({ service, needNlb: nlb }) => nlb && !service.deletionTimestamp,
  check(se, out, r, ctx) {
    const ref = serviceRef(se);
    const c = se.cluster.cluster;
    const version = c.ccmVersion;
    const since = CCM_FEATURES.nlbController.sinceVersion;
    if (version === undefined) {
      out.push(r.skipped(ref, c.addons ? `the CCM version of cluster ${c.clusterId} is unknown (no cloud-controller-manager add-on)` : notReadReason(ctx.index, `add-ons of cluster ${c.clusterId}`, 'addons', c.accountId, c.regionId, c.clusterId)));
      return;
    }
    const ok = ctx.index.ccmAtLeast(version, since);
    if (ok === undefined) {
      out.push(r.skipped(ref, `the CCM version ${version} of cluster ${c.clusterId} does not parse`, { ccmVersion: version }));
      return;
    }
    if (!ok) out.push(r.fail(ref, `NLB Service ${ref.id} is in cluster ${c.clusterId}, whose CCM ${version} predates NLB support (${since}): no controller takes it`, { figures: { ccmVersion: version, sinceVersion: since } }));
    else out.push(r.pass(ref, supportsText, { ccmVersion: version }));
  },
});
