import { describe, expect, it } from 'vitest';
import { MIN_TOKEN_HASH_KEY_LENGTH as STORE_MIN_KEY } from '@app/store';
import { DEFAULT_FORECAST_IDLE_TIMEOUT_MS, DEFAULT_SCAN_QUEUE_DEPTH } from '@app/audit';
import { thrownBy } from '../../../test/thrown.util';
import { ConfigError, ENV_VARS, loadConfig, MIN_TOKEN_HASH_KEY_LENGTH, parseEnvironment, redactConfig, SECRET_CONFIG_PATHS, type EnvVarSpec } from './index';

const DB = 'postgres://fleet:pa55word@127.0.0.1:5432/fleet';
const TOKEN = 'an-api-token-of-32-characters-xx';
const KEY = 'k'.repeat(40);

const errorOf = (fn: () => unknown): ConfigError => thrownBy(ConfigError, fn);

describe('the declaration', () => {
  it('gives every variable a namespace, a description, a shape, its readers and a default or what unset means', () => {
    for (const [name, spec] of Object.entries(ENV_VARS) as [string, EnvVarSpec][]) {
      expect(name).toMatch(/^[A-Z][A-Z0-9_]+$/);
      expect(spec.description.length, name).toBeGreaterThan(10);
      expect(spec.shape.length, name).toBeGreaterThan(0);
      expect(spec.usedBy.length, name).toBeGreaterThan(0);
      expect(spec.default !== undefined || spec.whenUnset !== undefined, `${name}: default or whenUnset`).toBe(true);
      for (const p of spec.requiredBy ?? []) expect(spec.usedBy, name).toContain(p);
      // Each default is valid under its own schema.
      if (spec.default !== undefined) expect(spec.schema.safeParse(spec.default).success, `${name} default`).toBe(true);
    }
  });

  it('maps exactly the secret variables to the redacted config paths', () => {
    const set = { DATABASE_URL: DB, REDIS_URL: 'redis://:pw@127.0.0.1:6379', REPORT_WEBHOOK_URL: 'https://hooks.example.com/t0ken', REPORT_CHAT_WEBHOOKS: '[{"kind":"slack","url":"https://hooks.slack.com/services/T/B/s3cret"}]', API_TOKEN: TOKEN, TOKEN_HASH_KEY: KEY };
    const secrets = Object.entries(ENV_VARS).filter(([, s]) => s.secret && s.namespace !== 'collector').map(([n]) => n);
    expect(Object.keys(set).sort()).toEqual(secrets.sort());
    expect(SECRET_CONFIG_PATHS.size).toBe(secrets.length);
    const dump = JSON.stringify(redactConfig(loadConfig(set, 'cli')));
    for (const value of Object.values(set)) expect(dump).not.toContain(value);
    expect(dump.match(/\[redacted\]/g)).toHaveLength(secrets.length);
  });

  it("keeps TOKEN_HASH_KEY's minimum equal to the store's, SCAN_QUEUE_DEPTH's default the launcher's, FORECAST_IDLE_TIMEOUT_MS's the pool's", () => {
    expect(MIN_TOKEN_HASH_KEY_LENGTH).toBe(STORE_MIN_KEY);
    expect(ENV_VARS.SCAN_QUEUE_DEPTH.default).toBe(String(DEFAULT_SCAN_QUEUE_DEPTH));
    expect(ENV_VARS.FORECAST_IDLE_TIMEOUT_MS.default).toBe(String(DEFAULT_FORECAST_IDLE_TIMEOUT_MS));
  });
});

