import { type ArgumentsHost, Catch, type ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import { toGraphqlError } from '../graphql/graphql.options';
import { isFleetAuditError } from '@app/errors';
import { isConnectionLoss, StoreError, type StoreErrorCode } from '@app/store';
import { ApiError, type ApiErrorCode } from './api.exception';
import type { ErrorResponseDto } from './error-response.dto';

/** The parts of Express's response the filter uses (no @types/express here). */
interface HttpResponseLike {
  headersSent?: boolean;
  status(code: number): HttpResponseLike;
  setHeader(name: string, value: string): unknown;
  json(body: unknown): unknown;
}

/** `Retry-After` (seconds) of 503 and 429 answers: about how long a PostgreSQL restart takes. */
export const RETRY_AFTER_SECONDS = 5;

/** The `retryAfterSeconds` an error carries (ScanQueueFullError: the last scan's duration), if any. */
function retryAfterOf(e: unknown): number | undefined {
  const v = e instanceof Error ? (e as { retryAfterSeconds?: unknown }).retryAfterSeconds : undefined;
  return typeof v === 'number' && Number.isInteger(v) && v > 0 ? v : undefined;
}

/** HTTP status of an API-layer error code (exhaustive: a new code must be mapped here). */
export function statusOfApiError(code: ApiErrorCode): number {
  switch (code) {
    case 'VALIDATION_FAILED':
      return 400;
    case 'UNAUTHENTICATED':
      return 401;
    case 'FORBIDDEN':
      return 403;
    case 'RATE_LIMITED':
      return 429;
    case 'NOT_FOUND':
      return 404;
    case 'SCAN_LAUNCH_UNAVAILABLE':
    case 'TOKENS_DISABLED':
      return 503;
  }
}

/** HTTP status of a store error code (exhaustive: a new code must be mapped here). */
export function statusOfStoreError(code: StoreErrorCode): number {
  switch (code) {
    case 'NOT_FOUND':
      return 404;
    case 'CONFLICT':
      return 409;
    case 'INVALID_ARGUMENT':
      return 400;
    case 'FORBIDDEN':
      return 403;
    case 'UNAVAILABLE':
      return 503;
  }
}

/**
 * The one exception filter of the REST transport (STYLE.md H.40): maps ApiError and StoreError
 * codes to HTTP statuses and answers JSON `{statusCode, error, message, issues?}`. Anything
 * unexpected becomes a 500 with a generic message; its details go to the log only.
 */
@Catch()
export class ApiExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('ApiExceptionFilter');

  catch(exception: unknown, host: ArgumentsHost): void {
    // GraphQL resolvers: errors go into the GraphQL response (`errors[].extensions.code`), not an HTTP body.
    if (host.getType<string>() === 'graphql') throw toGraphqlError(exception);
    const res = host.switchToHttp().getResponse<HttpResponseLike>();
    const body = this.toBody(exception);
    if (res.headersSent) return;
    if (body.statusCode === 401) res.setHeader('WWW-Authenticate', 'Bearer realm="fleet-audit"');
    if (body.statusCode === 503 || body.statusCode === 429) res.setHeader('Retry-After', String(retryAfterOf(exception) ?? RETRY_AFTER_SECONDS));
    res.status(body.statusCode).json(body);
  }

  private toBody(e: unknown): ErrorResponseDto {
    if (e instanceof ApiError) {
      return { statusCode: statusOfApiError(e.code), error: e.code, message: e.message, ...(e.issues ? { issues: e.issues } : {}) };
    }
    // The launchers (libs/audit, libs/queue) reject a source name that is not configured; matched
    // by its libs/errors code so the API does not depend on the launcher libraries.
    if (isFleetAuditError(e) && e.code === 'SCAN_SOURCE_UNKNOWN') {
      return { statusCode: 400, error: 'INVALID_ARGUMENT', message: e.message };
    }
    // The in-process scan queue (libs/audit QueuedScanLauncher): full (429) or shutting down (503).
    if (e instanceof Error && e.name === 'ScanQueueFullError') {
      return { statusCode: 429, error: 'SCAN_QUEUE_FULL', message: e.message };
    }
    if (e instanceof Error && e.name === 'ScanQueueClosedError') {
      return { statusCode: 503, error: 'UNAVAILABLE', message: e.message };
    }
    // Waiver rules (libs/domain WaiverValidationError): the field and the rule broken.
    if (isFleetAuditError(e) && e.code === 'WAIVER_INVALID') {
      const path = (e as Error & { path?: string }).path ?? 'body';
      return { statusCode: 400, error: 'VALIDATION_FAILED', message: `Invalid waiver: ${e.message}`, issues: [{ path: `body.${path}`, message: e.message }] };
    }
    if (e instanceof StoreError) {
      if (e.code === 'UNAVAILABLE') this.logger.error(e.message);
      return { statusCode: statusOfStoreError(e.code), error: e.code, message: e.message };
    }
    // Text PostgreSQL refuses (NUL: 22021 character_not_in_repertoire / invalid byte sequence,
    // 22P05 untranslatable_character) that reached a query: the request's fault, not a bug.
    if (e instanceof Error && ['22021', '22P05'].includes(String((e as { code?: unknown }).code))) {
      return { statusCode: 400, error: 'VALIDATION_FAILED', message: 'Invalid request: text contains a character PostgreSQL cannot store (NUL or invalid UTF-8)' };
    }
    // The database connection was lost (PostgreSQL restarting): a transient outage, not a bug.
    if (isConnectionLoss(e)) {
      this.logger.warn(`database unavailable: ${e instanceof Error ? e.message.split('\n')[0] : String(e)}`);
      return { statusCode: 503, error: 'UNAVAILABLE', message: 'The database is unavailable; retry later' };
    }
    if (e instanceof HttpException) {
      // Nest's own: unknown route 404; body-parser and Express errors mapped by the adapter
      // (malformed JSON -> 400 with the SyntaxError as cause, payload too large 413, ...).
      const status = e.getStatus();
      if (e.cause instanceof SyntaxError) {
        return { statusCode: status, error: 'VALIDATION_FAILED', message: `Invalid body: not valid JSON (${e.message})` };
      }
      const error = status === 400 ? 'VALIDATION_FAILED' : status === 404 ? 'NOT_FOUND' : 'HTTP_ERROR';
      return { statusCode: status, error, message: e.message };
    }
    this.logger.error(e instanceof Error ? (e.stack ?? e.message) : String(e));
    return { statusCode: 500, error: 'INTERNAL', message: 'Internal server error' };
  }
}
