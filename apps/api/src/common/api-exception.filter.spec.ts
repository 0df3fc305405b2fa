import type { ArgumentsHost } from '@nestjs/common';
import { describe, expect, it } from 'vitest';
import { ForecastUnavailableError, ScanFailedError, ScanQueueClosedError, ScanQueueFullError, UnknownScanSourceError } from '@app/audit';
import { WaiverValidationError } from '@app/domain';
import { ScanWaitError } from '@app/queue';
import { ScenarioError } from '@app/forecast';
import { StoreError } from '@app/store';
import { ApiError } from './api.exception';
import { ApiExceptionFilter, httpErrorOf } from './api-exception.filter';

/** Send `e` through the filter; returns the HTTP status and JSON body it answered. */
function answer(e: unknown): { status: number; body: Record<string, unknown>; headers: Record<string, string> } {
  const out = { status: 0, body: {} as Record<string, unknown>, headers: {} as Record<string, string> };
  const res = {
    status(code: number) {
      out.status = code;
      return res;
    },
    setHeader: (name: string, value: string) => {
      out.headers[name] = value;
    },
    json(body: Record<string, unknown>) {
      out.body = body;
    },
  };
  const host = { getType: () => 'http', switchToHttp: () => ({ getResponse: () => res }) } as unknown as ArgumentsHost;
  new ApiExceptionFilter().catch(e, host);
  return out;
}

describe('ApiExceptionFilter maps error codes to HTTP statuses', () => {
  it.each([
    [new ApiError('VALIDATION_FAILED', 'bad'), 400, 'VALIDATION_FAILED'],
    [new ApiError('UNAUTHENTICATED', 'no'), 401, 'UNAUTHENTICATED'],
    [new StoreError('NOT_FOUND', 'scan s1 does not exist'), 404, 'NOT_FOUND'],
    [new StoreError('CONFLICT', 'already failed'), 409, 'CONFLICT'],
    [new StoreError('UNAVAILABLE', 'PostgreSQL is unreachable'), 503, 'UNAVAILABLE'],
    [new UnknownScanSourceError('no source named x'), 400, 'INVALID_ARGUMENT'],
    [new WaiverValidationError('reason', 'is required'), 400, 'VALIDATION_FAILED'],
    [new ScanQueueFullError('2 scans already wait', 30), 429, 'SCAN_QUEUE_FULL'],
    [new ScanQueueClosedError('the API is shutting down'), 503, 'UNAVAILABLE'],
    [new ForecastUnavailableError('no scan stored'), 404, 'NOT_FOUND'],
    [new ScenarioError('step 1: x: required', 1, 'x'), 400, 'VALIDATION_FAILED'],
    // Codes the REST transport does not list: transient -> 503, permanent -> 500 (a bug, logged).
    [new ScanWaitError('scan s1 did not finish in time', 's1'), 503, 'UNAVAILABLE'],
    [new ScanFailedError('nothing could be read', 's1'), 500, 'INTERNAL'],
    [new Error('boom'), 500, 'INTERNAL'],
  ])('%s -> %i %s', (e, status, error) => {
    const r = answer(e);
    expect(r.status).toBe(status);
    expect(r.body).toMatchObject({ statusCode: status, error });
  });
});

describe('httpErrorOf reads the code (and the permanent flag), never the class name', () => {
  it('maps by code: an error renamed or re-declared elsewhere with the same code answers the same', () => {
    const full = new ScanQueueFullError('full', 12);
    Object.defineProperty(full, 'name', { value: 'SomethingElse' });
    expect(httpErrorOf(full)).toEqual({ statusCode: 429, error: 'SCAN_QUEUE_FULL' });
    const r = answer(full);
    expect(r.status).toBe(429);
    expect(r.headers['Retry-After']).toBe('12');
  });

  it('keeps the message and the validation issues', () => {
    const r = answer(new ApiError('VALIDATION_FAILED', 'Invalid query', [{ path: 'query.limit', message: 'too big' }]));
    expect(r.body).toEqual({ statusCode: 400, error: 'VALIDATION_FAILED', message: 'Invalid query', issues: [{ path: 'query.limit', message: 'too big' }] });
    const w = answer(new WaiverValidationError('reason', 'is required'));
    expect(w.body).toMatchObject({ message: 'Invalid waiver: reason is required', issues: [{ path: 'body.reason', message: 'reason is required' }] });
  });

  it('a scenario error that reaches the filter directly keeps every problem, at body paths (steps counted from 0)', () => {
    const e = new ScenarioError('scenario: 2 problems: field kind: bad; step 2 (addNodes) field addNodes.count: bad', undefined, 'kind', [
      { message: 'scenario field kind: bad', field: 'kind' },
      { message: 'step 2 (addNodes) field addNodes.count: bad', step: 2, field: 'addNodes.count' },
    ]);
    expect(answer(e).body).toEqual({
      statusCode: 400,
      error: 'VALIDATION_FAILED',
      message: e.message,
      issues: [
        { path: 'body.kind', message: 'scenario field kind: bad' },
        { path: 'body.steps.1.addNodes.count', message: 'step 2 (addNodes) field addNodes.count: bad' },
      ],
    });
  });
});
