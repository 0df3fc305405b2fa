import { describe, expect, it } from 'vitest';
import { ConfigError } from '@app/config';
import { loadApiConfig } from './api-config';

const TOKEN = 'a-secret-token-of-some-length';

describe(loadApiConfig.name, () => {
  it('reads the variables into typed, namespaced config with the default port', () => {
    expect(loadApiConfig({ DATABASE_URL: 'postgres://u@127.0.0.1:5432/db', API_TOKEN: TOKEN })).toEqual({
      database: { url: 'postgres://u@127.0.0.1:5432/db' },
      api: { token: TOKEN, port: 3000, host: '127.0.0.1', trustProxy: false },
      log: { level: 'info' },
      scans: { queueDepth: 4, launchesPerMinute: 10 },
      graphql: { sandbox: false, maxCost: 1000, maxDepth: 8, maxQueryBytes: 32768 },
      forecasts: { idleTimeoutMs: 60_000 },
    });
    expect(loadApiConfig({ DATABASE_URL: 'postgresql://u@h/db', API_TOKEN: TOKEN, API_PORT: '8081' }).api.port).toBe(8081);
    const limits = loadApiConfig({ DATABASE_URL: 'postgresql://u@h/db', API_TOKEN: TOKEN, GRAPHQL_MAX_COST: '250', GRAPHQL_MAX_DEPTH: '5', GRAPHQL_SANDBOX: '1' });
    expect(limits.graphql).toEqual({ sandbox: true, maxCost: 250, maxDepth: 5, maxQueryBytes: 32768 });
    expect(() => loadApiConfig({ DATABASE_URL: 'postgresql://u@h/db', API_TOKEN: TOKEN, GRAPHQL_MAX_DEPTH: '0' })).toThrow(/GRAPHQL_MAX_DEPTH must be an integer from 1 to 32/);
  });

  it('fails fast naming every bad variable, never echoing a value', () => {
    let error: unknown;
    try {
      loadApiConfig({ DATABASE_URL: 'mysql://x', API_TOKEN: 'short-secret', API_PORT: '70000' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as Error).message;
    expect(message).toContain('DATABASE_URL must be a postgres:// or postgresql:// URL');
    expect(message).toContain('API_TOKEN must be at least 16 characters');
    expect(message).toContain('API_PORT must be a port number from 1 to 65535');
    expect(message).not.toContain('short-secret');
    expect(message).not.toContain('mysql://x');
  });

  it('names missing required variables', () => {
    expect(() => loadApiConfig({})).toThrow(/DATABASE_URL is required.*API_TOKEN is required/);
  });

  it('reads SCAN_QUEUE_DEPTH (default 4, 0 allowed) and names it when it is not an integer from 0 to 1000', () => {
    const base = { DATABASE_URL: 'postgres://u@h/db', API_TOKEN: TOKEN };
    expect(loadApiConfig({ ...base, SCAN_QUEUE_DEPTH: '0' }).scans.queueDepth).toBe(0);
    expect(loadApiConfig({ ...base, SCAN_QUEUE_DEPTH: '12' }).scans.queueDepth).toBe(12);
    for (const bad of ['-1', '1001', 'four']) {
      expect(() => loadApiConfig({ ...base, SCAN_QUEUE_DEPTH: bad })).toThrow('invalid configuration: SCAN_QUEUE_DEPTH must be an integer from 0 to 1000');
    }
  });

  it('reads FORECAST_IDLE_TIMEOUT_MS for the forecast pool (default 60 s, 0 allowed) and names a bad one', () => {
    const base = { DATABASE_URL: 'postgres://u@h/db', API_TOKEN: TOKEN };
    expect(loadApiConfig({ ...base, FORECAST_IDLE_TIMEOUT_MS: '0' }).forecasts).toEqual({ idleTimeoutMs: 0 });
    expect(loadApiConfig({ ...base, FORECAST_IDLE_TIMEOUT_MS: '5000' }).forecasts).toEqual({ idleTimeoutMs: 5000 });
    expect(() => loadApiConfig({ ...base, FORECAST_IDLE_TIMEOUT_MS: 'soon' })).toThrow('invalid configuration: FORECAST_IDLE_TIMEOUT_MS must be an integer from 0 to 3600000');
  });
});
