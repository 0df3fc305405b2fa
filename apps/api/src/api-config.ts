/**
 * Configuration of the standalone API process (`main.ts`), declared once and validated at boot
 * (STYLE.md C.10-12). Only `main.ts` passes `process.env` here; nothing else reads it.
 */
import { z } from 'zod';
import { LOG_LEVELS, type LogLevelName } from '@app/telemetry';
import { MIN_TOKEN_LENGTH } from './api-app.factory';

/** Variables, with descriptions and sensitivity (sensitive values never appear in messages). */
const apiEnvSchema = z.object({
  /** PostgreSQL URL (`postgres://user[:password]@host:port/db`). Sensitive (may hold a password). */
  DATABASE_URL: z
    .string('is required (postgres://user@host:port/database)')
    .regex(/^postgres(ql)?:\/\/\S+$/, 'must be a postgres:// or postgresql:// URL'),
  /** Bearer token of `/v1`. Sensitive. */
  API_TOKEN: z
    .string('is required (a random secret of at least 16 characters)')
    .min(MIN_TOKEN_LENGTH, `must be at least ${MIN_TOKEN_LENGTH} characters`)
    .regex(/^\S+$/, 'must not contain whitespace'),
  /**
   * Server key of scoped-token hashes (HMAC-SHA-256), at least 32 characters; the same value for
   * `fleet-audit token create`. Optional: without it only API_TOKEN works. Sensitive.
   */
  TOKEN_HASH_KEY: z.string().min(32, 'must be at least 32 characters').regex(/^\S+$/, 'must not contain whitespace').optional(),
  /** TCP port on 127.0.0.1. Default 3000. */
  API_PORT: z
    .string()
    .regex(/^\d{1,5}$/, 'must be a port number from 1 to 65535')
    .transform(Number)
    .pipe(z.number().int().min(1, 'must be a port number from 1 to 65535').max(65_535, 'must be a port number from 1 to 65535'))
    .optional()
    .default(3000),
  /** Interface to bind: 127.0.0.1 by default; 0.0.0.0 in a container (the image sets it). */
  API_HOST: z.string().regex(/^[\w.:-]+$/, 'must be an IP address or host name').optional().default('127.0.0.1'),
  /** Minimum log level of the JSON logs: trace, debug, info, warn, error, fatal or silent. Default info. */
  LOG_LEVEL: z.enum(LOG_LEVELS, `must be one of ${LOG_LEVELS.join(', ')}`).optional().default('info'),
  /**
   * Scans that may wait behind the running one in the API's in-process scan queue (no Redis):
   * `POST /v1/scans` answers 429 past it. Default 4 (libs/audit DEFAULT_SCAN_QUEUE_DEPTH).
   */
  SCAN_QUEUE_DEPTH: scanQueueDepthSchema(),
});

/** `SCAN_QUEUE_DEPTH`: an integer from 0 to 1000, default 4 (kept equal to libs/audit DEFAULT_SCAN_QUEUE_DEPTH). */
function scanQueueDepthSchema() {
  return z
    .string()
    .regex(/^\d{1,4}$/, 'must be an integer from 0 to 1000')
    .transform(Number)
    .pipe(z.number().int().min(0, 'must be an integer from 0 to 1000').max(1000, 'must be an integer from 0 to 1000'))
    .optional()
    .default(4);
}

/**
 * Validate `SCAN_QUEUE_DEPTH` alone (`fleet-audit serve`, which reads the rest from its flags).
 * @param value the variable's value (unset: the default 4)
 * @throws ApiConfigError naming the variable and the rule, never echoing other variables
 */
export function parseScanQueueDepth(value: string | undefined): number {
  const parsed = scanQueueDepthSchema().safeParse(value);
  if (!parsed.success) throw new ApiConfigError(`invalid configuration: SCAN_QUEUE_DEPTH ${parsed.error.issues[0]?.message ?? 'is invalid'}`);
  return parsed.data;
}

/** Validated configuration of the API process. */
export interface ApiConfig {
  database: { url: string };
  api: { token: string; port: number; host: string; tokenHashKey?: string };
  log: { level: LogLevelName };
  /** The in-process scan queue: scans that may wait behind the running one. */
  scans: { queueDepth: number };
}

/** Invalid or missing environment variables; the message names them and never shows values. */
export class ApiConfigError extends Error {
  override readonly name = 'ApiConfigError';
}

/**
 * Validate the environment once, at boot.
 * @param env the process environment (or a test double)
 * @throws ApiConfigError listing every invalid variable and why
 */
export function loadApiConfig(env: Record<string, string | undefined>): ApiConfig {
  const parsed = apiEnvSchema.safeParse({ DATABASE_URL: env.DATABASE_URL, API_TOKEN: env.API_TOKEN, API_PORT: env.API_PORT, TOKEN_HASH_KEY: env.TOKEN_HASH_KEY, API_HOST: env.API_HOST, LOG_LEVEL: env.LOG_LEVEL?.toLowerCase(), SCAN_QUEUE_DEPTH: env.SCAN_QUEUE_DEPTH });
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.')} ${i.message}`);
    throw new ApiConfigError(`invalid configuration: ${problems.join('; ')}`);
  }
  const c = parsed.data;
  return {
    database: { url: c.DATABASE_URL },
    api: { token: c.API_TOKEN, port: c.API_PORT, host: c.API_HOST, ...(c.TOKEN_HASH_KEY ? { tokenHashKey: c.TOKEN_HASH_KEY } : {}) },
    log: { level: c.LOG_LEVEL },
    scans: { queueDepth: c.SCAN_QUEUE_DEPTH },
  };
}
