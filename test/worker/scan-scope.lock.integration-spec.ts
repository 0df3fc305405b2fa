/** libs/queue ScanScopeLock on the real Redis (unique prefix): one holder per scope, safe release and take-over. */
import { afterAll, describe, expect, it } from 'vitest';
import { ScanScopeLock, scheduledScanId } from '@app/queue';
import { deletePrefix, SHARED_REDIS_URL, uniquePrefix } from './worker-test.util';

describe('ScanScopeLock (Redis)', () => {
  const prefix = uniquePrefix('scope');
  const lock = new ScanScopeLock({ redisUrl: SHARED_REDIS_URL, prefix });

  afterAll(async () => {
    await lock.close();
    await deletePrefix(SHARED_REDIS_URL, prefix);
  });

  it('admits one scan per scope; a release by another scan frees nothing', async () => {
    expect(await lock.acquire('fleet-a', 'scan-1', 60_000)).toEqual({ acquired: true });
    expect(await lock.acquire('fleet-a', 'scan-2', 60_000)).toEqual({ acquired: false, holder: 'scan-1' });
    expect(await lock.acquire('fleet-b', 'scan-3', 60_000)).toEqual({ acquired: true });
    expect(await lock.release('fleet-a', 'scan-2')).toBe(false);
    expect(await lock.holder('fleet-a')).toBe('scan-1');
    expect(await lock.release('fleet-a', 'scan-1')).toBe(true);
    expect(await lock.acquire('fleet-a', 'scan-2', 60_000)).toEqual({ acquired: true });
  });

  it('takes over only from the holder it names', async () => {
    await lock.acquire('fleet-c', 'old', 60_000);
    expect(await lock.takeOver('fleet-c', 'someone-else', 'new', 60_000)).toBe(false);
    expect(await lock.takeOver('fleet-c', 'old', 'new', 60_000)).toBe(true);
    expect(await lock.holder('fleet-c')).toBe('new');
  });

  it('takes a scope its stale holder released meanwhile, but never one a new scan took first', async () => {
    // The scheduler reads the holder, sees its scan ended, and takes over; the scan may release in between.
    await lock.acquire('fleet-e', 'ended', 60_000);
    expect(await lock.release('fleet-e', 'ended')).toBe(true);
    expect(await lock.takeOver('fleet-e', 'ended', 'next', 60_000)).toBe(true);
    expect(await lock.holder('fleet-e')).toBe('next');
    // Released, then taken by another worker's tick first: the take-over refuses.
    expect(await lock.release('fleet-e', 'next')).toBe(true);
    expect(await lock.acquire('fleet-e', 'other', 60_000)).toEqual({ acquired: true });
    expect(await lock.takeOver('fleet-e', 'next', 'late', 60_000)).toBe(false);
    expect(await lock.holder('fleet-e')).toBe('other');
  });

  it('expires after its TTL (a scan whose end was never seen does not block the scope for ever)', async () => {
    await lock.acquire('fleet-d', 'short', 50);
    await new Promise((r) => setTimeout(r, 120));
    expect(await lock.acquire('fleet-d', 'next', 60_000)).toEqual({ acquired: true });
  });

  it('gives every worker the same scan id for the same scope and second, and a uuid', () => {
    const t = new Date('2026-01-01T10:00:00Z');
    expect(scheduledScanId('fleet', t)).toBe(scheduledScanId('fleet', new Date(t)));
    expect(scheduledScanId('fleet', t)).not.toBe(scheduledScanId('fleet', new Date(t.getTime() + 1000)));
    expect(scheduledScanId('fleet', t)).not.toBe(scheduledScanId('other', t));
    expect(scheduledScanId('fleet', t)).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
  });
});
