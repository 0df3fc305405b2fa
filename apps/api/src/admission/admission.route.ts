/**
 * The admission webhook's own route: `POST /v1/admission/{cluster}` and `/v1/admission/{cluster}/enforce` answered on
 * the bare HTTP server, in front of Express (installed by createApiApp). An apiserver calls the webhook for every
 * LoadBalancer Service change, at up to hundreds of reviews a second; Express's layer in front of every route (helmet,
 * three body parsers, the metrics middleware, the router's walk, Express's own request set-up) cost about 0.5 ms of
 * the route's 1.3 ms of CPU per review (docs/benchmarks.md). This route does what that layer and the controller did
 * for these two paths, with the same parts:
 *  - the security headers of every route, from the same helmet instance (admission answers: no CSP, api-app.factory.ts);
 *  - the request metric (`http_request_duration_seconds`, the route template as its label) and, when the API logs,
 *    the request log line (pino-http with REQUEST_LOG_OPTIONS on the application's root logger);
 *  - the JSON body within BODY_LIMIT, read before authentication as body-parser read it;
 *  - the bearer token and the route's access rule (`authorizeRequest` with the AdmissionController's decorators: the
 *    guard's one function);
 *  - AdmissionService.review, its answer written as the controller wrote it (`writeAnswer`);
 *  - errors answered by the API's exception filter (`ApiExceptionFilter.answerOf`: 400 / 401 / 403 / 429 / 500 bodies
 *    and their headers).
 * A request it cannot take exactly as Express would goes to Express unread (`takes`), where the controller answers it
 * as before: another method or path, a body that is not `application/json` in UTF-8 or is compressed, no
 * Content-Length or one over the limit (Express answers 413), a percent-encoded cluster, a client address Express
 * would take from `X-Forwarded-For` (API_TRUST_PROXY).
 */
import { BadRequestException } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parse as parseQuery } from 'node:querystring';
import { PinoLogger } from 'nestjs-pino';
import { pinoHttp } from 'pino-http';
import type { ProcessMetrics } from '@app/telemetry';
import { REQUEST_LOG_OPTIONS } from '../api.module';
import { TokenAuthenticator } from '../auth/token-authenticator';
import { ApiExceptionFilter } from '../common/api-exception.filter';
import { authorizeRequest, routeAccessOf, type HttpRequestLike, type RouteAccess } from '../common/bearer-auth.guard';
import { AdmissionController, writeAnswer } from './admission.controller';
import { AdmissionService } from './admission.service';

/** A Node request handler (Express's application, helmet's middleware take this shape). */
type Handler = (req: IncomingMessage, res: ServerResponse, next: (err?: unknown) => void) => void;

