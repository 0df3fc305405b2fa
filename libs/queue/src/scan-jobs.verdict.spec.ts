import { describe, expect, it } from 'vitest';
import type { ScanJobState } from './scan-job.queue';
import { judgeScanJobs } from './scan-jobs.verdict';

const s = (state: ScanJobState['state'], failedReason?: string): ScanJobState => ({
  state,
  ...(failedReason ? { failedReason } : {}),
});

describe(judgeScanJobs.name, () => {
  it.each([
    ['analyze waiting for its children', s('completed'), s('waiting-children'), 'alive'],
    ['analyze running', s('missing'), s('active'), 'alive'],
    ['analyze done (the row says how it ended)', s('missing'), s('completed'), 'alive'],
    ['plan queued, no flow yet', s('waiting'), s('missing'), 'alive'],
    ['plan running', s('active'), s('missing'), 'alive'],
    ['plan retrying later', s('delayed'), s('missing'), 'alive'],
    ['nothing left (Redis restarted empty)', s('missing'), s('missing'), 'lost'],
    ['plan done but its flow vanished', s('completed'), s('missing'), 'lost'],
  ] as const)('%s -> %s', (_name, plan, analyze, kind) => {
    expect(judgeScanJobs({ plan, analyze }).kind).toBe(kind);
  });

  it('a sharded analysis: the complete-scan job carries the scan once it exists', () => {
    expect(judgeScanJobs({ plan: s('missing'), analyze: s('missing'), complete: s('waiting-children') }).kind).toBe('alive');
    expect(judgeScanJobs({ plan: s('missing'), analyze: s('completed'), complete: s('active') }).kind).toBe('alive');
    expect(judgeScanJobs({ plan: s('missing'), analyze: s('missing'), complete: s('missing') }).kind).toBe('lost');
    expect(judgeScanJobs({ plan: s('missing'), analyze: s('completed'), complete: s('failed', 'connection lost') })).toEqual({
      kind: 'failed',
      reason: 'analysis failed: connection lost',
    });
  });

  it('reports the analysis failure, else the planning failure, with the reason', () => {
    expect(
      judgeScanJobs({ plan: s('completed'), analyze: s('failed', 'job stalled more than allowable limit') }),
    ).toEqual({
      kind: 'failed',
      reason: 'analysis failed: job stalled more than allowable limit',
    });
    expect(judgeScanJobs({ plan: s('failed', 'connect ECONNREFUSED'), analyze: s('missing') })).toEqual({
      kind: 'failed',
      reason: 'planning failed: connect ECONNREFUSED',
    });
  });
});
