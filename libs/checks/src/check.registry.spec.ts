import { describe, expect, it } from 'vitest';
import { CHECKS, unknownCheckIdReason } from './check.registry';

describe('unknownCheckIdReason', () => {
  it('accepts every catalogue id', () => {
    for (const c of CHECKS) expect(unknownCheckIdReason(c.id), c.id).toBeUndefined();
  });

  it('names the nearest id for a typo, in any case', () => {
    expect(unknownCheckIdReason('CLB_BACKEND_QOTA')).toBe('unknown check id "CLB_BACKEND_QOTA"; did you mean "CLB_BACKEND_QUOTA"?');
    expect(unknownCheckIdReason('lb_orphaned')).toBe('unknown check id "lb_orphaned"; did you mean "LB_ORPHANED"?');
  });

  it('points at the catalogue when nothing is close', () => {
    expect(unknownCheckIdReason('SOMETHING_ELSE_ENTIRELY')).toBe('unknown check id "SOMETHING_ELSE_ENTIRELY"; the ids are listed by `fleet-audit checks`');
  });
});
