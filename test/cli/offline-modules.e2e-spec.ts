/**
 * What an offline command loads besides the cloud SDKs (those: startup-modules.e2e-spec.ts): `fleet-audit scan --fleet
 * DIR` without a database, `plan --fleet DIR` and `report --fleet DIR` read files and print, so the live stack stays
 * unloaded: libs/store (pg; `report` reads the store's model only), libs/telemetry (pino, prom-client and its @opentelemetry/api), the live collectors' limiter and retry packages
 * (bottleneck, cockatiel) and, on one thread, the thread pool (piscina). They cost about 0.45 s of `require` per run
 * on the project's 2-core VM when `@app/audit` (its launchers, forecasts and store step) came in whole: the offline
 * commands load `@app/audit/scan` (libs/audit/src/scan-entry.ts), the store step is imported by scan-runner.ts only
 * for a scan with a store, piscina when a pool starts, bottleneck and cockatiel by a live crawl's first call.
 *
 * Each command runs as a user runs it, bin/fleet-audit.js in a fresh Node process on the suite's build
 * (FLEET_AUDIT_DIST), with a `--require` preload that writes the files in `require.cache` when the process exits
 * (public APIs only: `require.cache` and the process's `exit` event).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, SAMPLE_FLEET } from './cli-run.util';

/** The packages of the live stack. */
const LIVE_STACK = ['pg', 'prom-client', '@opentelemetry/api', 'pino', 'bottleneck', 'cockatiel', 'piscina'];
/** The workspace libraries of the live stack, as their built files' paths show them. */
const LIVE_LIBS = ['/libs/store/src/', '/libs/telemetry/src/', '/libs/queue/src/'];

let dir: string;
let preload: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'offline-modules-'));
  preload = join(dir, 'record-modules.js');
  // At exit (bin/fleet-audit.js ends with process.exit), every file the process required, one per line.
  writeFileSync(
    preload,
    `'use strict';
const { writeFileSync } = require('node:fs');
process.on('exit', () => writeFileSync(process.env.RECORD_MODULES_TO, Object.keys(require.cache).join('\\n')));
`,
  );
  writeFileSync(
    join(dir, 'checkout.yaml'),
    [
      'apiVersion: v1',
      'kind: Service',
      'metadata: {name: checkout, namespace: shop}',
      'spec: {type: LoadBalancer, selector: {app: checkout}, ports: [{name: web, port: 80, targetPort: 8080}]}',
    ].join('\n'),
  );
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs `fleet-audit ARGS` and returns its exit code, stdout and the packages and files it loaded. */
function modulesLoadedBy(args: string[]): { code: number | null; stdout: string; packages: string[]; files: string[] } {
  const dist = process.env.FLEET_AUDIT_DIST;
  if (!dist) throw new Error('FLEET_AUDIT_DIST is not set: run this file through vitest (test/global-setup.ts builds the CLI)');
  const record = join(dir, `modules-${args[0]}-${Date.now()}.txt`);
  const r = spawnSync(process.execPath, ['--require', preload, BIN, ...args], {
    encoding: 'utf8',
    timeout: 60_000,
    env: { ...process.env, FLEET_AUDIT_DIST: dist, RECORD_MODULES_TO: record, NO_COLOR: '1' },
  });
  const files = readFileSync(record, 'utf8').split('\n');
  const packages = new Set<string>();
  for (const f of files) {
    const m = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(f);
    if (m) packages.add(m[1]);
  }
  return { code: r.status, stdout: r.stdout, packages: [...packages].sort(), files };
}

describe('offline commands leave the live stack unloaded', () => {
  it('scan --fleet DIR (the sample fleet, no database) loads none of it', () => {
    const { code, stdout, packages, files } = modulesLoadedBy(['scan', '--fleet', SAMPLE_FLEET, '--format', 'json', '--fail-on', 'none']);
    expect(code).toBe(0);
    expect((JSON.parse(stdout) as { scan: { status: string } }).scan.status).toBe('succeeded');
    // The run loaded what an offline scan needs (the fleet reader's YAML parser, the schemas) and the analysis.
    expect(packages).toEqual(expect.arrayContaining(['js-yaml', 'zod']));
    expect(files.some((f) => f.includes('/libs/checks/src/audit.engine.js'))).toBe(true);
    expect(packages.filter((p) => LIVE_STACK.includes(p))).toEqual([]);
    expect(files.filter((f) => LIVE_LIBS.some((lib) => f.includes(lib)))).toEqual([]);
  });

  it('scan --fleet DIR --threads 2 loads the thread pool it uses, and still no store, telemetry or live collector', () => {
    const { code, packages } = modulesLoadedBy(['scan', '--fleet', SAMPLE_FLEET, '--format', 'json', '--fail-on', 'none', '--threads', '2']);
    expect(code).toBe(0);
    expect(packages).toContain('piscina');
    expect(packages.filter((p) => LIVE_STACK.includes(p) && p !== 'piscina')).toEqual([]);
  });

  it('plan --fleet DIR --settings FILE loads none of it', () => {
    const { code, packages, files } = modulesLoadedBy([
      'plan',
      '-f',
      join(dir, 'checkout.yaml'),
      '--fleet',
      SAMPLE_FLEET,
      '--cluster',
      'storefront',
      '--settings',
      join(SAMPLE_FLEET, 'audit-settings.yaml'),
      '--fail-on',
      'none',
      '--format',
      'json',
    ]);
    expect(code).toBe(0);
    expect(packages.filter((p) => LIVE_STACK.includes(p))).toEqual([]);
    expect(files.filter((f) => LIVE_LIBS.some((lib) => f.includes(lib)))).toEqual([]);
  });

  it('report --fleet DIR loads none of it', () => {
    // libs/reports takes the store's model from `@app/store/model` (no driver) and cockatiel at its first delivery.
    const { code, stdout, packages, files } = modulesLoadedBy(['report', '--fleet', SAMPLE_FLEET, '--now', '2026-11-23T10:00:00Z', '--format', 'json']);
    expect(code).toBe(0);
    expect((JSON.parse(stdout) as { summary: unknown }).summary).toBeDefined();
    expect(packages.filter((p) => LIVE_STACK.includes(p))).toEqual([]);
    // Of libs/store, only its model (`@app/store/model`: no driver, no repository).
    const model = /\/libs\/store\/src\/(model-entry|principal|retention\.policy|store\.exception|scan-pruned\.error)\.js$/;
    expect(files.filter((f) => LIVE_LIBS.some((lib) => f.includes(lib)) && !model.test(f))).toEqual([]);
  });
});
