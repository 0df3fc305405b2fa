import type { K8sEvent } from '../snapshot.types';
import {
  CCM_ERROR_ROWS,
  CCM_EVENT_ENSURED,
  CCM_SERVICE_EVENT_REASONS,
  type CcmErrorRow,
} from './error-events.constants';

/**
 * Reading CCM's Service events against the seed error table (`CCM_ERROR_ROWS`).
 */

/** The row of the seed error table a message matches (first match in table order), or `undefined`. */
export function matchCcmErrorRow(message: string): CcmErrorRow | undefined {
  for (const row of CCM_ERROR_ROWS) {
    for (const p of row.patterns) if (p.test(message)) return row;
  }
  return undefined;
}

/**
 * The CLB id CCM names in a `SyncLoadBalancerFailed` message (`Error syncing load balancer [lb-xxx]: ...`,
 * CCM notes 6 (docs/sources.md#ccm-6)), or `undefined`.
 */
export function loadBalancerIdOfEventMessage(message: string): string | undefined {
  const m = /Error syncing load balancer \[([^\]]*)\]/.exec(message);
  return m?.[1] ? m[1] : undefined;
}

/**
 * Whether an event about a Service reports a CCM error: a Warning with a CCM reason, a Warning whose message
 * matches the error table, or an `UnAvailableLoadBalancer` event of any type ("There are no available nodes for
 * LoadBalancer" is Normal in CCM v2, Warning in v1.9.3).
 */
export function isCcmErrorEvent(event: Pick<K8sEvent, 'type' | 'reason' | 'message'>): boolean {
  if (event.reason === 'UnAvailableLoadBalancer') return true;
  if (event.type !== 'Warning') return false;
  if (event.reason === 'PreservedOnDelete') return false;
  return CCM_SERVICE_EVENT_REASONS.has(event.reason) || matchCcmErrorRow(event.message) !== undefined;
}

/** One CCM error event with the table row it matches (if any). */
export interface CcmErrorEvent {
  event: K8sEvent;
  row?: CcmErrorRow;
}

/** The CCM errors among a Service's events, split by whether a later successful sync resolved them. */
export interface ServiceEventDiagnosis {
  /** Errors not followed by an `EnsuredLoadBalancer` event, newest first. */
  current: CcmErrorEvent[];
  /** Errors older than the last `EnsuredLoadBalancer` event (count). */
  resolved: number;
  /** The last `EnsuredLoadBalancer` event, if any. */
  lastEnsured?: K8sEvent;
}

function timeOf(e: K8sEvent): number | undefined {
  if (!e.lastTimestamp) return undefined;
  const t = Date.parse(e.lastTimestamp);
  return Number.isNaN(t) ? undefined : t;
}

/**
 * Classifies the events of one Service. An error counts as resolved only when both it and the last
 * `EnsuredLoadBalancer` event carry timestamps and the Ensured one is later; otherwise it is current.
 *
 * @param events events whose involved object is the Service
 */
export function diagnoseServiceEvents(events: readonly K8sEvent[]): ServiceEventDiagnosis {
  let lastEnsured: K8sEvent | undefined;
  let ensuredAt: number | undefined;
  for (const e of events) {
    if (e.reason !== CCM_EVENT_ENSURED) continue;
    const t = timeOf(e);
    if (!lastEnsured || (t !== undefined && (ensuredAt === undefined || t > ensuredAt))) {
      lastEnsured = e;
      ensuredAt = t;
    }
  }
  const current: CcmErrorEvent[] = [];
  let resolved = 0;
  for (const e of events) {
    if (!isCcmErrorEvent(e)) continue;
    const t = timeOf(e);
    if (ensuredAt !== undefined && t !== undefined && t < ensuredAt) {
      resolved++;
      continue;
    }
    const row = matchCcmErrorRow(e.message);
    current.push(row ? { event: e, row } : { event: e });
  }
  current.sort((a, b) => (timeOf(b.event) ?? 0) - (timeOf(a.event) ?? 0));
  return { current, resolved, ...(lastEnsured ? { lastEnsured } : {}) };
}
