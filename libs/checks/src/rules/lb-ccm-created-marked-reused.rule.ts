import { TAG_CCM_OWNER } from '@app/domain';
import { scopedCheck } from '../check-scope';
import { DOC_URL, SEED } from '../doc-links.constants';
import { serviceRef } from '../result.util';

/**
 * A Service whose `loadbalancer-id` annotation was added to name its own CCM-created CLB (the CLB's
 * `kubernetes.do.not.delete` tag, or for CLBs of CCM <= v1.9.3.10 its name, is the Service's default LB name).
 * Seeds 000/003: "Do not manually edit a service to change an SLB instance that was automatically created by CCM
 * to a reused SLB instance ... When you delete the service, the corresponding SLB instance cannot be automatically
 * deleted." (A reused CLB is never deleted by CCM.) CCM also refuses the reuse of a tagged CLB
 * (LB_REUSE_OF_CCM_CREATED reports the sync failure); this check reports the lifecycle damage. Skipped when the
 * CLB was not read or does not exist.
 */
export const lbCcmCreatedMarkedReusedRule = scopedCheck({
  id: 'LB_CCM_CREATED_MARKED_REUSED',
  title: 'Service marks its own CCM-created CLB as reused',
  category: 'ownership',
  resourceKind: 'Service',
  defaultSeverity: 'warning',
  description:
    'Finds Services whose loadbalancer-id annotation names the CLB CCM created for that very Service. The edit ' +
    'turns a CCM-owned CLB into a "reused" one: deleting the Service no longer deletes the CLB, which then leaks.',
  remediation:
    'Do not manually edit a Service to change its CCM-created CLB to a reused one: delete the ' +
    'service.beta.kubernetes.io/alibaba-cloud-loadbalancer-id annotation (the CLB IP matches the Service ' +
    'EXTERNAL-IP, so CCM finds the CLB by its kubernetes.do.not.delete tag again). If the CLB must outlive the ' +
    `Service, use preserve-lb-on-delete (CCM v2.10.0+) instead. ${DOC_URL.serviceFaq}`,
  source:
    `${SEED.serviceFaq} "Does deleting a service also delete the SLB instance?"; ${SEED.serviceFaqClb} "Service ` +
    `deletion and CLB instances"; ${SEED.troubleshooting} reuse row (delete the annotation when the IP matches); ` +
    'CCM pkg/controller/service/reconcile/annotation/annotations.go GetDefaultLoadBalancerName',
  scope: 'reusedClb',
  needs: ['kubernetes'],
  applies: (se) => se.needClb,
  check({ service: se, clb: { clb } }, out, r) {
    const ref = serviceRef(se);
    const owner = clb.tags[TAG_CCM_OWNER];
    const own =
      se.defaultLbName !== '' &&
      (owner === se.defaultLbName || (owner === undefined && clb.name === se.defaultLbName));
    const figures = {
      loadBalancerId: clb.loadBalancerId,
      defaultLbName: se.defaultLbName,
      ...(owner ? { ownerTag: owner } : {}),
    };
    if (own) {
      out.push(
        r.fail(
          ref,
          `${ref.id} names its own CCM-created CLB ${clb.loadBalancerId} (${owner === se.defaultLbName ? `tag ${TAG_CCM_OWNER}` : 'name'} = ` +
            `${se.defaultLbName}) as reused: deleting the Service will no longer delete the CLB`,
          { figures },
        ),
      );
    } else {
      out.push(
        r.pass(
          ref,
          `${ref.id} reuses CLB ${clb.loadBalancerId}, which CCM did not create for this Service`,
          figures,
        ),
      );
    }
  },
});
