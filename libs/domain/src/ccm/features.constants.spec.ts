import { describe, expect, it } from 'vitest';
import { CCM_FEATURES } from './features.constants';

describe('CCM_FEATURES.podCountWeights', () => {
  // Seed 001 "How does CCM calculate node weights in Local mode?" (and seeds 000/003): between
  // v1.9.3.164-g2105d2e-aliyun and v1.9.3.276-g372aa98-aliyun, pods 1/2/3 of 6 give weights 16/33/50:
  // truncation (100/6 = 16.7 -> 16), not rounding (which would give 17).
  it('describes the pre-v1.9.3.276 weights as truncated percentages (seed 001: 16/33/50)', () => {
    expect([1, 2, 3].map((pods) => Math.floor((100 * pods) / 6))).toEqual([16, 33, 50]);
    expect([1, 2, 3].map((pods) => Math.round((100 * pods) / 6))).not.toEqual([16, 33, 50]);
    expect(CCM_FEATURES.podCountWeights.olderBehaviour).toContain('truncated percentages (16/33/50)');
    expect(CCM_FEATURES.podCountWeights.sinceVersion).toBe('v1.9.3.276-g372aa98-aliyun');
  });
});
