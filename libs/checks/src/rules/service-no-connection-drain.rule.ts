import {
  LB_ANNOTATION,
  annotationMinimumVersion,
  getLbAnnotation,
  lbAnnotationKey,
  listenerProtocolOf,
  parseProtocolPort,
} from '@app/domain';
import { scopedCheck } from '../check-scope';
import { DOC_URL, SEED } from '../doc-links.constants';
import { count, serviceRef } from '../result.util';

/**
 * A CLB Service whose pods are rolled (it selects pods) and that has layer-4 (TCP/UDP) listeners, without
 * `connection-drain: "on"`: seed 002 "503 error during application updates ... Connection draining is not
 * configured on the CLB listener ... CLB may route traffic to pods that are already shutting down"; seeds 000/003
 * "How to ensure that a LoadBalancer can gracefully close existing connections". CCM applies connection drain to
 * TCP/UDP listeners only (`Is4LayerProtocol`, pkg/controller/service/clbv1/listeners.go). Info: best practice;
 * the remediation adds that CCM v2.0.1 is needed for the annotation.
 */
export const serviceNoConnectionDrainRule = scopedCheck({
  id: 'SERVICE_NO_CONNECTION_DRAIN',
  title: 'No connection draining on a Service whose pods roll: 503s during updates',
  category: 'configuration',
  resourceKind: 'Service',
  defaultSeverity: 'info',
  description:
    'Checks CLB Services with a pod selector and TCP/UDP listeners for the connection-drain annotation. Without ' +
    'draining, the CLB keeps sending connections to backends being removed during a rolling update: clients see ' +
    '503 errors and resets.',
  remediation:
    'Configure connection draining on the CLB listener: service.beta.kubernetes.io/alibaba-cloud-loadbalancer-' +
    'connection-drain: "on" with ...-connection-drain-timeout (seconds; CCM v2.0.1 or later). Configure readinessProbe ' +
    'and preStop on the pods, and set terminationGracePeriodSeconds at least 30 seconds longer than preStop. ' +
    DOC_URL.troubleshooting,
  source:
    `${SEED.troubleshooting} "503 error during application updates"; ${SEED.serviceFaq} "How to ensure that a ` +
    'LoadBalancer can gracefully close existing connections ..."; CCM pkg/controller/service/clbv1/listeners.go ' +
    '(connection drain on layer-4 listeners)',
  scope: 'service',
  needs: ['kubernetes'],
  applies: ({ service, needClb: clb }) =>
    clb && service.selector !== undefined && Object.keys(service.selector).length > 0,
  check(se, out, r, ctx) {
    const { service } = se;
    const parsed = parseProtocolPort(getLbAnnotation(service.annotations, LB_ANNOTATION.protocolPort));
    const entries = 'error' in parsed ? [] : parsed.entries;
    const layer4 = service.ports.filter((p) => {
      const proto = listenerProtocolOf(entries, p);
      return proto === 'tcp' || proto === 'udp';
    });
    if (layer4.length === 0) return;
    const ref = serviceRef(se);
    const drain = getLbAnnotation(service.annotations, LB_ANNOTATION.connectionDrain);
    const timeout = getLbAnnotation(service.annotations, LB_ANNOTATION.connectionDrainTimeout);
    if (drain === 'on') {
      out.push(
        r.pass(
          ref,
          `${ref.id} drains connections on its TCP/UDP listeners${timeout ? ` (${timeout} s)` : ''}`,
          {
            connectionDrain: 'on',
          },
        ),
      );
      return;
    }
    const version = se.cluster.cluster.ccmVersion;
    const minimum =
      annotationMinimumVersion(lbAnnotationKey(LB_ANNOTATION.connectionDrain), 'clb')?.minimumVersion ??
      'v2.0.1';
    const supported = ctx.index.ccmAtLeast(version, minimum);
    out.push(
      r.fail(
        ref,
        `${ref.id} rolls pods behind ${count(layer4.length, 'TCP/UDP listener')} without connection draining` +
          `${drain ? ` (connection-drain is "${drain}")` : ''}: clients get 503s and resets during updates` +
          (supported === false ? `; CCM ${version} needs ${minimum} for the annotation` : ''),
        { figures: { layer4Listeners: layer4.length, ...(version ? { ccmVersion: version } : {}) } },
      ),
    );
  },
});
