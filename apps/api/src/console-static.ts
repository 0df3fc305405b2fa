/**
 * The web console (apps/console, built by `npm run build:console` into dist/console) served by the API at `/`, same
 * origin: `/assets/*` (content-hashed file names: cached for a year, immutable) and index.html for the console's own
 * page paths only (CONSOLE_ROUTE), never for the API's routes (/v1, /graphql, /metrics, /healthz, /readyz, /docs,
 * /openapi.json), which keep their answers, 404 JSON included. The page holds no data: everything it shows comes from
 * the API with the signed-in token, so the shell itself needs none. Served under the API's strict
 * Content-Security-Policy (api-app.factory.ts securityHeaders: scripts of this origin only, no inline script).
 */
import type { INestApplication } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { existsSync, readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';

/**
 * The console's page paths (apps/console/src/main.tsx routes): `/`, `/findings`, `/clusters[/<id>]`,
 * `/load-balancers/<id>`, `/nlbs/<id>`, `/whatif`, `/scans[/<id>]`, `/reports`, `/waivers`, `/tokens`, with an optional trailing
 * slash. Anything else is the API's.
 */
export const CONSOLE_ROUTE =
  /^\/(?:findings|clusters(?:\/[^/]+)?|load-balancers\/[^/]+|nlbs\/[^/]+|whatif|scans(?:\/[^/]+)?|reports|waivers|tokens)?\/?$/;

/**
 * Serve the console build in `dir` (holding index.html and assets/).
 * @throws Error naming the directory when index.html is missing (the console is not built: `npm run build:console`)
 */
export function mountConsole(app: INestApplication, dir: string): void {
  const indexFile = join(dir, 'index.html');
  if (!existsSync(indexFile))
    throw new Error(`the web console is not built: ${indexFile} is missing (run npm run build:console)`);
  // Read once: index.html names the hashed assets of this build.
  const index = readFileSync(indexFile);
  (app as NestExpressApplication).useStaticAssets(join(dir, 'assets'), {
    prefix: '/assets/',
    immutable: true,
    maxAge: '365d',
    index: false,
    fallthrough: true,
    dotfiles: 'ignore',
  });
  app.use((req: IncomingMessage, res: ServerResponse, next: () => void) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    const path = (req.url ?? '').split('?')[0]!;
    if (!CONSOLE_ROUTE.test(path)) return next();
    res.statusCode = 200;
    res.setHeader('Content-Type', 'text/html; charset=utf-8');
    // Always revalidated: a new build names new asset files.
    res.setHeader('Cache-Control', 'no-cache');
    res.setHeader('Content-Length', String(index.length));
    res.end(req.method === 'HEAD' ? undefined : index);
  });
}
