import {
  ANNOTATION_BACKEND_TYPE,
  CCM_FEATURES,
  serviceTrafficPolicy,
} from '@app/domain';
import { scopedCheck } from '../check-scope';
import { DOC_URL, SEED } from '../doc-links.constants';
import { serviceRef } from '../result.util';

/**
 * A CLB Service in ENI mode with a named (string) `targetPort` on a CCM that cannot resolve it: seeds 001/002/003
 * "The specified Port must be between 1 and 65535. ENI mode does not support string values for targetPort ...
 * or upgrade CCM". The seeds name no version; the v2 rewrite resolves named ports (`CCM_FEATURES.namedTargetPortEni`,
 * v2.0.1). Scope: CLB Services with a string targetPort. ECS modes pass (backends use the NodePort); skipped when the
 * backend mode (add-ons) or the CCM version is unknown.
 */
export const serviceEniStringTargetportRule = scopedCheck({
  id: 'SERVICE_ENI_STRING_TARGETPORT',
  title: 'ENI-mode Service with a string targetPort on a CCM that rejects it',
  category: 'configuration',
  resourceKind: 'Service',
  defaultSeverity: 'critical',
  description:
    'Finds CLB Services whose ports use a named targetPort while the Service runs in ENI mode (pod IPs as backends, ' +
    'on the target port). CCM versions before the v2 rewrite send port 0 and the CLB rejects it.',
  remediation:
    'Change targetPort to an integer in the Service YAML, or upgrade CCM (v2 resolves named target ports). ' +
    DOC_URL.troubleshooting,
  source:
    `${SEED.troubleshooting} "The specified Port must be between 1 and 65535."; ${SEED.serviceFaqOld} and ` +
    `${SEED.serviceFaqClb} same row; ${CCM_FEATURES.namedTargetPortEni.source}`,
  scope: 'service',
  needs: ['kubernetes'],
  applies: ({ needClb: clb }) => clb,
  check(se, out, r, ctx) {
    const { service } = se;
    const named = service.ports
      .filter((p) => typeof p.targetPort === 'string')
      .map((p) => `${p.port}->${String(p.targetPort)}`);
    if (named.length === 0) return;
    const ref = serviceRef(se);
    const { cluster } = se.cluster;
    if (cluster.addons === undefined && (service.annotations[ANNOTATION_BACKEND_TYPE] ?? '') === '') {
      out.push(r.skipped(ref, `add-ons of cluster ${cluster.clusterId} were not read: backend mode unknown`));
      return;
    }
    const mode = serviceTrafficPolicy(service, cluster).policy;
    const figures = { mode, namedTargetPorts: named };
    if (mode !== 'eni') {
      out.push(
        r.pass(
          ref,
          `${ref.id} uses named target ports in ${mode} mode: ECS backends use the NodePort`,
          figures,
        ),
      );
      return;
    }
    const ok = ctx.index.ccmAtLeast(cluster.ccmVersion, CCM_FEATURES.namedTargetPortEni.sinceVersion);
    if (ok === undefined) {
      out.push(
        r.skipped(
          ref,
          `CCM version of cluster ${cluster.clusterId} is unknown: cannot tell whether it resolves named target ports`,
          figures,
        ),
      );
    } else if (ok) {
      out.push(
        r.pass(
          ref,
          `${ref.id} uses named target ports in ENI mode; CCM ${cluster.ccmVersion} resolves them`,
          figures,
        ),
      );
    } else {
      out.push(
        r.fail(
          ref,
          `${ref.id} uses named target ports (${named.join(', ')}) in ENI mode on CCM ${cluster.ccmVersion}: "The specified Port must be between 1 and 65535."`,
          { figures: { ...figures, ccmVersion: cluster.ccmVersion ?? '' } },
        ),
      );
    }
  },
});
