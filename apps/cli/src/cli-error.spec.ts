import { describe, expect, it } from 'vitest';
import { ScanFailedError, ScanQueueFullError } from '@app/audit';
import { FleetValidationError, ScanConfigError } from '@app/collectors';
import { ConfigError } from '@app/config';
import { ScanWaitError } from '@app/queue';
import { StoreError } from '@app/store';
import { CliUsageError, describeError, EXIT_ERROR, EXIT_TRANSIENT, exitCodeOf } from './cli-error';

describe('exitCodeOf: the CLI exit code of an error, from its libs/errors permanent flag', () => {
  it.each([
    [new CliUsageError('give exactly one of --fleet DIR (offline) or --config FILE (live)'), EXIT_ERROR],
    [new ConfigError([{ variable: 'API_PORT', message: 'must be a port number from 1 to 65535' }]), EXIT_ERROR],
    [new FleetValidationError('clusters.json', '$', 'expected array'), EXIT_ERROR],
    [new ScanConfigError('scan.yaml', '$.accounts', 'a non-empty list'), EXIT_ERROR],
    [new ScanFailedError('nothing could be read', 's1'), EXIT_ERROR],
    [new StoreError('NOT_FOUND', 'scan s1 does not exist'), EXIT_ERROR],
    [new StoreError('UNAVAILABLE', 'cannot open PostgreSQL at postgres://x@127.0.0.1:1/db'), EXIT_TRANSIENT],
    [new ScanQueueFullError('2 scans already wait', 5), EXIT_TRANSIENT],
    [new ScanWaitError('scan s1 did not finish in time', 's1'), EXIT_TRANSIENT],
    // Not ours: reported as a failure, not guessed retryable.
    [new Error('boom'), EXIT_ERROR],
    ['a string', EXIT_ERROR],
  ])('%s -> %i', (e, code) => {
    expect(exitCodeOf(e)).toBe(code);
  });
});

describe('describeError: one line, recognised by code', () => {
  it('names the file and JSON path of fleet and config errors, the scan of a failed scan', () => {
    expect(describeError(new FleetValidationError('clusters.json', '$[0].ClusterId', 'expected string, got missing'))).toBe(
      'invalid fleet directory: clusters.json: $[0].ClusterId: expected string, got missing',
    );
    expect(describeError(new ScanConfigError('scan.yaml', '$.accounts', 'a non-empty list'))).toBe('invalid config file: scan.yaml: $.accounts: a non-empty list');
    expect(describeError(new ScanFailedError('nothing could be read', 's1'))).toBe('scan s1 failed: nothing could be read');
    expect(describeError(new Error('first line\nsecond'))).toBe('first line');
  });
});
