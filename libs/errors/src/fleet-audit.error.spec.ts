import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ForecastUnavailableError, ScanFailedError, ScanQueueClosedError, ScanQueueFullError, UnknownScanSourceError } from '@app/audit';
import { AuditSettingsError } from '@app/checks';
import { CollectError, CrawlTargetError, CredentialsConfigError, FleetValidationError, ScanAbortedError, ScanConfigError } from '@app/collectors';
import { ConfigError } from '@app/config';
import { WaiverValidationError } from '@app/domain';
import { FaultSpecError, QpsLimitsError, SimulatorOptionsError } from '@app/fleet-sim';
import { HeadroomOptionError, ScenarioError } from '@app/forecast';
import { ScanWaitError } from '@app/queue';
import { StoreError } from '@app/store';
import { ApiError } from '../../../apps/api/src/common/api.exception';
import { CliUsageError } from '../../../apps/cli/src/cli-error';
import { BodyTooLargeError } from '../../../apps/fleet-sim/src/http/http.util';
import { DatasetCancelledError } from '../../collectors/src/live/call-runner.util';
import { FleetAuditError, fleetAuditErrorKind, isFleetAuditError, isPermanentError } from './index';

/** One instance of every error class of the project, with its expected code and permanent flag. */
const EVERY_ERROR: [Error, string, boolean][] = [
  [new ConfigError([{ variable: 'API_PORT', message: 'must be a port number from 1 to 65535' }]), 'CONFIG_INVALID', true],
  [new CliUsageError('give exactly one of --fleet DIR (offline) or --config FILE (live)'), 'CLI_USAGE', true],
  [new FleetValidationError('clusters.json', '$[0].ClusterId', 'expected string, got missing'), 'FLEET_INVALID', true],
  [new ScanConfigError('scan.yaml', '$.accounts', 'a non-empty list'), 'SCAN_CONFIG_INVALID', true],
  [new CredentialsConfigError('ALIBABA_CLOUD_ACCESS_KEY_ID is not set'), 'CREDENTIALS_CONFIG_INVALID', true],
  [new CrawlTargetError('no such target'), 'CRAWL_TARGET_UNKNOWN', true],
  [new CollectError('Forbidden.RAM', 'DescribeLoadBalancers of 1/cn-hangzhou: not authorized'), 'COLLECT_FAILED', true],
  [new CollectError('Throttling.User', 'DescribeLoadBalancers of 1/cn-hangzhou: throttled', true), 'COLLECT_FAILED', false],
  [new ScanAbortedError(), 'SCAN_ABORTED', false],
  [new DatasetCancelledError(), 'DATASET_CANCELLED', true],
  [new ScanFailedError('nothing could be read', 's1'), 'SCAN_FAILED', true],
  [new UnknownScanSourceError('no source x'), 'SCAN_SOURCE_UNKNOWN', true],
  [new ScanQueueFullError('2 scans already wait', 30), 'SCAN_QUEUE_FULL', false],
  [new ScanQueueClosedError('the API is shutting down'), 'SCAN_QUEUE_CLOSED', false],
  [new ForecastUnavailableError('no succeeded scan is stored yet'), 'FORECAST_UNAVAILABLE', true],
  [new ScenarioError('step 1: field x: required', 1, 'x'), 'SCENARIO_INVALID', true],
  [new HeadroomOptionError('like', '--like: unknown node "x" in cluster c1'), 'HEADROOM_OPTION_INVALID', true],
  [new ScanWaitError('scan s1 did not finish in time', 's1'), 'SCAN_WAIT_ENDED', false],
  [new ScanWaitError('scan s1 does not exist', 's1', true), 'SCAN_WAIT_ENDED', true],
  [new WaiverValidationError('reason', 'is required'), 'WAIVER_INVALID', true],
  [new AuditSettingsError('UNKNOWN_CHECK', 'unknown check X'), 'UNKNOWN_CHECK', true],
  [new StoreError('NOT_FOUND', 'scan s1 does not exist'), 'NOT_FOUND', true],
  [new StoreError('UNAVAILABLE', 'PostgreSQL is unreachable'), 'UNAVAILABLE', false],
  [new ApiError('VALIDATION_FAILED', 'bad'), 'VALIDATION_FAILED', true],
  [new ApiError('RATE_LIMITED', 'too many failed authentications'), 'RATE_LIMITED', false],
  [new SimulatorOptionsError('bad option'), 'SIM_OPTIONS_INVALID', true],
  [new QpsLimitsError('qps.default must be a positive integer'), 'SIM_QPS_LIMITS_INVALID', true],
  [new FaultSpecError('unknown fault kind'), 'SIM_FAULT_SPEC_INVALID', true],
  [new BodyTooLargeError('request body over 8388608 bytes'), 'SIM_BODY_TOO_LARGE', true],
];

describe(FleetAuditError.name, () => {
  it('is the base of every error of the project, each with a stable code and whether a retry can help', () => {
    for (const [e, code, permanent] of EVERY_ERROR) {
      expect(isFleetAuditError(e), e.name).toBe(true);
      expect(e).toBeInstanceOf(Error);
      expect((e as FleetAuditError).code, e.name).toBe(code);
      expect(isPermanentError(e), `${e.name} ${code}`).toBe(permanent);
    }
  });

  it('keeps each class its own name and message (what logs and golden outputs show)', () => {
    expect(new ScanAbortedError()).toMatchObject({ name: 'ScanAbortedError', message: 'the scan was aborted' });
    expect(new FleetValidationError('a.json', '$', 'expected array')).toMatchObject({ name: 'FleetValidationError', message: 'a.json: $: expected array' });
    expect(new ConfigError([{ variable: 'API_PORT', message: 'is required (a port)' }]).message).toBe('invalid configuration: API_PORT is required (a port)');
  });

  it('lists every code in the codes table of libs/errors/README.md', () => {
    const readme = readFileSync(join(__dirname, '..', 'README.md'), 'utf8');
    for (const [e, code] of EVERY_ERROR) expect(readme, `${e.name} ${code}`).toContain(`\`${code}\``);
  });

  it('treats anything else (driver, network, unknown errors) as transient', () => {
    expect(isFleetAuditError(new Error('ECONNRESET'))).toBe(false);
    expect(isPermanentError(new Error('ECONNRESET'))).toBe(false);
    expect(isPermanentError('a string')).toBe(false);
  });

  it('names every error after its class (fleetAuditErrorKind declares name, code and permanent once)', () => {
    for (const [e] of EVERY_ERROR) expect(e.name).toBe(e.constructor.name);
    class ProbeError extends fleetAuditErrorKind('ProbeError', 'PROBE_FAILED', false) {}
    const cause = new Error('driver');
    const e = new ProbeError('probe failed', { cause });
    expect(e).toBeInstanceOf(FleetAuditError);
    expect(e).toMatchObject({ name: 'ProbeError', code: 'PROBE_FAILED', permanent: false, message: 'probe failed', cause });
    expect(isPermanentError(e)).toBe(false);
  });

  it('keeps the cause', () => {
    const cause = new Error('driver');
    expect(new StoreError('UNAVAILABLE', 'down', { cause }).cause).toBe(cause);
  });
});
