/**
 * Error model of the live collectors: every failure of a read (an API error, a network error, a
 * malformed response) becomes a CollectError carrying a stable `errorCode` (the API's own code
 * where there is one, e.g. `Throttling.User`, `Forbidden.RAM`, `InvalidAccessKeyId.NotFound`) and
 * a one-line message that names the API and the target. The scan turns it into a `failed`
 * coverage entry; it never crashes the scan.
 *
 * Error shapes handled (research/alibaba-cloud-api.md section 1.5): openapi-core's
 * `ThrottlingError` / `ClientError` / `ServerError` (`code`, `statusCode`, `requestId`, `data`,
 * `retryAfter`), darabonba / Node network errors (`code` such as `ECONNREFUSED`), and
 * `@kubernetes/client-node`'s `ApiException` (`code` = HTTP status, `body` = the Status object).
 */

import { FleetAuditError, fleetAuditErrorKind } from '@app/errors';

/** A failed read: which API on which target, with the API's error code. */
export class CollectError extends FleetAuditError {
  override readonly name = 'CollectError';
  /** Stable code of every failed read (libs/errors README); the API's own code is `errorCode`. */
  readonly code = 'COLLECT_FAILED';
  /** Permanent unless `retryable` (throttling, 5xx, network): a 4xx answer repeats on retry. */
  get permanent(): boolean {
    return !this.retryable;
  }
  /**
   * @param errorCode the API's error code (`Throttling.User`, `ECONNREFUSED`, `InvalidResponse`, ...)
   * @param message one line, names API and target; never contains credentials
   * @param retryable whether a retry may succeed (throttling, 5xx, network)
   * @param notFound whether the API said the target does not exist (404 / `*.NotFound`)
   * @param retryAfterMs server's `x-acs-retry-after` hint, milliseconds
   */
  constructor(
    readonly errorCode: string,
    message: string,
    readonly retryable = false,
    readonly notFound = false,
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }
}

/** Raised when the caller's AbortSignal fires; it is not turned into coverage, it ends the scan. */
export class ScanAbortedError extends fleetAuditErrorKind('ScanAbortedError', 'SCAN_ABORTED', false) {
  // transient: cancelled by the caller (Ctrl+C, shutdown), not by the input: a new run may succeed.
  constructor() {
    super('the scan was aborted');
  }
}

const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EAI_AGAIN',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);
/** Gateway authentication errors: never "not found" even when sent with 404 (`InvalidAccessKeyId.NotFound`). */
const AUTH_ERROR =
  /^(InvalidAccessKeyId|SignatureDoesNotMatch|IncompleteSignature|InvalidSecurityToken|MissingSecurityToken|InvalidTimeStamp)/;
/** Error code of a response body that is not JSON (an HTML error page, a body cut short); retried. */
export const INVALID_JSON = 'InvalidJson';

/** Codes worth retrying even though they are not `Throttling*` or 5xx. */
const TRANSIENT_NETWORK = new Set([
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EAI_AGAIN',
  'UND_ERR_SOCKET',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'ReadTimeout',
  'ConnectTimeout',
]);

function prop(o: unknown, key: string): unknown {
  return typeof o === 'object' && o !== null ? (o as Record<string, unknown>)[key] : undefined;
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' && v !== 'undefined' ? v : undefined;
}

function num(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

/** Replace every occurrence of a secret (AccessKey id/secret, STS token) by `***`. */
export function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) if (s.length >= 4) out = out.split(s).join('***');
  return out;
}

/** First line of a text, at most 300 characters. */
function oneLine(text: string): string {
  const line = text.split('\n').find((l) => l.trim() !== '') ?? text;
  return line.length > 300 ? `${line.slice(0, 297)}...` : line;
}

/** The root cause chain of an error (`cause` of undici's `fetch failed`, darabonba wrappers). */
function causes(err: unknown): unknown[] {
  const out: unknown[] = [];
  let cur: unknown = err;
  for (let i = 0; i < 5 && cur !== undefined && cur !== null; i++) {
    out.push(cur);
    cur = prop(cur, 'cause');
  }
  return out;
}

/**
 * A client's error mapper: `(err, api, target, secrets = [])` as `map` takes it, except that a CollectError
 * passes through as is and a ScanAbortedError is rethrown (a cancelled scan is no collect error). The
 * passthrough of `alibabaError` and `kubernetesError`, written once.
 */
function collectErrorMapper(
  map: (err: unknown, api: string, target: string, secrets: readonly string[]) => CollectError,
): (err: unknown, api: string, target: string, secrets?: readonly string[]) => CollectError {
  return (err, api, target, secrets = []) => {
    if (err instanceof CollectError) return err;
    if (err instanceof ScanAbortedError) throw err;
    return map(err, api, target, secrets);
  };
}

/**
 * Turn anything thrown by an Alibaba Cloud SDK call into a CollectError.
 * @param err what the SDK threw
 * @param api the API action, e.g. `DescribeLoadBalancerAttribute`
 * @param target what was read, e.g. `lb-xxx` or `123/cn-hangzhou`
 * @param secrets values to redact from the message (AccessKey id/secret, token)
 */
