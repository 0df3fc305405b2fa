import {
  CCM_FEATURES,
  diagnoseServiceEvents,
} from '@app/domain';
import { scopedCheck } from '../check-scope';
import { DOC_URL, SEED } from '../doc-links.constants';
import { ageSeconds, humanDuration, type PassText, serviceRef } from '../result.util';

/** A Service with an address: its message (built when read). */
const addressText: PassText<{ addresses: string[] }> = (ref, { addresses }) => `${ref.id} has the load balancer address ${addresses.join(', ')}`;

/**
 * A LoadBalancer Service that CCM serves (CLB or NLB) with no address in `status.loadBalancer.ingress`: it is
 * Pending, unreachable through a load balancer. The diagnosis follows seeds 000/002/003 "What to do if an SLB
 * instance remains in the Pending state": match the Service's error events against the error table; without
 * events, a CCM older than v1.9.3.276-g372aa98-aliyun records none; otherwise events may have expired (1 h by
 * default) and CCM's logs or a ticket are next. Services younger than `servicePending.graceSeconds` (by the
 * analysis clock) pass: CCM may still be creating the CLB. Services being deleted are out of scope.
 */
export const serviceLbPendingRule = scopedCheck({
  id: 'SERVICE_LB_PENDING',
  title: 'LoadBalancer Service has no external address (Pending)',
  category: 'ownership',
  resourceKind: 'Service',
  defaultSeverity: 'critical',
  description:
    'Finds LoadBalancer Services without an ingress address and diagnoses why from their events, matched to the ' +
    'ACK error table, or from the CCM version when there are none. A Service Pending for longer than the grace ' +
    'period has no working load balancer.',
  remediation:
    'Run kubectl -n {your-namespace} describe svc {your-svc-name} and resolve the errors reported in the events ' +
    '(see the ACK error table: the finding names the matching row). If no event is shown, check the CCM version: ' +
    'versions earlier than v1.9.3.276-g372aa98-aliyun do not display events, upgrade the component; with later ' +
    `versions, check the CCM logs or submit a ticket. ${DOC_URL.troubleshooting}`,
  source:
    `${SEED.serviceFaq} "What to do if an SLB instance remains in the Pending state during creation" and "Why are ` +
    `events ... not visible?"; ${SEED.troubleshooting} "Diagnostic process"; ${SEED.serviceFaqClb} "CLB instance ` +
    'stuck in Pending state"',
  settings: ['servicePending.graceSeconds'],
  scope: 'service',
  needs: ['kubernetes'],
  applies: ({ service, needClb: clb, needNlb: nlb }) => (clb || nlb) && !service.deletionTimestamp,
  check(se, out, r, ctx) {
    const { service } = se;
    const grace = ctx.settings.servicePending.graceSeconds;
    const ref = serviceRef(se);
    const addresses = service.ingress.map((i) => i.ip ?? i.hostname).filter((a): a is string => !!a);
    if (addresses.length > 0) {
      out.push(r.pass(ref, addressText, { addresses }));
      return;
    }
    const age = ageSeconds(service.creationTimestamp, ctx.now);
    if (age !== undefined && age < grace) {
      out.push(
        r.pass(
          ref,
          `${ref.id} has no address yet but was created ${humanDuration(age)} ago (grace ${grace} s): CCM may still be creating it`,
          {
            ageSeconds: age,
          },
        ),
      );
      return;
    }
    const d = diagnoseServiceEvents(ctx.index.eventsOf(se));
    const top = d.current[0];
    const version = se.cluster.cluster.ccmVersion;
    let diagnosis: string;
    let basis: string;
    if (top?.row) {
      diagnosis = `event ${top.event.reason} matches "${top.row.message}": ${top.row.cause} Solution: ${top.row.solution}`;
      basis = top.row.id;
    } else if (top) {
      diagnosis = `event ${top.event.reason}: "${top.event.message.slice(0, 200)}" (not in the ACK error table)`;
      basis = 'unmatched-event';
    } else if (ctx.index.ccmAtLeast(version, CCM_FEATURES.syncEvents.sinceVersion) === false) {
      diagnosis = `no events: CCM ${version} is older than ${CCM_FEATURES.syncEvents.sinceVersion} and records none; upgrade CCM`;
      basis = 'ccm-without-events';
    } else {
      diagnosis =
        'no CCM error event (events expire after 1 h by default): check the CCM logs or submit a ticket';
      basis = 'no-events';
    }
    out.push(
      r.fail(
        ref,
        `${ref.id} has no load balancer address${age !== undefined ? ` ${humanDuration(age)} after creation` : ''}; ${diagnosis}`,
        {
          figures: {
            diagnosis: basis,
            ...(age !== undefined ? { ageSeconds: age } : {}),
            ...(top?.row ? { cause: top.row.cause, solution: top.row.solution } : {}),
            ...(version ? { ccmVersion: version } : {}),
          },
        },
      ),
    );
  },
});
