import type { ArgumentsHost } from '@nestjs/common';
import { describe, expect, it } from 'vitest';
import { UnknownScanSourceError } from '@app/audit';
import { WaiverValidationError } from '@app/domain';
import { StoreError } from '@app/store';
import { ApiError } from './api.exception';
import { ApiExceptionFilter } from './api-exception.filter';

/** Send `e` through the filter; returns the HTTP status and JSON body it answered. */
function answer(e: unknown): { status: number; body: Record<string, unknown> } {
  const out = { status: 0, body: {} as Record<string, unknown> };
  const res = {
    status(code: number) {
      out.status = code;
      return res;
    },
    setHeader: () => undefined,
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
    [new Error('boom'), 500, 'INTERNAL'],
  ])('%s -> %i %s', (e, status, error) => {
    const r = answer(e);
    expect(r.status).toBe(status);
    expect(r.body).toMatchObject({ statusCode: status, error });
  });
});
