/**
 * Structured logs of the long-running processes (api, worker): pino, one JSON object per line on
 * stdout, level from `LOG_LEVEL` (the caller passes it in from its validated config), pretty-printed
 * only on a terminal (pino-pretty, colours only there), so files and log collectors never get ANSI
 * codes. Secrets are removed by path before anything is written (`LOG_REDACT_PATHS`).
 */
import pino, { type DestinationStream, type Logger, type LoggerOptions } from 'pino';
import { LOG_LEVELS, type LogLevelName } from '@app/config';

/** Accepted `LOG_LEVEL` values (pino's, declared with the variable in libs/config), lowest first. */
export { LOG_LEVELS, type LogLevelName };

/** Value written in place of a redacted field. */
export const REDACTED = '[Redacted]';

/**
 * Paths removed from every log line (pino `redact`, fast-redact syntax; `*` is one level):
 * HTTP credentials (Authorization, cookies, tokens), Alibaba Cloud AccessKey secrets and STS
 * tokens, passwords and database URLs (which may carry a password) at the top level and one or two
 * levels down.
 */
export const LOG_REDACT_PATHS: readonly string[] = (() => {
  const keys = ['accessKeySecret', 'securityToken', 'password', 'token', 'apiToken', 'secret', 'databaseUrl', 'connectionString', 'authorization'];
  return [
    'req.headers.authorization',
    'req.headers.cookie',
    'req.headers["x-api-key"]',
    'res.headers["set-cookie"]',
    ...keys.flatMap((k) => [k, `*.${k}`, `*.*.${k}`]),
  ];
})();

/** Options of `createLogger`. */
export interface LoggerSetup {
  /** Minimum level (default `info`). */
  level?: LogLevelName;
  /** Component name (`api`, `worker`), in every line as `name`. */
  name?: string;
  /** Pretty-print (pino-pretty). Default: only when `destination` is unset and stdout is a TTY. */
  pretty?: boolean;
  /** Where lines go (default stdout). Tests pass a stream to read them back. */
  destination?: DestinationStream;
}

/** The pino options shared by `createLogger` and the nestjs-pino module (level, name, redaction, ISO time). */
export function loggerOptions(setup: Pick<LoggerSetup, 'level' | 'name'> = {}): LoggerOptions {
  return {
    level: setup.level ?? 'info',
    ...(setup.name ? { name: setup.name } : {}),
    redact: { paths: [...LOG_REDACT_PATHS], censor: REDACTED },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
  };
}

/**
 * The destination stream: pino-pretty (synchronous, colours only on a TTY) when pretty, else the given
 * destination or stdout as plain JSON lines.
 */
export function logDestination(setup: Pick<LoggerSetup, 'pretty' | 'destination'> = {}): DestinationStream {
  const pretty = setup.pretty ?? (setup.destination === undefined && process.stdout.isTTY === true);
  if (pretty) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const pinoPretty = require('pino-pretty') as (o: Record<string, unknown>) => DestinationStream;
    return pinoPretty({ colorize: process.stdout.isTTY === true && setup.destination === undefined, sync: true, translateTime: 'SYS:standard', ignore: 'pid,hostname', ...(setup.destination ? { destination: setup.destination } : {}) });
  }
  return setup.destination ?? pino.destination({ dest: 1, sync: false });
}

/** A pino logger per `setup` (JSON lines, redacted). */
export function createLogger(setup: LoggerSetup = {}): Logger {
  return pino(loggerOptions(setup), logDestination(setup));
}

/**
 * Parse a `LOG_LEVEL` value.
 * @throws Error naming the variable and the accepted values
 */
export function parseLogLevel(value: string | undefined, fallback: LogLevelName = 'info'): LogLevelName {
  if (value === undefined || value === '') return fallback;
  const v = value.toLowerCase();
  if ((LOG_LEVELS as readonly string[]).includes(v)) return v as LogLevelName;
  throw new Error(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')} (got "${value}")`);
}
