import {
  diagnoseServiceEvents,
  loadBalancerIdOfEventMessage,
  severityRank,
  type Severity,
} from '@app/domain';
import { scopedCheck } from '../check-scope';
import { DOC_URL, SEED } from '../doc-links.constants';
import { ageSeconds, count, humanDuration, type PassText, serviceRef } from '../result.util';

/** A Service with no current error event: its message (built when read). */
const noErrorText: PassText<{ resolvedErrors: number }> = (ref, { resolvedErrors }) =>
  `${ref.id} has no current CCM error event` +
  (resolvedErrors ? ` (${count(resolvedErrors, 'older error')} resolved by a later successful sync)` : '');

/** Longest event message quoted in a result (characters). */
const MAX_QUOTE = 240;

/**
 * A LoadBalancer Service with a CCM error event (Warning `SyncLoadBalancerFailed` and the other CCM reasons, or
 * `UnAvailableLoadBalancer`) matched to the ACK error table (`CCM_ERROR_ROWS`, seed 002 "Service error events and
 * solutions" plus the older wordings of seeds 001/003): the result carries the row's cause and solution. Errors
 * followed by a later `EnsuredLoadBalancer` event are resolved and pass. Severity: the worst matched row; an error
 * no row explains is a warning. The diagnostic process of seed 002: "Check whether the service has error events.
 * If error events exist, match the error message in Service error events and solutions."
 */
export const serviceEventErrorRule = scopedCheck({
  id: 'SERVICE_EVENT_ERROR',
  title: 'Service has a CCM error event (matched to the ACK error table)',
  category: 'configuration',
  resourceKind: 'Service',
  defaultSeverity: 'warning',
  description:
    "Reads every LoadBalancer Service's events and matches CCM's error events (SyncLoadBalancerFailed, " +
    'UnAvailableLoadBalancer, ...) against each row of the ACK "Service error events and solutions" table, giving ' +
    'the cause and the solution the documentation gives for it. Errors a later successful sync resolved pass.',
  remediation:
    'Apply the solution given with the finding (figures.solution: the row of the ACK error table the event ' +
    'matched), then check the events again with kubectl -n {your-namespace} describe svc {your-svc-name}. For ' +
    `errors the table does not list, follow the diagnostic process of the troubleshooting guide. ${DOC_URL.troubleshooting}`,
  source:
    `${SEED.troubleshooting} "Diagnostic process" and "Service error events and solutions" (every row); ` +
    `${SEED.serviceFaqOld} "Error messages reported for Services and solutions"; ${SEED.serviceFaqClb} "Service ` +
    'error messages and solutions"; CCM pkg/controller/helper/event.go (event reasons)',
  scope: 'service',
  needs: ['kubernetes'],
  applies: ({ needClb: clb, needNlb: nlb }) => clb || nlb,
  check(se, out, r, ctx) {
    const ref = serviceRef(se);
    const events = ctx.index.eventsOf(se);
    const d = diagnoseServiceEvents(events);
    if (d.current.length === 0) {
      out.push(
        r.pass(ref, noErrorText, { events: events.length, resolvedErrors: d.resolved }),
      );
      return;
    }
    const top = d.current[0]!;
    let worst: Severity = top.row?.severity ?? r.defaultSeverity;
    for (const c of d.current) {
      const s = c.row?.severity ?? r.defaultSeverity;
      if (severityRank(s) > severityRank(worst)) worst = s;
    }
    const rowIds = [...new Set(d.current.map((c) => c.row?.id ?? 'unmatched'))];
    const quote =
      top.event.message.length > MAX_QUOTE
        ? `${top.event.message.slice(0, MAX_QUOTE)}...`
        : top.event.message;
    const age = ageSeconds(top.event.lastTimestamp, ctx.now);
    const lbId = loadBalancerIdOfEventMessage(top.event.message);
    const explained = top.row
      ? `cause: ${top.row.cause} Solution: ${top.row.solution}`
      : 'not in the ACK error table: follow the diagnostic process of the troubleshooting guide';
    out.push(
      r.fail(
        ref,
        `${ref.id}: ${top.event.type} ${top.event.reason} (x${top.event.count}${age !== undefined ? `, ${humanDuration(age)} ago` : ''}) ` +
          `"${quote}"; ${explained}` +
          (d.current.length > 1 ? ` (+${count(d.current.length - 1, 'more error event')})` : ''),
        {
          severity: worst,
          figures: {
            rows: rowIds,
            errorEvents: d.current.length,
            reason: top.event.reason,
            eventCount: top.event.count,
            ...(age !== undefined ? { ageSeconds: age } : {}),
            ...(lbId ? { loadBalancerId: lbId } : {}),
            ...(top.row
              ? {
                  row: top.row.id,
                  cause: top.row.cause,
                  solution: top.row.solution,
                  rowSource: top.row.source,
                  ...(top.row.relatedCheck ? { relatedCheck: top.row.relatedCheck } : {}),
                }
              : {}),
          },
        },
      ),
    );
  },
});
