/**
 * The one place that reads `process.env` (the ESLint rule `no-restricted-properties` in
 * eslint.config.mjs forbids it everywhere else, except tests and bench scripts).
 *
 * Composition roots (apps' `main.ts`, the CLI's entry and commands) pass this to `loadConfig`.
 * The only other reader is a scan config's named credentials (`credentials.accessKeyIdEnv` /
 * `accessKeySecretEnv`, libs/collectors): their names are chosen by the operator, so they cannot
 * be declared in `env.declaration.ts`; they are secrets and never printed.
 */

/** A read-only view of an environment: variable name -> value (undefined when unset). */
export type Environment = Readonly<Record<string, string | undefined>>;

/**
 * The environment of this process.
 * @returns `process.env` itself (live: later changes by tests are visible), typed read-only
 */
export function processEnvironment(): Environment {
  return process.env;
}
