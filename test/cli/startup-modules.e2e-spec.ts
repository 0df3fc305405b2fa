/**
 * What an offline command loads (libs/collectors/src/live/sdk-modules.ts): `fleet-audit scan --fleet DIR` and
 * `fleet-audit checks` never call a cloud or Kubernetes API, so the Alibaba Cloud SDKs and `@kubernetes/client-node`
 * must stay unloaded (2.5 s of the 3.2 s an offline scan of the sample took when `@app/collectors` loaded them all).
 * Each command runs in a fresh Node process on the suite's build (dist-test/), which prints the packages in
 * `require.cache` after the command's `main()` resolves.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SAMPLE_FLEET } from './cli-run.util';

/** The packages that only a live crawl needs. */
const LIVE_ONLY = [
  '@alicloud/credentials',
  '@alicloud/cs20151215',
  '@alicloud/ecs20140526',
  '@alicloud/openapi-core',
  '@alicloud/ram20150501',
  '@alicloud/sts20150401',
  '@alicloud/vpc20160428',
  '@darabonba/typescript',
  '@kubernetes/client-node',
];

/**
 * Runs the built CLI's `main(argv)` in a fresh process (stdout discarded) and returns its exit code and the
 * packages (`node_modules/<name>`) it loaded.
 */
function packagesLoadedBy(args: string[]): { code: number; packages: string[] } {
  const dist = process.env.FLEET_AUDIT_DIST;
  if (!dist) throw new Error('FLEET_AUDIT_DIST is not set: run this file through vitest (test/global-setup.ts builds the CLI)');
  const script = `
    const { Writable } = require('node:stream');
    const sink = new Writable({ write(_c, _e, cb) { cb(); } });
    const cli = require(${JSON.stringify(join(dist, 'apps', 'cli', 'src', 'main.js'))});
    cli.main(['node', 'fleet-audit', ...JSON.parse(process.argv[1])], { stdout: sink, stderr: sink }).then((code) => {
      const names = new Set();
      for (const f of Object.keys(require.cache)) {
        const m = /node_modules\\/((?:@[^/]+\\/)?[^/]+)\\//.exec(f);
        if (m) names.add(m[1]);
      }
      process.stdout.write(JSON.stringify({ code, packages: [...names].sort() }));
      process.exit(0);
    });`;
  const r = spawnSync(process.execPath, ['-e', script, JSON.stringify(args)], { encoding: 'utf8', timeout: 60_000 });
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as { code: number; packages: string[] };
}

describe('offline commands leave the cloud SDKs and client-node unloaded', () => {
  it('scan --fleet DIR (the sample fleet) loads none of them', () => {
    const { code, packages } = packagesLoadedBy(['scan', '--fleet', SAMPLE_FLEET, '--format', 'json']);
    expect(code).toBe(0);
    // The run did load what an offline scan needs: the fleet-directory reader's YAML parser and the schemas.
    expect(packages).toEqual(expect.arrayContaining(['js-yaml', 'zod']));
    expect(packages.filter((p) => LIVE_ONLY.includes(p))).toEqual([]);
  });

  it('checks loads none of them', () => {
    const { code, packages } = packagesLoadedBy(['checks']);
    expect(code).toBe(0);
    expect(packages.filter((p) => LIVE_ONLY.includes(p))).toEqual([]);
  });
});
