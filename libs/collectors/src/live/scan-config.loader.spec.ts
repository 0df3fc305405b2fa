import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadScanConfig, parseScanConfig, ScanConfigError } from './scan-config.loader';

const dir = mkdtempSync(join(tmpdir(), 'scan-config-'));
const write = (name: string, text: string) => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};

describe('loadScanConfig', () => {
  it('reads YAML and fills the defaults', () => {
    const c = loadScanConfig(
      write(
        'ok.yaml',
        [
          'name: prod',
          'alibabaCloud:',
          '  endpoint: 127.0.0.1:8080',
          '  protocol: http',
          'accounts:',
          '  - accountId: 1234567890',
          '    regions: [cn-hangzhou]',
        ].join('\n'),
      ),
    );
    expect(c.name).toBe('prod');
    expect(c.accounts[0].accountId).toBe('1234567890');
    expect(c.alibabaCloud).toEqual({
      endpoint: '127.0.0.1:8080',
      protocol: 'http',
      readTimeoutMs: 10_000,
      connectTimeoutMs: 5_000,
    });
    expect(c.collector).toMatchObject({
      qpsPerAccount: 20,
      qpsPerApi: {},
      maxConcurrentPerAccount: 16,
      maxConcurrentPerCluster: 4,
      maxConcurrentKubernetes: 8,
      maxAttempts: 6,
      maxListRestarts: 3,
    });
    expect(c.collector.pageSizes.ecs).toBe(100);
  });

  it('reads JSON', () => {
    const c = loadScanConfig(
      write(
        'ok.json',
        JSON.stringify({
          accounts: [{ accountId: '1', regions: ['cn-beijing'] }],
          collector: { pageSizes: { kubernetes: 7 } },
        }),
      ),
    );
    expect(c.name).toBe('fleet');
    expect(c.collector.pageSizes).toMatchObject({ kubernetes: 7, ecs: 100 });
  });

  it('names file, path and expectation of a schema error', () => {
    const file = write('bad.yaml', 'accounts:\n  - accountId: "12"\n    regions: [Hangzhou]\n');
    const err = (() => {
      try {
        loadScanConfig(file);
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(ScanConfigError);
    expect(err).toMatchObject({
      file,
      jsonPath: '$.accounts[0].regions[0]',
      expected: 'a region id such as cn-hangzhou',
    });
  });

  it('reports a missing file, bad YAML and bad JSON', () => {
    expect(() => loadScanConfig(join(dir, 'nope.yaml'))).toThrow(
      /nope\.yaml: \$: a readable file \(ENOENT\)/,
    );
    expect(() => parseScanConfig('accounts: [\n', 'x.yaml')).toThrow(ScanConfigError);
    expect(() => parseScanConfig('{', 'x.json')).toThrow(/x\.json: \$: valid JSON/);
    expect(() => parseScanConfig('', 'x.yaml')).toThrow(/a scan config object/);
  });

  it('rejects a half literal AccessKey', () => {
    expect(() =>
      parseScanConfig(
        'credentials: {accessKeyId: AK}\naccounts: [{accountId: "1", regions: [cn-hangzhou]}]',
        'c.yaml',
      ),
    ).toThrow(/c\.yaml: \$\.credentials: accessKeyId and accessKeySecret go together/);
  });
});

describe('strict scan config (unknown keys)', () => {
  const base = ['accounts:', '  - accountId: 1234567890', '    regions: [cn-hangzhou]'];
  const refuse = (text: string) => {
    try {
      parseScanConfig(text, 'scan.yaml');
    } catch (e) {
      expect(e).toBeInstanceOf(ScanConfigError);
      return e as ScanConfigError;
    }
    throw new Error('accepted');
  };

  it('refuses a typo at the top level and names the nearest valid key', () => {
    const e = refuse([...base, 'collecter:', '  qpsPerAccount: 100'].join('\n'));
    expect(e.file).toBe('scan.yaml');
    expect(e.jsonPath).toBe('$');
    expect(e.expected).toMatch(/^unknown key\(s\) collecter; did you mean "collector" for "collecter"\?/);
  });

  it('refuses a nested typo with its JSON path (array, nested default objects)', () => {
    expect(refuse([...base, 'collector:', '  pageSizes: { ecss: 50 }'].join('\n')).jsonPath).toBe('$.collector.pageSizes');
    const e = refuse(['accounts:', '  - accountId: 1', '    regions: [cn-hangzhou]', '    auditRoleArm: x'].join('\n'));
    expect(e.jsonPath).toBe('$.accounts[0]');
    expect(e.expected).toContain('did you mean "auditRoleArn"');
    expect(refuse([...base, 'credentials: { accessKeyIdenv: X }'].join('\n')).expected).toContain('"accessKeyIdEnv"');
  });

  it('gives no suggestion for a key nothing resembles, but lists the valid keys', () => {
    const e = refuse([...base, 'alibabaCloud: { zzzzzzzz: 1 }'].join('\n'));
    expect(e.jsonPath).toBe('$.alibabaCloud');
    expect(e.expected).not.toContain('did you mean');
    expect(e.expected).toContain('valid keys here: endpoint, protocol, readTimeoutMs, connectTimeoutMs');
  });
});
