/**
 * API replicas for cache e2e specs: `n` Nest apps (the production module), each on its own Store of one database,
 * as replicas behind a load balancer share PostgreSQL. The first store migrates.
 */
import type { INestApplication } from '@nestjs/common';
import { createApiApp, UnavailableScanLauncher } from '@app/api';
import { Store } from '@app/store';

/** Replicas opened by `openApiReplicas`: `stores[i]` backs `apps[i]`. */
export interface ApiReplicas {
  stores: Store[];
  apps: INestApplication[];
  /** Closes every app, then every store. */
  close(): Promise<void>;
}

/** Opens `n` API replicas on the database at `url` (bearer `token`, token hash key `tokenHashKey`). */
export async function openApiReplicas(url: string, token: string, tokenHashKey: string, n = 2): Promise<ApiReplicas> {
  const stores: Store[] = [];
  const apps: INestApplication[] = [];
  for (let i = 0; i < n; i++) {
    const store = await Store.open({ connectionString: url, migrate: i === 0, tokenHashKey });
    stores.push(store);
    const app = await createApiApp({ store, token, scanLauncher: new UnavailableScanLauncher() });
    await app.init();
    apps.push(app);
  }
  return {
    stores,
    apps,
    async close() {
      for (const app of apps) await app.close();
      for (const store of stores) await store.close();
    },
  };
}
