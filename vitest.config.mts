import { defineConfig } from 'vitest/config';
import swc from 'unplugin-swc';
import { fileURLToPath } from 'node:url';

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));

export default defineConfig({
  plugins: [swc.vite({ module: { type: 'es6' } })],
  resolve: {
    alias: {
      '@app/domain': here('./libs/domain/src/index.ts'),
      '@app/checks': here('./libs/checks/src/index.ts'),
      '@app/collectors': here('./libs/collectors/src/index.ts'),
      '@app/store': here('./libs/store/src/index.ts'),
      '@app/telemetry': here('./libs/telemetry/src/index.ts'),
      '@app/audit': here('./libs/audit/src/index.ts'),
      '@app/forecast': here('./libs/forecast/src/index.ts'),
      '@app/reports': here('./libs/reports/src/index.ts'),
      '@app/queue': here('./libs/queue/src/index.ts'),
      '@app/config': here('./libs/config/src/index.ts'),
      '@app/errors': here('./libs/errors/src/index.ts'),
      '@app/fleet-sim': here('./apps/fleet-sim/src/index.ts'),
      '@app/api': here('./apps/api/src/index.ts'),
      '@app/worker': here('./apps/worker/src/index.ts'),
    },
  },
  test: {
    include: ['apps/**/*.spec.ts', 'libs/**/*.spec.ts', 'test/**/*.spec.ts', 'test/**/*.integration-spec.ts', 'test/**/*.e2e-spec.ts'],
    globalSetup: ['./test/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
  },
});
