/**
 * The error a synchronous call throws, for tests that assert on its fields (code, path, message) rather than only
 * on its class: `thrownBy(ConfigError, () => loadConfig(env)).issues`.
 */

/**
 * Run `run` and return what it throws when that is a `type`.
 * @throws the thrown value itself when it is not a `type` (the test fails on the real error)
 * @throws Error `expected a <type name>` when `run` returns normally
 */
export function thrownBy<E>(type: abstract new (...args: never[]) => E, run: () => unknown): E {
  try {
    run();
  } catch (e) {
    if (e instanceof type) return e;
    throw e;
  }
  throw new Error(`expected a ${type.name}`);
}
