import { describe, expect, it } from 'vitest';
import { ccmRamRequirements } from './ram-actions.model';

const actions = (version: string, plugin: 'flannel' | 'terway') =>
  (ccmRamRequirements(version, plugin) ?? []).map((r) => r.action);

describe('ccmRamRequirements (seed 000: v2.11.2 Flannel routes, v2.12.1 NLB batch)', () => {
  it('adds vpc:CreateRouteEntries / vpc:DeleteRouteEntries from v2.11.2 on Flannel only', () => {
    expect(actions('v2.11.1', 'flannel')).not.toContain('vpc:CreateRouteEntries');
    expect(actions('v2.11.2', 'flannel')).toEqual(
      expect.arrayContaining(['vpc:CreateRouteEntries', 'vpc:DeleteRouteEntries']),
    );
    expect(actions('v2.11.2', 'terway')).not.toContain('vpc:CreateRouteEntries');
  });

  it('adds nlb:ListAsynJobs from v2.12.1 on every network plugin', () => {
    expect(actions('v2.11.4', 'terway')).not.toContain('nlb:ListAsynJobs');
    expect(actions('v2.12.1', 'terway')).toContain('nlb:ListAsynJobs');
    expect(actions('v2.12.1-3-gabc', 'flannel')).toContain('nlb:ListAsynJobs');
  });

  it('keeps the baseline for old versions and rejects unparseable versions', () => {
    expect(actions('v1.9.3.276-g372aa98-aliyun', 'terway')).toContain('slb:CreateLoadBalancer');
    expect(actions('v1.9.3.276-g372aa98-aliyun', 'flannel')).toContain('vpc:CreateRouteEntry');
    expect(ccmRamRequirements('latest', 'flannel')).toBeUndefined();
  });
});
