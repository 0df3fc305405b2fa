import { describe, expect, it } from 'vitest';
import { UnknownScanSourceError } from '@app/audit';
import { CrawlTargetError, CredentialsConfigError } from '@app/collectors';
import { WaiverValidationError } from '@app/domain';
import { StoreError } from '@app/store';
import { FleetAuditError, isFleetAuditError, isPermanentError } from './index';

describe(FleetAuditError.name, () => {
  it('is the base of the errors transports map, each with a stable code and whether a retry can help', () => {
    const cases: [Error, string, boolean][] = [
      [new CrawlTargetError('no such target'), 'CRAWL_TARGET_UNKNOWN', true],
      [new CredentialsConfigError('ALIBABA_CLOUD_ACCESS_KEY_ID is not set'), 'CREDENTIALS_CONFIG_INVALID', true],
      [new UnknownScanSourceError('no source x'), 'SCAN_SOURCE_UNKNOWN', true],
      [new WaiverValidationError('reason', 'is required'), 'WAIVER_INVALID', true],
      [new StoreError('NOT_FOUND', 'scan s1 does not exist'), 'NOT_FOUND', true],
      [new StoreError('UNAVAILABLE', 'PostgreSQL is unreachable'), 'UNAVAILABLE', false],
    ];
    for (const [e, code, permanent] of cases) {
      expect(isFleetAuditError(e), e.name).toBe(true);
      expect(e).toBeInstanceOf(Error);
      expect((e as FleetAuditError).code).toBe(code);
      expect(isPermanentError(e), `${e.name} ${code}`).toBe(permanent);
    }
  });

  it('treats anything else (driver, network, unknown errors) as transient', () => {
    expect(isFleetAuditError(new Error('ECONNRESET'))).toBe(false);
    expect(isPermanentError(new Error('ECONNRESET'))).toBe(false);
    expect(isPermanentError('a string')).toBe(false);
  });

  it('keeps the cause', () => {
    const cause = new Error('driver');
    expect(new StoreError('UNAVAILABLE', 'down', { cause }).cause).toBe(cause);
  });
});
