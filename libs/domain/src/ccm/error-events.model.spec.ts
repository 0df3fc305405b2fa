import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { K8sEvent } from '../snapshot.types';
import { CCM_ERROR_ROWS } from './error-events.constants';
import {
  diagnoseServiceEvents,
  isCcmErrorEvent,
  loadBalancerIdOfEventMessage,
  matchCcmErrorRow,
} from './error-events.model';

function event(over: Partial<K8sEvent>): K8sEvent {
  return {
    namespace: 'default',
    name: 'web.1',
    type: 'Warning',
    reason: 'SyncLoadBalancerFailed',
    message: '',
    involvedObject: { kind: 'Service', namespace: 'default', name: 'web' },
    count: 1,
    ...over,
  };
}

/** Anchors of docs/sources.md (`<a id="...">`), the project's index of the ACK documents (seeds 001-003). */
const SOURCE_ANCHORS = new Set(
  [...readFileSync(join(__dirname, '../../../../docs/sources.md'), 'utf8').matchAll(/<a id="([a-z0-9-]+)">/g)].map(
    (m) => m[1],
  ),
);

describe('CCM_ERROR_ROWS (seeds 001/002/003 error tables)', () => {
  it('has unique ids', () => {
    const ids = CCM_ERROR_ROWS.map((r) => r.id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  describe.each(CCM_ERROR_ROWS.map((r) => [r.id, r] as const))('%s', (id, row) => {
    it('matches its own seed message and other wordings, and no other row matches first', () => {
      for (const text of [row.message, ...row.otherWordings])
        expect(matchCcmErrorRow(text)?.id, text).toBe(id);
    });

    it('cites an ACK document listed in docs/sources.md', () => {
      const anchors = [...row.source.matchAll(/\(docs\/sources\.md#([a-z0-9-]+)\)/g)].map((m) => m[1]);
      expect(anchors.length, row.source).toBeGreaterThan(0);
      for (const anchor of anchors) expect(SOURCE_ANCHORS.has(anchor), `#${anchor} in docs/sources.md`).toBe(true);
      // Seed error-table rows cite the ACK troubleshooting / FAQ pages; NLB rows the ACK NLB annotation page.
      expect(anchors.some((a) => a === 'ack-troubleshooting' || a === 'ack-service-faq' || (id.startsWith('nlb-') && a === 'ack-nlb-annotations')), row.source).toBe(true);
      expect(row.cause.length).toBeGreaterThan(10);
      expect(row.solution.length).toBeGreaterThan(10);
    });
  });

  it('matches nothing for unrelated text', () => {
    expect(matchCcmErrorRow('Ensured load balancer [lb-1]')).toBeUndefined();
  });
});

describe('events', () => {
  it('reads the CLB id of a wrapped message', () => {
    expect(loadBalancerIdOfEventMessage('Error syncing load balancer [lb-bp1abc]: Message: x')).toBe(
      'lb-bp1abc',
    );
    expect(loadBalancerIdOfEventMessage('Ensured load balancer')).toBeUndefined();
  });

  it.each([
    ['Warning SyncLoadBalancerFailed', event({}), true],
    [
      'Normal UnAvailableLoadBalancer (CCM v2)',
      event({ type: 'Normal', reason: 'UnAvailableLoadBalancer' }),
      true,
    ],
    ['Normal EnsuredLoadBalancer', event({ type: 'Normal', reason: 'EnsuredLoadBalancer' }), false],
    ['Warning PreservedOnDelete', event({ reason: 'PreservedOnDelete' }), false],
    [
      'Warning of another controller with a table text',
      event({ reason: 'Other', message: 'Code: NetworkConflict' }),
      true,
    ],
    ['Warning of another controller', event({ reason: 'BackOff', message: 'Back-off restarting' }), false],
  ])('%s -> %s', (_n, e, want) => {
    expect(isCcmErrorEvent(e)).toBe(want);
  });

  it('treats errors older than the last EnsuredLoadBalancer as resolved', () => {
    const d = diagnoseServiceEvents([
      event({ message: 'Code: NetworkConflict', lastTimestamp: '2026-01-01T00:00:00Z' }),
      event({ type: 'Normal', reason: 'EnsuredLoadBalancer', lastTimestamp: '2026-01-02T00:00:00Z' }),
      event({ message: 'Code: Throttling.User', lastTimestamp: '2026-01-03T00:00:00Z' }),
    ]);
    expect(d.resolved).toBe(1);
    expect(d.current.map((c) => c.row?.id)).toEqual(['throttling']);
  });
});
