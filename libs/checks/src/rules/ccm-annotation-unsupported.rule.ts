import { type PassText } from '../result.util';
import { parseCcmVersion, unsupportedAnnotations } from '@app/domain';
import { scopedCheck } from '../check-scope';
import { DOC_URL, SEED } from '../doc-links.constants';
import { clusterRef, listSome, serviceRef } from '../result.util';

/** A Service whose annotations CCM supports: its message (built when read). */
const supportedText: PassText<{ ccmVersion: string }> = (ref, { ccmVersion }) => `${ref.id}: every annotation is supported by CCM ${ccmVersion}`;

/**
 * A LoadBalancer Service uses an annotation whose documented minimum CCM version (ACK annotation doc
 * column, `CLB_ANNOTATION_MIN_VERSIONS` / `NLB_ANNOTATION_MIN_VERSIONS` in `@app/domain`) is newer than the
 * cluster's CCM: the annotation silently does not take effect (seeds 000/001 "What to do if a service
 * annotation does not take effect"). The cluster is skipped when its CCM version is unknown.
 */
export const ccmAnnotationUnsupportedRule = scopedCheck({
  id: 'CCM_ANNOTATION_UNSUPPORTED',
  title: 'Service annotation needs a newer CCM than the cluster runs',
  category: 'version',
  resourceKind: 'Service',
  defaultSeverity: 'warning',
  description:
    'Compares every CLB/NLB annotation of each LoadBalancer Service with the minimum CCM version the ACK ' +
    'annotation documentation gives for it. Older CCM versions ignore annotations they do not know.',
  remediation:
    'Make sure that your CCM version meets the version requirements of the annotation: upgrade the ' +
    'cloud-controller-manager component (Upgrade the CCM component), or remove the annotation. ' +
    DOC_URL.clbAnnotations,
  source:
    `${SEED.serviceFaq} "What to do if a service annotation does not take effect"; ${SEED.serviceFaqOld} same ` +
    'section; ACK doc "Add annotations to the YAML file of a Service to configure CLB instances" and "Configure NLB ' +
    'using annotations" (CCM notes 3b (docs/sources.md#ccm-3))',
  scope: 'cluster',
  needs: ['kubernetes'],
  check(ce, out, r, ctx) {
    const { cluster } = ce;
    const version = cluster.ccmVersion;
    if (!version || !parseCcmVersion(version)) {
      const why = version
        ? `CCM version "${version}" of cluster ${cluster.clusterId} does not parse`
        : cluster.addons
          ? `cluster ${cluster.clusterId} lists no cloud-controller-manager add-on version`
          : `add-ons of cluster ${cluster.clusterId} were not read`;
      out.push(r.skipped(clusterRef(cluster), `CCM version unknown: ${why}`));
      return;
    }
    for (const se of ce.services) {
      if (!se.kind) continue;
      const { service } = se;
      const ref = serviceRef(se);
      const missing = unsupportedAnnotations(service.annotations, version, se.kind.id, ctx.index.ccmAtLeast) ?? [];
      if (missing.length === 0) {
        out.push(
          r.pass(ref, supportedText, {
            ccmVersion: version,
          }),
        );
        continue;
      }
      const items = missing.map((m) => `${m.key} (needs ${m.minimumVersion})`);
      out.push(
        r.fail(
          ref,
          `${ref.id} uses ${missing.length} annotation(s) that CCM ${version} does not support: ${listSome(items, 3)}`,
          {
            figures: {
              ccmVersion: version,
              annotations: missing.map((m) => m.key),
              minimumVersions: missing.map((m) => m.minimumVersion),
            },
          },
        ),
      );
    }
  },
});
