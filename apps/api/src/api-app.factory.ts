import type { INestApplication, LogLevel } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import helmet from 'helmet';
import { Logger } from 'nestjs-pino';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { MIN_API_TOKEN_LENGTH } from '@app/config';
import type { ProcessMetrics } from '@app/telemetry';
import { PROCESS_METRICS } from './api.constants';
import { ApiModule, type ApiModuleOptions } from './api.module';
import { ApiExceptionFilter } from './common/api-exception.filter';
import { mountOpenApi } from './openapi.util';
import { mountConsole } from './console-static';
import { AdmissionRoute } from './admission/admission.route';
import { AdmissionService } from './admission/admission.service';
import { TokenAuthenticator } from './auth/token-authenticator';

/** Largest request body accepted, JSON or YAML (body-parser's default for JSON, kept for YAML; 413 beyond). */
export const BODY_LIMIT = '100kb';

/** BODY_LIMIT in bytes (body-parser reads `kb` as 1,024 bytes). */
export const BODY_LIMIT_BYTES = 100 * 1024;

/** Content types read as YAML text (a what-if scenario): RFC 9512 `application/yaml` and the older names. */
export const YAML_BODY_TYPES = ['application/yaml', 'application/x-yaml', 'text/yaml', 'text/x-yaml'];

/** Options of `createApiApp`. */
export interface ApiAppOptions extends ApiModuleOptions {
  /**
   * Nest logging: `true` all levels (startup, routes), `false` none, default errors and warnings
   * only (embedded use in the CLI). Request headers, hence the token, are never logged.
   */
  logger?: boolean;
  /**
   * Express 'trust proxy' (API_TRUST_PROXY): which proxies may name the client in `X-Forwarded-For`. The client
   * address is what failed-authentication throttling counts per address and what audit rows record. Default false:
   * the socket peer, the header ignored (a client could otherwise pick a fresh address for every guess).
   */
  trustProxy?: number | string | boolean;
  /**
   * Directory of the web console build (dist/console: index.html and assets/), served at `/` (console-static.ts);
   * unset: no console.
   */
  consoleDir?: string;
}

/** Shortest accepted token (characters): shorter ones are guessable (declared with API_TOKEN in libs/config). */
export const MIN_TOKEN_LENGTH = MIN_API_TOKEN_LENGTH;

/** A Node / Express middleware. */
type Middleware = (req: IncomingMessage, res: ServerResponse, next: (err?: unknown) => void) => void;

function loggerLevels(logger: boolean | undefined): LogLevel[] | false {
  if (logger === true) return ['log', 'error', 'warn', 'debug', 'verbose', 'fatal'];
  if (logger === false) return false;
  return ['error', 'warn', 'fatal'];
}

/**
 * Security headers on every answer, with helmet (the Express project's own recommendation,
 * expressjs.com/en/advanced/best-practice-security.html): `X-Content-Type-Options: nosniff`, `X-Frame-Options` /
 * `frame-ancestors 'none'`, `Referrer-Policy: no-referrer`, and a Content-Security-Policy allowing only this origin's
 * scripts (Swagger UI at /docs loads its scripts from here; its styles and the HTML reports' are inline, hence
 * `style-src 'unsafe-inline'`). The Apollo Sandbox page (`demo`, GRAPHQL_SANDBOX=1) loads its scripts from Apollo's
 * CDN: with the sandbox on, GET /graphql gets no CSP (every other header stays). The admission webhook's answers
 * (`POST /v1/admission/...`) are JSON for a kube-apiserver, never a page a browser renders: they get no CSP either
 * (building its header was about 6 % of the event loop's time per review), every other header stays.
 * @param sandbox whether the Apollo Sandbox page is served on GET /graphql
 */