export const alibabaError = collectErrorMapper((err, api, target, secrets) => {
  const name = str(prop(err, 'name'));
  const code = str(prop(err, 'code'));
  const status = num(prop(err, 'statusCode'));
  const data = prop(err, 'data');
  const apiMessage = str(prop(data, 'Message')) ?? str(prop(data, 'message'));
  const requestId = str(prop(err, 'requestId'));
  const retryAfter = num(prop(err, 'retryAfter'));
  if (
    name === 'ThrottlingError' ||
    name === 'ClientError' ||
    name === 'ServerError' ||
    status !== undefined
  ) {
    const errorCode = code ?? (status !== undefined ? `HTTP${status}` : 'UnknownError');
    const what = apiMessage ?? str(prop(err, 'message')) ?? errorCode;
    const retryable =
      name === 'ThrottlingError' ||
      errorCode.includes('Throttling') ||
      (status !== undefined && status >= 500);
    // SLB answers an unknown vServer group with 400 InvalidParameter "... does not exist." (the
    // wording the Terraform provider matches on); RAM uses EntityNotExist.*.
    const notFound =
      !AUTH_ERROR.test(errorCode) &&
      (status === 404 ||
        /\.NotFound$|NotFound\.|^EntityNotExist/.test(errorCode) ||
        errorCode.endsWith('NotExist') ||
        (errorCode === 'InvalidParameter' && /does not exist/i.test(apiMessage ?? '')));
    const msg = `${api} ${target}: ${errorCode}${status !== undefined ? ` (HTTP ${status})` : ''}: ${oneLine(what)}${requestId ? ` [RequestId ${requestId}]` : ''}`;
    return new CollectError(errorCode, redact(msg, secrets), retryable, notFound, retryAfter);
  }
  for (const c of causes(err)) {
    const cc = str(prop(c, 'code'));
    if (cc && (NETWORK_CODES.has(cc) || /^E[A-Z]+$/.test(cc))) {
      const msg = `${api} ${target}: ${cc}: ${oneLine(str(prop(c, 'message')) ?? cc)}`;
      return new CollectError(cc, redact(msg, secrets), TRANSIENT_NETWORK.has(cc));
    }
  }
  const errName = name ?? 'Error';
  const text = str(prop(err, 'message')) ?? String(err);
  // `@alicloud/credentials` default chain: "unable to get credentials from any of the providers in the chain: ..."
  const noCredentials = /unable to get credentials/i.test(text);
  // darabonba's RequestTimeoutError: "ReadTimeout(10000). POST http://... failed."
  const timeout = /^(ReadTimeout|ConnectTimeout)\b/.exec(text)?.[1];
  // A body that is not JSON (a gateway's HTML error page) or was cut short: JSON.parse's SyntaxError.
  const notJson = errName === 'SyntaxError';
  const errorCode = noCredentials
    ? 'CredentialsUnavailable'
    : notJson
      ? INVALID_JSON
      : (timeout ?? code ?? (errName === 'Error' ? 'UnknownError' : errName));
  const msg = `${api} ${target}: ${errorCode}: ${oneLine(text)}`;
  return new CollectError(
    errorCode,
    redact(msg, secrets),
    notJson || TRANSIENT_NETWORK.has(errorCode) || /timeout/i.test(errName),
  );
});

/**
 * Turn anything thrown by `@kubernetes/client-node` into a CollectError.
 * `ApiException.code` is the HTTP status; `body` is a Status object (`reason`, `message`) or text.
 */
export const kubernetesError = collectErrorMapper((err, api, target, secrets) => {
  const status = num(prop(err, 'code'));
  // `code` is the HTTP status only on an ApiException: a DOMException (TimeoutError, AbortError) carries a
  // legacy numeric `code` too (23 for TimeoutError), which is no HTTP status.
  if (status !== undefined && status >= 100 && status <= 599 && str(prop(err, 'name')) !== 'TypeError') {
    let body: unknown = prop(err, 'body');
    if (typeof body === 'string') {
      try {
        body = JSON.parse(body) as unknown;
      } catch {
        /* plain-text body */
      }
    }
    const reason = str(prop(body, 'reason'));
    const text =
      str(prop(body, 'message')) ??
      (typeof body === 'string' ? body : undefined) ??
      str(prop(err, 'message')) ??
      '';
    const errorCode = reason ?? `HTTP${status}`;
    const msg = `${api} ${target}: ${errorCode} (HTTP ${status}): ${oneLine(text)}`;
    const retryAfterS = Number(headerOf(prop(err, 'headers'), 'retry-after'));
    return new CollectError(
      errorCode,
      redact(msg, secrets),
      status === 429 || status >= 500,
      status === 404,
      Number.isFinite(retryAfterS) && retryAfterS > 0 ? retryAfterS * 1000 : undefined,
    );
  }
  for (const c of causes(err)) {
    const cc = str(prop(c, 'code'));
    if (cc && (NETWORK_CODES.has(cc) || /^E[A-Z]+$/.test(cc))) {
      const msg = `${api} ${target}: ${cc}: the Kubernetes API server is unreachable (${oneLine(str(prop(c, 'message')) ?? cc)})`;
      return new CollectError(cc, redact(msg, secrets), TRANSIENT_NETWORK.has(cc));
    }
  }
  const name = str(prop(err, 'name')) ?? 'Error';
  const text = str(prop(err, 'message')) ?? String(err);
  const errorCode =
    name === 'TimeoutError' || name === 'AbortError'
      ? 'Timeout'
      : name === 'SyntaxError'
        ? INVALID_JSON
        : name === 'Error' || name === 'TypeError'
          ? 'KubernetesClientError'
          : name;
  const msg = `${api} ${target}: ${errorCode}: ${oneLine(text)}`;
  return new CollectError(
    errorCode,
    redact(msg, secrets),
    errorCode === 'Timeout' || errorCode === INVALID_JSON || /terminated|aborted|socket/i.test(text),
  );
});

/** A header of client-node's ApiException `headers` (a plain object with lower-case names). */
function headerOf(headers: unknown, name: string): string | undefined {
  const v = prop(headers, name);
  return typeof v === 'string' ? v : Array.isArray(v) && typeof v[0] === 'string' ? v[0] : undefined;
}
