// ESLint flat config: typescript-eslint recommended, plus the dependency direction of
// ARCHITECTURE.md: libs/domain and libs/checks stay pure (no NestJS, database, queue or cloud SDK).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const impure = ['@nestjs/*', 'pg', 'bullmq', 'ioredis', 'prom-client', '@alicloud/*', '@kubernetes/*', '@electric-sql/*', 'node:fs', 'node:http', 'node:net'];

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', 'bin/**', '**/*.mjs'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      'no-restricted-imports': ['error', { patterns: [{ group: ['@app/*/src/*', '@app/*/src'], message: 'import a lib through its public entry (@app/<lib>)' }] }],
    },
  },
  {
    // One configuration (issue 9): environment variables are declared and validated in libs/config
    // (env.declaration.ts), whose processEnvironment() is the only reader of process.env
    // (no-restricted-properties also catches `const { env } = process`).
    // Allowed exceptions: the config lib itself, tests (their own knobs, e.g. TEST_DATABASE_URL,
    // CHECK) and bench scripts (BENCH_*, CHAOS_*, PG_BIN: measurement knobs, not product settings).
    files: ['**/*.ts'],
    ignores: ['libs/config/src/**', 'test/**', 'bench/**', '**/test/**', '**/*.spec.ts', '**/*.integration-spec.ts', '**/*.e2e-spec.ts'],
    rules: {
      'no-restricted-properties': ['error', { object: 'process', property: 'env', message: 'read configuration through @app/config (declare the variable in libs/config/src/env.declaration.ts)' }],
    },
  },
  {
    files: ['libs/domain/**/*.ts', 'libs/checks/**/*.ts'],
    ignores: ['**/*.spec.ts', '**/test/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: impure, message: 'libs/domain and libs/checks are pure: no framework, database, queue, network or file I/O' },
            { group: ['@app/collectors', '@app/store', '@app/audit', '@app/api', '@app/worker', '@app/fleet-sim', '@app/telemetry'], message: 'dependency direction: domain <- checks <- everything else' },
          ],
        },
      ],
    },
  },
  {
    files: ['libs/forecast/**/*.ts'],
    ignores: ['**/*.spec.ts', '**/test/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: impure, message: 'libs/forecast is pure: no framework, database, queue, network or file I/O' },
            { group: ['@app/collectors', '@app/store', '@app/audit', '@app/api', '@app/worker', '@app/fleet-sim', '@app/telemetry'], message: 'dependency direction: domain <- checks <- forecast <- everything else' },
          ],
        },
      ],
    },
  },
);