function securityHeaders(sandbox: boolean): { all: Middleware; admission: Middleware } {
  const directives = {
    defaultSrc: ["'self'"],
    scriptSrc: ["'self'"],
    styleSrc: ["'self'", "'unsafe-inline'"],
    imgSrc: ["'self'", 'data:'],
    frameAncestors: ["'none'"],
    objectSrc: ["'none'"],
    baseUri: ["'none'"],
    formAction: ["'self'"],
  };
  const strict = helmet({ contentSecurityPolicy: { useDefaults: false, directives }, frameguard: { action: 'deny' }, referrerPolicy: { policy: 'no-referrer' } });
  const withoutCsp = helmet({ contentSecurityPolicy: false, frameguard: { action: 'deny' }, referrerPolicy: { policy: 'no-referrer' } });
  return {
    all: (req, res, next) => {
      const url = req.url ?? '';
      const noCsp = req.method === 'GET' ? sandbox && url.startsWith('/graphql') : req.method === 'POST' && url.startsWith('/v1/admission/');
      (noCsp ? withoutCsp : strict)(req, res, next);
    },
    admission: withoutCsp,
  };
}

/**
 * Build the REST API application (not listening yet). The caller listens on loopback only:
 * `await app.listen(port, '127.0.0.1')` (or `app.init()` for supertest), and closes the app
 * before the store.
 * @throws Error when the token is shorter than 16 characters or contains whitespace (the
 *   message never contains the token)
 */
export async function createApiApp(options: ApiAppOptions): Promise<INestApplication> {
  if (options.token.length < MIN_TOKEN_LENGTH || /\s/.test(options.token)) {
    throw new Error(`API token must be at least ${MIN_TOKEN_LENGTH} characters without whitespace`);
  }
  const app = await NestFactory.create<NestExpressApplication>(ApiModule.register(options), {
    ...(options.log ? { bufferLogs: true } : { logger: loggerLevels(options.logger) }),
    // Throw on bootstrap errors instead of process.abort(): this is a library factory.
    abortOnError: false,
  });
  // Also registered globally outside DI, so errors raised before routing (unknown route,
  // malformed JSON body) get the same JSON shape.
  app.useGlobalFilters(new ApiExceptionFilter());
  // `POST /v1/forecasts/whatif` also takes the scenario as YAML, the format scenarios ship in:
  // the body as text, within the same size limit as JSON bodies (body-parser's 100 kB; 413 beyond).
  app.useBodyParser('text', { type: YAML_BODY_TYPES, limit: BODY_LIMIT });
  app.disable('x-powered-by');
  app.set('trust proxy', options.trustProxy ?? false);
  const headers = securityHeaders(options.graphql !== false && options.graphql?.sandbox === true);
  app.use(headers.all);
  if (options.log) app.useLogger(app.get(Logger));
  // http_request_duration_seconds: labelled by the route template (`/v1/scans/:id`), never the raw URL,
  // so the series stay bounded; unmatched paths share one label.
  const httpDuration = app.get<ProcessMetrics>(PROCESS_METRICS).httpDuration;
  app.use((req: IncomingMessage & { baseUrl?: string; route?: { path?: string } }, res: ServerResponse, next: () => void) => {
    const end = httpDuration.startTimer();
    res.on('finish', () => {
      const route = req.route?.path;
      end({ method: req.method ?? 'GET', route: route ? `${req.baseUrl ?? ''}${route}` : 'unmatched', status_code: String(res.statusCode) });
    });
    next();
  });
  mountOpenApi(app);
  if (options.consoleDir !== undefined) mountConsole(app, options.consoleDir);
  // The admission webhook's reviews are answered in front of Express (admission.route.ts); every other request, and
  // an admission request that route does not take, goes to Express as before.
  const route = new AdmissionRoute({
    admission: app.get(AdmissionService),
    auth: app.get(TokenAuthenticator),
    securityHeaders: headers.admission,
    metrics: app.get<ProcessMetrics>(PROCESS_METRICS),
    bodyLimit: BODY_LIMIT_BYTES,
    logRequests: options.log !== undefined,
    trustProxy: Boolean(options.trustProxy),
  });
  const server = app.getHttpServer() as Server;
  const express = server.listeners('request');
  if (express.length !== 1) throw new Error(`expected Express as the one request listener of the HTTP server, found ${express.length}`);
  const handler = express[0] as (req: IncomingMessage, res: ServerResponse) => void;
  server.removeAllListeners('request');
  server.on('request', (req: IncomingMessage, res: ServerResponse) => (route.takes(req) ? route.handle(req, res) : handler(req, res)));
  return app;
}
