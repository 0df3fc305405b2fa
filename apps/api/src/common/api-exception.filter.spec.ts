import type { ArgumentsHost } from '@nestjs/common';
import { NotFoundException, PayloadTooLargeException } from '@nestjs/common';
import { StoreError, type StoreErrorCode } from '@app/store';
import { describe, expect, it } from 'vitest';
import { ApiExceptionFilter, statusOfApiError, statusOfStoreError } from './api-exception.filter';
import { ApiError } from './api.exception';

/** A response double recording what the filter sent. */
function respond(exception: unknown): { status: number; body: unknown; headers: Record<string, string> } {
  const sent = { status: 0, body: undefined as unknown, headers: {} as Record<string, string> };
  const res = {
    headersSent: false,
    status(code: number) {
      sent.status = code;
      return res;
    },
    setHeader(name: string, value: string) {
      sent.headers[name] = value;
    },
    json(body: unknown) {
      sent.body = body;
    },
  };
  const host = { switchToHttp: () => ({ getResponse: () => res }) } as unknown as ArgumentsHost;
  new ApiExceptionFilter().catch(exception, host);
  return sent;
}

describe(ApiExceptionFilter.name, () => {
  it.each<[StoreErrorCode, number]>([
    ['NOT_FOUND', 404],
    ['CONFLICT', 409],
    ['INVALID_ARGUMENT', 400],
    ['FORBIDDEN', 403],
    ['UNAVAILABLE', 503],
  ])('maps StoreError %s to %i', (code, status) => {
    expect(statusOfStoreError(code)).toBe(status);
    expect(respond(new StoreError(code, 'm'))).toMatchObject({ status, body: { statusCode: status, error: code, message: 'm' } });
  });

  it('maps ApiError codes, with issues and a Bearer challenge on 401', () => {
    expect(statusOfApiError('SCAN_LAUNCH_UNAVAILABLE')).toBe(503);
    const v = respond(new ApiError('VALIDATION_FAILED', 'Invalid query: query.limit: x', [{ path: 'query.limit', message: 'x' }]));
    expect(v).toMatchObject({ status: 400, body: { error: 'VALIDATION_FAILED', issues: [{ path: 'query.limit', message: 'x' }] } });
    const u = respond(new ApiError('UNAUTHENTICATED', 'Invalid bearer token'));
    expect(u.status).toBe(401);
    expect(u.headers['WWW-Authenticate']).toMatch(/^Bearer /);
  });

  it('keeps Nest HTTP exceptions and their status', () => {
    expect(respond(new NotFoundException('Cannot GET /x'))).toMatchObject({ status: 404, body: { error: 'NOT_FOUND' } });
    expect(respond(new PayloadTooLargeException())).toMatchObject({ status: 413, body: { error: 'HTTP_ERROR' } });
  });

  it('answers anything else with a generic 500 that reveals nothing', () => {
    const sent = respond(new Error('password authentication failed for user "admin" at 10.0.0.5'));
    expect(sent).toEqual({ status: 500, body: { statusCode: 500, error: 'INTERNAL', message: 'Internal server error' }, headers: {} });
  });
});
