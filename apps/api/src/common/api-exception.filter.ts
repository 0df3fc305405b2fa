import { type ArgumentsHost, Catch, type ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import { toGraphqlError } from '../graphql/graphql.options';
import { type FleetAuditError, isFleetAuditError } from '@app/errors';
import { ScenarioError } from '@app/forecast';
import { isConnectionLoss, ScanPrunedError, StoreError, type StoreErrorCode } from '@app/store';
import { scenarioApiError } from '../forecasts/scenario-errors';
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

/**
 * HTTP status of each API-layer and store error code, in one table over both code unions: a new code does not compile
 * until it is mapped here, and the codes both layers use (NOT_FOUND, FORBIDDEN) answer alike.
 */
const HTTP_STATUS_OF_CODE: Readonly<Record<ApiErrorCode | StoreErrorCode, number>> = {
  VALIDATION_FAILED: 400,
  INVALID_ARGUMENT: 400,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  FORECAST_TOO_LARGE: 422,
  RATE_LIMITED: 429,
  SCAN_LAUNCH_UNAVAILABLE: 503,
  TOKENS_DISABLED: 503,
  UNAVAILABLE: 503,
};

/** HTTP status of an API-layer or store error code. */
export function httpStatusOfCode(code: ApiErrorCode | StoreErrorCode): number {
  return HTTP_STATUS_OF_CODE[code];
}

/** What the REST transport answers for an error code: HTTP status and the body's `error` field. */
export interface HttpErrorMapping {
  statusCode: number;
  /** The `error` of the JSON body (the code itself, or the API's name for it). */
  error: string;
}

/**
 * The REST transport's mapping of libs/errors codes (the codes table: libs/errors/README.md) to
 * HTTP answers. Codes not listed fall back on the `permanent` flag (see {@link httpErrorOf}).
 */
const HTTP_BY_CODE: Readonly<Record<string, HttpErrorMapping>> = {
  // Launchers (libs/audit, libs/queue): a source name that is not configured.
  SCAN_SOURCE_UNKNOWN: { statusCode: 400, error: 'INVALID_ARGUMENT' },
  // The in-process scan queue (libs/audit QueuedScanLauncher): full (429) or shutting down (503).
  SCAN_QUEUE_FULL: { statusCode: 429, error: 'SCAN_QUEUE_FULL' },
  SCAN_QUEUE_CLOSED: { statusCode: 503, error: 'UNAVAILABLE' },
  // The distributed launcher (libs/queue): Redis did not accept the scan's job in time; no scan row is left.
  SCAN_QUEUE_UNAVAILABLE: { statusCode: 503, error: 'UNAVAILABLE' },
  // Waiver rules (libs/domain WaiverValidationError); the body also gets `issues` (see toBody).
  WAIVER_INVALID: { statusCode: 400, error: 'VALIDATION_FAILED' },
  // Forecasts (libs/audit, libs/forecast): nothing stored yet; an invalid scenario.
  FORECAST_UNAVAILABLE: { statusCode: 404, error: 'NOT_FOUND' },
  SCENARIO_INVALID: { statusCode: 400, error: 'VALIDATION_FAILED' },
  // The findings of a scan retention pruned (libs/store ScanPrunedError): gone on purpose, not absent; the body
  // names when and under which policy (see toBody), never the empty list of a healthy scan.
  SCAN_PRUNED: { statusCode: 410, error: 'SCAN_PRUNED' },
};

/**
 * The HTTP answer of one of our errors, read from its `code` (and `permanent` flag), never its
 * class name. ApiError and StoreError codes map through their exhaustive switches above; other
 * codes through HTTP_BY_CODE; a code mapped nowhere becomes 503 UNAVAILABLE when transient (a
 * retry may help) and undefined when permanent (the caller answers 500 and logs it: a bug).
 */
export function httpErrorOf(e: FleetAuditError): HttpErrorMapping | undefined {
  if (e instanceof ApiError) return { statusCode: httpStatusOfCode(e.code), error: e.code };
  if (e instanceof StoreError) return { statusCode: httpStatusOfCode(e.code), error: e.code };
  const mapped = HTTP_BY_CODE[e.code];
  if (mapped) return mapped;
  return e.permanent ? undefined : { statusCode: 503, error: 'UNAVAILABLE' };
}

/**
 * The one exception filter of the REST transport (STYLE.md H.40): maps the codes of our errors
 * (libs/errors FleetAuditError: ApiError, StoreError, ...) to HTTP statuses with
 * {@link httpErrorOf} and answers JSON `{statusCode, error, message, issues?}`. Anything
 * unexpected becomes a 500 with a generic message; its details go to the log only.
 */
@Catch()
export class ApiExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('ApiExceptionFilter');

  catch(exception: unknown, host: ArgumentsHost): void {
    // GraphQL resolvers: errors go into the GraphQL response (`errors[].extensions.code`), not an HTTP body.
    if (host.getType<string>() === 'graphql') throw toGraphqlError(exception);
    const res = host.switchToHttp().getResponse<HttpResponseLike>();
    const { body, headers } = this.answerOf(exception);
    if (res.headersSent) return;
    for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
    res.status(body.statusCode).json(body);
  }

  /**
   * The REST answer of an error: the JSON body `{statusCode, error, message, issues?}` and the headers that go with
   * it (`WWW-Authenticate` on 401, `Retry-After` on 429 and 503). `catch` sends it through Express; the admission
   * webhook's own route (admission.route.ts) sends the same answer on the bare response.
   */
  answerOf(exception: unknown): { body: ErrorResponseDto; headers: Record<string, string> } {
    const body = this.toBody(exception);
    const headers: Record<string, string> = {};
    if (body.statusCode === 401) headers['WWW-Authenticate'] = 'Bearer realm="fleet-audit"';
    if (body.statusCode === 503 || body.statusCode === 429) headers['Retry-After'] = String(retryAfterOf(exception) ?? RETRY_AFTER_SECONDS);
    return { body, headers };
  }

  private toBody(e: unknown): ErrorResponseDto {
    const mapped = isFleetAuditError(e) ? httpErrorOf(e) : undefined;
    if (isFleetAuditError(e) && mapped) {
      if (e.code === 'UNAVAILABLE') this.logger.error(e.message);
      if (e instanceof ApiError && e.issues) return { ...mapped, message: e.message, issues: e.issues };
      if (e instanceof ScanPrunedError) return { ...mapped, message: e.message, ...e.details() };
      // Every problem of a scenario, however it got here (the forecasts service converts its own: scenario-errors.ts).
      if (e instanceof ScenarioError) return this.toBody(scenarioApiError(e));
      if (e.code === 'WAIVER_INVALID') {
        const path = (e as Error & { path?: string }).path ?? 'body';
        return { ...mapped, message: `Invalid waiver: ${e.message}`, issues: [{ path: `body.${path}`, message: e.message }] };
      }
      if (!(e instanceof ApiError) && !(e instanceof StoreError) && !HTTP_BY_CODE[e.code]) this.logger.warn(`${e.code}: ${e.message}`);
      return { ...mapped, message: e.message };
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
