import {
  CCM_FEATURES,
  LB_ANNOTATION,
  TAG_CLUSTER_ID,
  ccmVersionAtLeast,
  getLbAnnotation,
  parseCcmVersion,
  serviceTrafficPolicy,
} from '@app/domain';
import { scopedCheck } from '../check-scope';
import { DOC_URL, SEED } from '../doc-links.constants';
import { clusterRef, listSome } from '../result.util';

/** Version after which CCM no longer creates shared-resource CLBs by default (the v2 rewrite sets a spec or PayByCLCU). */
const V2 = 'v2.0.1';

/**
 * The installed CCM lacks behaviour the cluster relies on (`CCM_FEATURES`, each row cited to the seeds):
 * - no sync events before v1.9.3.276-g372aa98-aliyun, while the cluster has CLB Services (seeds 000/001/003);
 * - no reuse before v1.9.3.105-gfd4e547-aliyun, while a Service reuses a CLB (seeds 000/001/003);
 * - pod-count weights only from v1.9.3.276-g372aa98-aliyun, while a Service runs in Local mode (seeds 000/001/003);
 * - shared-resource CLBs created by default (seed 002 "Older CCM versions create shared CLB instances by default"):
 *   a v1.9.3 CCM that created a shared-resource CLB for a Service without a spec annotation will do so again, and
 *   new ones fail with ShareSlbHaltSales.
 * One result per cluster; skipped when the CCM version or the Kubernetes objects are unknown.
 */
export const ccmVersionBehaviourGapRule = scopedCheck({
  id: 'CCM_VERSION_BEHAVIOUR_GAP',
  title: 'Installed CCM lacks behaviour the cluster relies on',
  category: 'version',
  resourceKind: 'Cluster',
  defaultSeverity: 'warning',
  description:
    "Compares the cluster's CCM version with the versions that introduced sync events, CLB reuse and pod-count " +
    'weights in Local mode, and looks for shared-resource CLBs an old CCM created by default, whenever the ' +
    "cluster's Services rely on that behaviour.",
  remediation:
    'Upgrade the cloud-controller-manager component (Upgrade the CCM component): v1.9.3.276-g372aa98-aliyun or ' +
    'later records sync events and weights Local-mode nodes by pod count, v1.9.3.105-gfd4e547-aliyun or later ' +
    'supports reusing CLBs; current versions never create shared-resource CLBs. In dedicated clusters grant the RAM ' +
    `permissions the new version needs first (see CCM_RAM_PERMISSION_GAP). ${DOC_URL.serviceFaq}`,
  source:
    `${SEED.serviceFaq} "Why are events ... not visible?", "Why does reusing an existing SLB instance fail?", "How ` +
    `are node weights automatically set in Local mode?"; ${SEED.serviceFaqOld} same sections; ${SEED.troubleshooting} ` +
    '"ShareSlbHaltSales" row',
  scope: 'cluster',
  needs: ['kubernetes'],
  check(ce, out, r, ctx) {
    const { cluster } = ce;
    const ref = clusterRef(cluster);
    const version = cluster.ccmVersion;
    if (!version || !parseCcmVersion(version)) {
      out.push(
        r.skipped(
          ref,
          `CCM version unknown: ${version ? `"${version}" does not parse` : cluster.addons ? 'no cloud-controller-manager add-on listed' : 'add-ons were not read'}`,
        ),
      );
      return;
    }
    const clbServices = ce.services.filter((se) => se.needClb);
    const gaps: string[] = [];
    const keys: string[] = [];
    const older = (key: keyof typeof CCM_FEATURES) =>
      ccmVersionAtLeast(version, CCM_FEATURES[key].sinceVersion) === false;
    if (clbServices.length > 0 && older('syncEvents')) {
      keys.push('syncEvents');
      gaps.push(`${CCM_FEATURES.syncEvents.olderBehaviour} (needs ${CCM_FEATURES.syncEvents.sinceVersion})`);
    }
    const reusers = clbServices.filter((se) => se.reusedLbId !== undefined).map((se) => se.service);
    if (reusers.length > 0 && older('reuse')) {
      keys.push('reuse');
      gaps.push(
        `${listSome(
          reusers.map((s) => `${s.namespace}/${s.name}`),
          3,
        )} reuse a CLB: ${CCM_FEATURES.reuse.olderBehaviour} (needs ${CCM_FEATURES.reuse.sinceVersion})`,
      );
    }
    const local = clbServices.filter((se) => serviceTrafficPolicy(se.service, cluster).policy === 'local');
    if (local.length > 0 && older('podCountWeights')) {
      keys.push('podCountWeights');
      gaps.push(
        `${local.length} Local-mode Service(s): ${CCM_FEATURES.podCountWeights.olderBehaviour} (needs ${CCM_FEATURES.podCountWeights.sinceVersion})`,
      );
    }
    if (ccmVersionAtLeast(version, V2) === false && ce.region.loadBalancers) {
      const shared: string[] = [];
      for (const se of clbServices) {
        if (se.reusedLbId || getLbAnnotation(se.service.annotations, LB_ANNOTATION.spec)) continue;
        // CCM's own lookup (tag, then default name): CLBs of CCM <= v1.9.3.10 carry no tag.
        const e = ctx.index.clbOf(se).entry;
        if (!e || e.clb.spec || !e.clb.instanceChargeType || e.clb.instanceChargeType === 'PayByCLCU')
          continue;
        if (e.clb.tags[TAG_CLUSTER_ID] !== undefined && e.clb.tags[TAG_CLUSTER_ID] !== cluster.clusterId)
          continue;
        shared.push(e.clb.loadBalancerId);
      }
      if (shared.length > 0) {
        keys.push('sharedDefault');
        gaps.push(
          `it created shared-resource CLB(s) ${listSome(shared, 3)} for Services without a spec annotation: new Services ` +
            'get the same and fail with ShareSlbHaltSales',
        );
      }
    }
    const figures = { ccmVersion: version, loadBalancerServices: clbServices.length, gaps: keys };
    if (gaps.length === 0) {
      out.push(
        r.pass(
          ref,
          `CCM ${version} of cluster ${cluster.clusterId} has the behaviour its Services rely on`,
          figures,
        ),
      );
    } else {
      out.push(
        r.fail(ref, `CCM ${version} of cluster ${cluster.clusterId}: ${gaps.join('; ')}`, { figures }),
      );
    }
  },
});
