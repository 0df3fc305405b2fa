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

/**
 * Module-level mutable state in a pure lib (libs/domain, libs/checks, libs/forecast): a value that outlives one call
 * and that a call can change: a cache, a scratch buffer, a counter. Their state belongs to the object that has the
 * lifetime (the fleet index built once per audit, a check context, a parameter); a constant table built once at load
 * is fine when its binding says it is read-only. At module scope (`Program`, or an `export` of it):
 * - `let` / `var` bindings;
 * - `new WeakMap / WeakSet / WeakRef / Array / ArrayBuffer / <typed array>` (always mutable, whatever the type says);
 * - `new Map / Set` unless the binding is typed `ReadonlyMap` / `ReadonlySet`;
 * - object and array literals unless `as const` (without a mutable type annotation), typed `Readonly<...>`,
 *   `readonly T[]`, `ReadonlyArray<...>` or `ReadonlyMap/Set`, or built by `Object.freeze(...)` (not a literal);
 * - an immediately invoked function (its closure can hide a cache);
 * - a static class field that is not `readonly`, or that holds one of the collections above.
 * What a selector cannot see (a function call returning a mutable object) is not caught. No other config object may
 * set `no-restricted-syntax` for these files: flat config replaces a rule's options, it does not merge them.
 */
const MODULE_DECL = ':matches(Program, Program > ExportNamedDeclaration) > VariableDeclaration';
const ALWAYS_MUTABLE = String.raw`/^(WeakMap|WeakSet|WeakRef|Array|ArrayBuffer|SharedArrayBuffer|(Big)?(Int|Uint|Float)(8|16|32|64)(Clamped)?Array)$/`;
const READONLY_TYPE = String.raw`/^(Readonly|ReadonlyArray|ReadonlyMap|ReadonlySet)$/`;
/** The declarator's type annotation says read-only (`Readonly<T>`, `ReadonlyMap<...>`, `readonly T[]`, ...). */
const READONLY_BINDING =
  `:matches([id.typeAnnotation.typeAnnotation.typeName.name=${READONLY_TYPE}], [id.typeAnnotation.typeAnnotation.operator="readonly"])`;
const AS_CONST = 'TSAsExpression[typeAnnotation.typeName.name="const"]';
const LITERAL = ':matches(ObjectExpression, ArrayExpression)';
const STATE = 'module-level mutable state in a pure lib';
/** `inner` as the declarator's initialiser, directly or under `as` / `satisfies` / `!` (selector list). */
const initOf = (declarator, inner) =>
  `${MODULE_DECL} > ${declarator} > ${inner}, ${MODULE_DECL} > ${declarator} > :matches(TSAsExpression, TSSatisfiesExpression, TSNonNullExpression) > ${inner}`;
const moduleState = [
  { selector: `${MODULE_DECL}[kind!="const"]`, message: `${STATE}: a module-scope let/var (pass the value, or keep it on the object that owns its lifetime)` },
  {
    selector: initOf('VariableDeclarator', `NewExpression[callee.name=${ALWAYS_MUTABLE}]`),
    message: `${STATE}: a module-scope weak collection, array or buffer is a cache or scratch space (keep it on the object that owns its lifetime, e.g. the fleet index, or pass it in)`,
  },
  {
    selector: initOf(`VariableDeclarator:not(${READONLY_BINDING})`, 'NewExpression[callee.name=/^(Map|Set)$/]'),
    message: `${STATE}: a module-scope Map/Set (a table built once at load: type the binding ReadonlyMap/ReadonlySet; a cache: keep it on the object that owns its lifetime)`,
  },
  {
    selector: [
      `${MODULE_DECL} > VariableDeclarator:not(${READONLY_BINDING}) > ${LITERAL}`,
      `${MODULE_DECL} > VariableDeclarator:not(${READONLY_BINDING}) > TSSatisfiesExpression > ${LITERAL}`,
      `${MODULE_DECL} > VariableDeclarator:not(${READONLY_BINDING}) > TSAsExpression:not([typeAnnotation.typeName.name="const"]) > ${LITERAL}`,
    ].join(', '),
    message: `${STATE}: a module-scope object/array literal is mutable (make it \`as const\`, type it Readonly<...> / readonly T[], or Object.freeze it)`,
  },
  {
    selector: [
      `${MODULE_DECL} > VariableDeclarator[id.typeAnnotation]:not(${READONLY_BINDING}) > ${AS_CONST}`,
      `${MODULE_DECL} > VariableDeclarator[id.typeAnnotation]:not(${READONLY_BINDING}) > TSSatisfiesExpression > ${AS_CONST}`,
    ].join(', '),
    message: `${STATE}: \`as const\` under a mutable type annotation is mutable through the binding (type it Readonly<...> or drop the annotation)`,
  },
  {
    selector: `${MODULE_DECL} > VariableDeclarator > CallExpression[callee.type=/^(FunctionExpression|ArrowFunctionExpression)$/]`,
    message: `${STATE}: a module-scope immediately invoked function can hide state in its closure`,
  },
  { selector: 'PropertyDefinition[static=true][readonly!=true]', message: `${STATE}: a static class field that is not readonly` },
  {
    selector: `PropertyDefinition[static=true] > NewExpression[callee.name=${ALWAYS_MUTABLE}], PropertyDefinition[static=true]:not([typeAnnotation.typeAnnotation.typeName.name=${READONLY_TYPE}]) > NewExpression[callee.name=/^(Map|Set)$/]`,
    message: `${STATE}: a static class field holding a mutable collection`,
  },
];

/** The module-state rule for one pure lib's sources (its tests aside: a spec may keep fixtures at module level). */
export function noModuleState(folder) {
  return {
    files: [`${folder}/**/*.ts`],
    ignores: ['**/*.spec.ts', '**/test/**'],
    rules: { 'no-restricted-syntax': ['error', ...moduleState] },
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
  noModuleState('libs/domain'),
  noModuleState('libs/checks'),
  noModuleState('libs/forecast'),
);
