/**
 * Standalone API process: `DATABASE_URL=... API_TOKEN=... [API_PORT=3000] node dist/apps/api/apps/api/src/main.js`.
 * Validates its environment once (fails fast with a message naming the bad variables), migrates
 * the database, and serves on 127.0.0.1 only. Scans are started elsewhere (CLI, worker), so
 * `POST /v1/scans` answers 503 here.
 */
import { processEnvironment } from '@app/config';
import { Store } from '@app/store';
import { createApiApp } from './api-app.factory';
import { loadApiConfig } from './api-config';
import { UnavailableScanLauncher } from './unavailable-scan-launcher';

async function bootstrap(): Promise<void> {
  const config = loadApiConfig(processEnvironment());
  const store = await Store.open({
    connectionString: config.database.url,
    migrate: true,
    ...(config.api.tokenHashKey ? { tokenHashKey: config.api.tokenHashKey } : {}),
  });
  const app = await createApiApp({ store, token: config.api.token, scanLauncher: new UnavailableScanLauncher(), log: { level: config.log.level }, graphql: config.graphql, trustProxy: config.api.trustProxy, forecasts: config.forecasts, scanLaunchesPerMinute: config.scans.launchesPerMinute });
  const host = config.api.host;
  await app.listen(config.api.port, host);
  process.stderr.write(`api: listening on http://${host}:${config.api.port} (OpenAPI: /openapi.json, Swagger UI: /docs)\n`);
  const shutdown = async () => {
    await app.close();
    await store.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void shutdown());
  process.once('SIGTERM', () => void shutdown());
}

bootstrap().catch((e: unknown) => {
  process.stderr.write(`api: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
