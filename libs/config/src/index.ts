/**
 * Public entry of libs/config: the one declaration of every environment variable, its validation
 * at boot and the namespaced config of every process; the only reader of `process.env`.
 */
export {
  ENV_VARS,
  LOG_LEVELS,
  MIN_API_TOKEN_LENGTH,
  MIN_TOKEN_HASH_KEY_LENGTH,
  type ConfigNamespace,
  type EnvValue,
  type EnvVarName,
  type EnvVarSpec,
  type LogLevelName,
  type ProcessName,
} from './env.declaration';
export { ConfigError, loadConfig, parseEnvironment, redactConfig, SECRET_CONFIG_PATHS, type EnvValues, type FleetAuditConfig } from './config.loader';
export { processEnvironment, type Environment } from './environment';
export { builtEntryPath } from './build-entry';
export { CONFIG_TABLE_BEGIN, CONFIG_TABLE_END, renderConfigTable, withConfigTable } from './config-docs';
