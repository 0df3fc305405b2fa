// ESLint flat config: typescript-eslint recommended, plus the dependency direction of
// ARCHITECTURE.md: libs/domain and libs/checks stay pure (no NestJS, database, queue or cloud SDK).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const impure = ['@nestjs/*', 'pg', 'bullmq', 'ioredis', 'prom-client', '@alicloud/*', '@kubernetes/*', '@electric-sql/*', 'node:fs', 'node:http', 'node:net'];

// Deep imports reach past a lib's public entry.
const deepImport = { group: ['@app/*/src/*', '@app/*/src'], message: 'import a lib through its public entry (@app/<lib>)' };

/**
 * The fence of a pure lib (`folder`, its tests aside): no impure package and no lib but `allowed`. A later
 * config object's `no-restricted-imports` replaces an earlier one's options (flat config merges a rule's
 * options by replacement), so the global deep-import pattern is repeated here, not lost.
 */
function pureLib(folder, allowed, message) {
  return {
    files: [`${folder}/**/*.ts`],
    ignores: ['**/*.spec.ts', '**/test/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            deepImport,
            { group: impure, message: `${folder} is pure: no framework, database, queue, network or file I/O` },
            { group: ['@app/*', ...allowed.map((lib) => `!${lib}`)], message },
          ],
        },
      ],
    },
  };
}

export default tseslint.config(
  { ignores: ['dist/**', 'dist-test/**', 'node_modules/**', 'coverage/**', 'bin/**', '**/*.mjs'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      'no-restricted-imports': ['error', { patterns: [deepImport] }],
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
  pureLib('libs/domain', ['@app/errors'], 'libs/domain imports no other lib (libs/errors, a leaf every lib may import, aside)'),
  pureLib('libs/checks', ['@app/domain', '@app/errors'], 'dependency direction: domain <- checks <- everything else'),
  pureLib('libs/forecast', ['@app/domain', '@app/checks', '@app/errors'], 'dependency direction: domain <- checks <- forecast <- everything else'),
  pureLib('libs/errors', [], 'libs/errors is the leaf every lib imports: it imports no lib'),
);