describe(loadConfig.name, () => {
  it('applies the declared defaults and maps into namespaces', () => {
    expect(loadConfig({ DATABASE_URL: DB, API_TOKEN: TOKEN }, 'api')).toEqual({
      database: { url: DB },
      redis: { prefix: 'fleet-audit' },
      queues: { crawlConcurrency: 4, analyzeConcurrency: 1, analyzeShards: true, lockDurationMs: 30_000, stalledIntervalMs: 30_000, shutdownGraceMs: 25_000, reach: 'any', reachWaitMs: 300_000 },
      schedule: { configPaths: [], cron: '0 0 * * * *', reconcileIntervalMs: 30_000 },
      reports: { cron: '0 0 6 * * 1' },
      retention: { cron: '0 17 3 * * *', rawHours: 48, dailyDays: 92, weeklyWeeks: 52, quotaDays: 15, batchRows: 5000 },
      api: { token: TOKEN, port: 3000, host: '127.0.0.1', trustProxy: false },
      graphql: { sandbox: false, maxCost: 1000, maxDepth: 8, maxQueryBytes: 32768 },
      scans: { queueDepth: 4, launchesPerMinute: 10 },
      forecasts: { idleTimeoutMs: 60_000 },
      log: { level: 'info' },
      cli: { noColor: false, debug: false },
    });
  });

  it('reads FORECAST_IDLE_TIMEOUT_MS: whole milliseconds from 0 (no warm thread) to an hour, anything else named', () => {
    for (const [raw, ms] of [['0', 0], ['250', 250], ['3600000', 3_600_000]] as const) {
      expect(loadConfig({ FORECAST_IDLE_TIMEOUT_MS: raw }, 'cli').forecasts).toEqual({ idleTimeoutMs: ms });
    }
    for (const bad of ['-1', '3600001', '1.5', '60s', '99999999', ' 100']) {
      expect(errorOf(() => loadConfig({ FORECAST_IDLE_TIMEOUT_MS: bad }, 'cli')).message, bad).toBe(
        'invalid configuration: FORECAST_IDLE_TIMEOUT_MS must be an integer from 0 to 3600000 (milliseconds; 0: no warm thread)',
      );
    }
  });

  it('reads typed values; empty counts as unset; LOG_LEVEL is case-insensitive', () => {
    const c = loadConfig({ NO_COLOR: '1', FLEET_AUDIT_DEBUG: '1', LOG_LEVEL: 'WARN', API_PORT: '', SCAN_CONFIGS: 'a.yaml, ,b.yaml', REPORT_SCHEDULE: 'off' }, 'cli');
    expect(c.cli).toEqual({ noColor: true, debug: true });
    expect(c.log.level).toBe('warn');
    expect(c.api.port).toBe(3000);
    expect(c.schedule.configPaths).toEqual(['a.yaml', 'b.yaml']);
    expect(c.reports.cron).toBe(false);
    expect(loadConfig({ NO_COLOR: '' }, 'cli').cli.noColor).toBe(false);
  });

  it('requires per process: the CLI needs nothing, the API DATABASE_URL and API_TOKEN, the worker DATABASE_URL and REDIS_URL', () => {
    expect(() => loadConfig({}, 'cli')).not.toThrow();
    expect(errorOf(() => loadConfig({}, 'api')).message).toBe(
      'invalid configuration: DATABASE_URL is required (postgres://user@host:port/database); API_TOKEN is required (a random secret of at least 16 characters)',
    );
    expect(errorOf(() => loadConfig({}, 'worker')).variables).toEqual(['DATABASE_URL', 'REDIS_URL']);
  });

  it('names every bad variable and the expected shape, and never shows a value', () => {
    const secrets = { DATABASE_URL: 'mysql://root:hunter2@db', API_TOKEN: 'short secret', TOKEN_HASH_KEY: 'tiny-key', REDIS_URL: 'http://user:hunter3@r', REPORT_WEBHOOK_URL: 'ftp://hook-secret' };
    const e = errorOf(() => loadConfig({ ...secrets, API_PORT: '70000', WORKER_CONCURRENCY: '0', LOG_LEVEL: 'loud', FLEET_AUDIT_DEBUG: 'yes', FLEET_AUDIT_QUEUE_PREFIX: 'a b' }, 'cli'));
    expect(e.code).toBe('CONFIG_INVALID');
    expect(e.permanent).toBe(true);
    expect(e.message).toContain('DATABASE_URL must be a postgres:// or postgresql:// URL');
    expect(e.message).toContain('REDIS_URL must be a redis:// or rediss:// URL');
    expect(e.message).toContain('API_TOKEN must be at least 16 characters');
    expect(e.message).toContain('TOKEN_HASH_KEY must be at least 32 characters');
    expect(e.message).toContain('REPORT_WEBHOOK_URL must be an http:// or https:// URL');
    expect(e.message).toContain('API_PORT must be a port number from 1 to 65535');
    expect(e.message).toContain('WORKER_CONCURRENCY must be a positive integer');
    expect(e.message).toContain('LOG_LEVEL must be one of trace, debug, info, warn, error, fatal, silent');
    expect(e.message).toContain('FLEET_AUDIT_DEBUG must be 1 or 0');
    expect(e.message).toContain('FLEET_AUDIT_QUEUE_PREFIX must be letters, digits, _ . or -');
    for (const v of Object.values(secrets)) expect(e.message).not.toContain(v);
    expect(e.message).not.toMatch(/hunter|hook-secret|mysql/);
    expect(e.message.split('\n')).toHaveLength(1);
  });

  it('validates every declared variable in every process (one schema)', () => {
    expect(errorOf(() => loadConfig({ DATABASE_URL: DB, API_TOKEN: TOKEN, WORKER_CONCURRENCY: 'many' }, 'api')).variables).toEqual(['WORKER_CONCURRENCY']);
    expect(parseEnvironment({ DATABASE_URL: DB, REDIS_URL: 'redis://127.0.0.1:6379' }, 'worker').WORKER_CONCURRENCY).toBe(4);
  });
});
