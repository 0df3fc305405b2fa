import { ANNOTATION_BACKEND_TYPE } from '@app/domain';
import { scopedCheck } from '../check-scope';
import { DOC_URL, SEED } from '../doc-links.constants';
import { serviceRef } from '../result.util';

/**
 * A LoadBalancer Service annotated `service.beta.kubernetes.io/backend-type: eni` in a Flannel cluster: Flannel
 * pod IPs are not ENI addresses, so CCM fails with "can not find eniid for ip x.x.x.x in vpc vpc-xxxx"
 * (seed 002; `updateVServerGroupENIBackendID`, pkg/controller/service/clbv1/vgroups.go). Scope: Services with the
 * annotation set to `eni`; Terway clusters pass; skipped when the network plugin is unknown.
 */
export const serviceEniOnFlannelRule = scopedCheck({
  id: 'SERVICE_ENI_ON_FLANNEL',
  title: 'backend-type eni on a Flannel cluster',
  category: 'configuration',
  resourceKind: 'Service',
  defaultSeverity: 'critical',
  description:
    'Checks every LoadBalancer Service annotated service.beta.kubernetes.io/backend-type: eni against the network ' +
    'plugin of its cluster. Flannel does not support ENI mode: CCM cannot find an ENI for the pod IPs and the ' +
    'Service never gets backends.',
  remediation:
    'Remove the service.beta.kubernetes.io/backend-type: eni annotation from the Service (Flannel clusters use ' +
    `ECS backends: Local or Cluster mode). ${DOC_URL.troubleshooting}`,
  source:
    `${SEED.troubleshooting} "can not find eniid for ip x.x.x.x in vpc vpc-xxxx"; ${SEED.serviceFaqClb} same row; ` +
    'CCM pkg/controller/service/clbv1/vgroups.go updateVServerGroupENIBackendID',
  scope: 'service',
  needs: ['kubernetes'],
  applies: ({ service, needClb: clb, needNlb: nlb }) =>
    (clb || nlb) && service.annotations[ANNOTATION_BACKEND_TYPE] === 'eni',
  check(se, out, r) {
    const ref = serviceRef(se);
    const { cluster } = se.cluster;
    const plugin = cluster.networkPlugin;
    if (plugin === 'unknown') {
      out.push(
        r.skipped(
          ref,
          `network plugin of cluster ${cluster.clusterId} is unknown${cluster.addons ? '' : ' (add-ons were not read)'}`,
        ),
      );
    } else if (plugin === 'flannel') {
      out.push(
        r.fail(
          ref,
          `${ref.id} asks for ENI backends but cluster ${cluster.clusterId} uses Flannel: CCM fails with "can not find eniid for ip"`,
          {
            figures: { networkPlugin: plugin },
          },
        ),
      );
    } else {
      out.push(r.pass(ref, `${ref.id} uses ENI backends on a ${plugin} cluster`, { networkPlugin: plugin }));
    }
  },
});
