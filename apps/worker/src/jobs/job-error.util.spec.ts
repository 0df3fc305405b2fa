import { UnrecoverableError } from 'bullmq';
import { describe, expect, it } from 'vitest';
import { CollectError, CredentialsConfigError } from '@app/collectors';
import { StoreError } from '@app/store';
import { jobErrorOf, runJob } from './job-error.util';

describe('jobErrorOf: the worker retry decision, from the libs/errors permanent flag', () => {
  it('wraps permanent errors in UnrecoverableError (no retry), keeping name, message and cause', () => {
    const e = new CredentialsConfigError('ALIBABA_CLOUD_ACCESS_KEY_ID is not set');
    const out = jobErrorOf(e);
    expect(out).toBeInstanceOf(UnrecoverableError);
    expect((out as Error).message).toBe('CredentialsConfigError: ALIBABA_CLOUD_ACCESS_KEY_ID is not set');
    expect((out as Error).cause).toBe(e);
    expect(jobErrorOf(new StoreError('NOT_FOUND', 'scan s1 does not exist'))).toBeInstanceOf(UnrecoverableError);
    expect(jobErrorOf(new CollectError('Forbidden.RAM', 'not authorized'))).toBeInstanceOf(UnrecoverableError);
  });

  it('returns transient and foreign errors unchanged (BullMQ retries them with backoff)', () => {
    for (const e of [new StoreError('UNAVAILABLE', 'PostgreSQL is unreachable'), new CollectError('Throttling.User', 'throttled', true), new Error('ECONNRESET')]) {
      expect(jobErrorOf(e)).toBe(e);
    }
    const unrecoverable = new UnrecoverableError('invalid plan-scan payload');
    expect(jobErrorOf(unrecoverable)).toBe(unrecoverable);
  });

  it('runJob passes results through and maps failures', async () => {
    await expect(runJob(() => Promise.resolve(42))).resolves.toBe(42);
    await expect(runJob(() => Promise.reject(new CredentialsConfigError('unset')))).rejects.toBeInstanceOf(UnrecoverableError);
    const down = new StoreError('UNAVAILABLE', 'down');
    await expect(runJob(() => Promise.reject(down))).rejects.toBe(down);
  });
});