/** The admission paths: the cluster (no `/`, `?` or `%`), `/enforce`, an optional trailing slash (Express is not strict), the query. */
const ADMISSION_PATH = /^\/v1\/admission\/([^/?#%]+)(\/enforce)?\/?(?:\?(.*))?$/;

/** `application/json`, any case, with at most a UTF-8 charset (body-parser's JSON type and the charset it reads alone). */
const JSON_TYPE = /^application\/json\s*(?:;\s*charset\s*=\s*"?utf-8"?\s*)?$/i;

/** What the route is built from (createApiApp). */
export interface AdmissionRouteOptions {
  admission: AdmissionService;
  auth: TokenAuthenticator;
  /** The security headers of an admission answer (helmet without CSP, as on the Express path). */
  securityHeaders: Handler;
  metrics: ProcessMetrics;
  /** Largest body, bytes (BODY_LIMIT). */
  bodyLimit: number;
  /** The API logs requests (nestjs-pino): this route logs its own with the same options on the same root logger. */
  logRequests: boolean;
  /** Express `trust proxy` is on: a request naming a client in `X-Forwarded-For` goes to Express, which reads it. */
  trustProxy: boolean;
}

/** The admission webhook's route on the bare HTTP server (see the file comment). */
export class AdmissionRoute {
  private readonly access: { review: RouteAccess; enforced: RouteAccess };
  private readonly filter = new ApiExceptionFilter();
  private requestLog: Handler | undefined;

  constructor(private readonly options: AdmissionRouteOptions) {
    const reflector = new Reflector();
    const controller = AdmissionController.prototype;
    const review = routeAccessOf(reflector, controller.review, AdmissionController);
    const enforced = routeAccessOf(reflector, controller.reviewEnforced, AdmissionController);
    if (!review || !enforced) throw new Error('the admission routes must not be public');
    this.access = { review, enforced };
  }

  /** Whether this route answers `req` itself (else Express does, the request unread). */
  takes(req: IncomingMessage): boolean {
    if (req.method !== 'POST' || !req.url?.startsWith('/v1/admission/') || !ADMISSION_PATH.test(req.url)) return false;
    const h = req.headers;
    if (h['content-type'] === undefined || !JSON_TYPE.test(h['content-type'])) return false;
    if (h['content-encoding'] !== undefined && h['content-encoding'].toLowerCase() !== 'identity') return false;
    if (h['transfer-encoding'] !== undefined || h['content-length'] === undefined || !/^\d{1,9}$/.test(h['content-length'])) return false;
    if (Number(h['content-length']) > this.options.bodyLimit) return false;
    return !(this.options.trustProxy && h['x-forwarded-for'] !== undefined);
  }

  /** Answers a request `takes` accepted; never throws (an error is answered by the exception filter). */
  handle(req: IncomingMessage, res: ServerResponse): void {
    const m = ADMISSION_PATH.exec(req.url!)!;
    const enforcedPath = m[2] !== undefined;
    const end = this.options.metrics.httpDuration.startTimer();
    res.once('finish', () => end({ method: 'POST', route: enforcedPath ? '/v1/admission/:cluster/enforce' : '/v1/admission/:cluster', status_code: String(res.statusCode) }));
    this.options.securityHeaders(req, res, () => undefined);
    const go = () => void this.answer(req as IncomingMessage & HttpRequestLike, res, m[1]!, enforcedPath, m[3]);
    if (this.options.logRequests) this.logger()(req, res, go);
    else go();
  }

  /** The review's answer, or the exception filter's answer of what failed. */
  private async answer(req: IncomingMessage & HttpRequestLike, res: ServerResponse, cluster: string, enforcedPath: boolean, query: string | undefined): Promise<void> {
    try {
      const body = await readJson(req, this.options.bodyLimit);
      const principal = await authorizeRequest(this.options.auth, req, enforcedPath ? this.access.enforced : this.access.review);
      const q = query === undefined ? {} : parseQuery(query);
      const timeout = typeof q.timeout === 'string' ? q.timeout : undefined;
      writeAnswer(res, await this.options.admission.review(cluster, body, { enforce: enforcedPath || q.enforce === 'true', timeout }, principal));
    } catch (e) {
      if (res.headersSent) return;
      const { body, headers } = this.filter.answerOf(e);
      for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
      res.statusCode = body.statusCode;
      res.setHeader('Content-Type', 'application/json; charset=utf-8');
      res.end(JSON.stringify(body));
    }
  }

  /** The request logger: pino-http with the API's request-log options on the root logger nestjs-pino set up at init. */
  private logger(): Handler {
    if (!this.requestLog) {
      this.requestLog = pinoHttp({ ...REQUEST_LOG_OPTIONS, logger: PinoLogger.root }) as unknown as Handler;
    }
    return this.requestLog;
  }
}

/**
 * The request's JSON body, as body-parser's JSON parser reads it: an empty body is `{}`; the text must start (after
 * white space) with `{` or `[`, else it is refused as malformed.
 * @throws BadRequestException (its cause the SyntaxError: the exception filter's "Invalid body: not valid JSON")
 *   for a body that is not JSON; Error when the connection fails or the body outgrows `limit`
 */
function readJson(req: IncomingMessage, limit: number): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) chunks.push(chunk);
    });
    // A connection lost mid-body: body-parser's 400 "request aborted".
    req.once('error', () => reject(new BadRequestException('request aborted')));
    req.once('end', () => {
      // Content-Length was within the limit, and Node reads no more than it announces.
      if (size > limit) return reject(new BadRequestException('request entity too large'));
      let text = (chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)).toString('utf8');
      // A byte-order mark is dropped, as body-parser's decoding drops it.
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      const first = /^[ \t\n\r]*([^ \t\n\r])/.exec(text);
      if (!first) return resolve({});
      try {
        const c = first[1]!;
        if (c !== '{' && c !== '[') throw new SyntaxError(`Unexpected token '${c}', "${text.slice(first[0].length - 1, first[0].length + 9)}" is not valid JSON`);
        resolve(JSON.parse(text));
      } catch (e) {
        reject(new BadRequestException((e as Error).message, { cause: e }));
      }
    });
  });
}
