/**
 * The CLI's view of libs/config: the declared variables the `fleet-audit` commands read
 * (DATABASE_URL, REDIS_URL, FLEET_AUDIT_QUEUE_PREFIX, API_TOKEN, TOKEN_HASH_KEY, LOG_LEVEL, NO_COLOR,
 * FLEET_AUDIT_DEBUG, USER, and the worker's variables for `fleet-audit worker`), validated once at boot by
 * `main()` (an invalid one: one error line naming it, exit 2).
 *
 * Flags default from variables in two ways, both reading validated values: commander's
 * `Option.env(NAME)` for options shown as "(env: NAME)" in `--help` (the names must be declared in
 * libs/config: apps/cli/src/cli-config.spec.ts checks it), and `cliConfig()` in the commands.
 */
import { loadConfig, processEnvironment, type FleetAuditConfig } from '@app/config';

let loaded: FleetAuditConfig | undefined;

/**
 * The validated configuration of this CLI process (loaded on first use, then cached).
 * @throws ConfigError naming every invalid variable and the expected shape (never a value)
 */
export function cliConfig(): FleetAuditConfig {
  loaded ??= loadConfig(processEnvironment(), 'cli');
  return loaded;
}

/**
 * Validate the environment again and cache it: `main()` calls it on entry, so each in-process run (tests) reads
 * the variables it was started with.
 * @throws ConfigError as cliConfig
 */
export function reloadCliConfig(): FleetAuditConfig {
  loaded = undefined;
  return cliConfig();
}

/**
 * Whether FLEET_AUDIT_DEBUG=1 asks for stack traces. False when the configuration itself is
 * invalid (the error being reported then is that ConfigError, which names the variable).
 */
export function debugWanted(): boolean {
  try {
    return cliConfig().cli.debug;
  } catch {
    return false;
  }
}
