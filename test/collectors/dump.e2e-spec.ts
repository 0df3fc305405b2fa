/**
 * `fleet-audit dump` (issue 21 item 1): the sample fleet crawled live through the simulator and written
 * as a fleet directory; the offline scan of the dump gives exactly the live scan's findings and coverage;
 * a dataset the crawl could not read is left out and named, and the offline scan reports the same gap;
 * no secret reaches the dump; an existing output is refused before anything is crawled.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runScan } from '@app/audit';
import {
  DUMP_MANIFEST_FILE,
  DUMP_REDACTED,
  dumpLiveFleet,
  leastPrivilegePolicy,
  loadScanConfig,
  readFleetDirectory,
  redactForDump,
  type ScanConfig,
} from '@app/collectors';
import type { WireFleet } from '@app/domain';
import { startSimulator, type RunningSimulator } from '@app/fleet-sim';
import { testConfig } from './scan-config.util';

const SAMPLE = join(__dirname, '..', '..', 'examples', 'fleets', 'sample');
const NOW = new Date('2026-11-23T00:00:00.000Z');

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}

/** Findings as compared: everything a user sees (check, severity, resource, message, fingerprint). */
const comparable = (o: Awaited<ReturnType<typeof runScan>>) => o.findings.map((f) => JSON.stringify(f)).sort();

describe('fleet-audit dump: a live crawl as a fleet directory', { timeout: 120_000 }, () => {
  let work: string;
  let sim: RunningSimulator | undefined;
  beforeAll(() => {
    work = mkdtempSync(join(tmpdir(), 'fleet-dump-'));
  });
  afterAll(async () => {
    await sim?.close();
    rmSync(work, { recursive: true, force: true });
  });

  const simConfig = async (policy?: ReturnType<typeof leastPrivilegePolicy>): Promise<ScanConfig> => {
    await sim?.close();
    sim = await startSimulator({ fleet: readFleetDirectory(SAMPLE), ...(policy ? { ramPolicy: policy } : {}) });
    return testConfig(loadScanConfig(sim.configPath));
  };

  it('the offline scan of the dump gives exactly the live scan findings and coverage', async () => {
    const config = await simConfig();
    const out = join(work, 'sample-dump');
    const result = await dumpLiveFleet(config, out, { now: () => NOW });
    expect(result.counts).toMatchObject({ accounts: 2, clusters: 6 });
    expect(result.manifest).toMatchObject({ format: 1, dumpedAt: NOW.toISOString(), fleet: config.name });
    expect(result.manifest.notRead.filter((c) => c.status === 'failed')).toEqual([]);
    const live = await runScan({ source: { kind: 'live', config }, now: NOW });
    const offline = await runScan({ source: { kind: 'offline', fleetDir: out }, now: NOW });
    expect(offline.findings.length).toBeGreaterThan(10);
    expect(comparable(offline)).toEqual(comparable(live));
    expect(offline.scan.coverage).toEqual(live.scan.coverage);
    // Nothing of the scan config's credentials reaches the files.
    const text = filesUnder(out).map((f) => readFileSync(f, 'utf8')).join('\n');
    expect(text).not.toContain(config.credentials!.accessKeySecret!);
    expect(text).not.toContain(config.credentials!.accessKeyId!);
    // No temporary directory is left beside it.
    expect(readdirSync(work).filter((n) => n.includes('.tmp-'))).toEqual([]);
  });

  it('leaves out a dataset the crawl could not read, names it in dump.json, and the offline scan reports the same gap', async () => {
    const policy = leastPrivilegePolicy(undefined, { nodeSysctls: true });
    const without = { ...policy, Statement: [{ ...policy.Statement[0], Action: (policy.Statement[0].Action as string[]).filter((a) => a !== 'slb:DescribeVServerGroups') }] };
    const config = await simConfig(without);
    const out = join(work, 'gap-dump');
    const { manifest } = await dumpLiveFleet(config, out, { now: () => NOW });
    const failed = manifest.notRead.filter((c) => c.status === 'failed');
    expect(failed.length).toBeGreaterThan(0);
    expect(failed.every((c) => c.api === 'slb' && c.errorCode === 'Forbidden.RAM')).toBe(true);
    expect(JSON.parse(readFileSync(join(out, DUMP_MANIFEST_FILE), 'utf8'))).toEqual(manifest);
    const live = await runScan({ source: { kind: 'live', config }, now: NOW });
    const offline = await runScan({ source: { kind: 'offline', fleetDir: out }, now: NOW });
    expect(comparable(offline)).toEqual(comparable(live));
    const gaps = (o: typeof live) => o.scan.coverage.filter((c) => c.status === 'failed').map((c) => `${c.accountId}/${c.regionId}/${c.api}/${c.errorCode}`).sort();
    expect(gaps(offline)).toEqual(gaps(live));
    for (const c of offline.scan.coverage.filter((x) => x.status === 'failed')) expect(c.message).toMatch(/^not read when dumped at 2026-11-23T00:00:00.000Z: /);
  });

  it('refuses an existing output without overwrite, before crawling; replaces it with overwrite', async () => {
    const config = await simConfig();
    const out = join(work, 'existing');
    mkdirSync(out);
    writeFileSync(join(out, 'keep.txt'), 'mine');
    await expect(dumpLiveFleet(config, out)).rejects.toThrow(/already exists \(use --force to replace it\)/);
    expect(readFileSync(join(out, 'keep.txt'), 'utf8')).toBe('mine');
    await dumpLiveFleet(config, out, { overwrite: true });
    expect(readdirSync(out).sort()).toEqual(['accounts', DUMP_MANIFEST_FILE, 'fleet.yaml']);
  });
});

describe('redactForDump', () => {
  it('redacts container env values and last-applied-configuration, drops managedFields, keeps what checks read', () => {
    const pod = {
      metadata: {
        name: 'web-1',
        namespace: 'default',
        labels: { app: 'web' },
        annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{"env":[{"name":"DB_PASSWORD","value":"hunter2"}]}', team: 'a' },
        managedFields: [{ manager: 'kubectl' }],
      },
      spec: {
        nodeName: 'cn-hangzhou.10.0.0.1',
        containers: [{ name: 'web', command: ['/bin/web'], args: ['--port=80'], env: [{ name: 'DB_PASSWORD', value: 'hunter2' }, { name: 'FROM_SECRET', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } }] }],
        initContainers: [{ name: 'init', env: [{ name: 'TOKEN', value: 'abc' }] }],
      },
      status: { phase: 'Running', podIP: '10.1.0.5' },
    };
    const fleet = {
      name: 'f',
      coverage: [],
      accounts: [{ account: { accountId: '1', name: 'a' }, regions: [{ regionId: 'r', clusters: [{ detail: { cluster_id: 'c' }, kubernetes: { nodes: [], services: [], pods: [pod], endpointSlices: [], events: [] } }] }] }],
    } as unknown as WireFleet;
    const redacted = redactForDump(fleet);
    const text = JSON.stringify(redacted);
    expect(text).not.toContain('hunter2');
    expect(text).not.toContain('"abc"');
    expect(text).not.toContain('managedFields');
    const p = (redacted.accounts[0].regions[0].clusters[0].kubernetes!.pods[0] as unknown) as typeof pod;
    expect(p.spec.containers[0]).toMatchObject({ command: ['/bin/web'], args: ['--port=80'], env: [{ name: 'DB_PASSWORD', value: DUMP_REDACTED }, { name: 'FROM_SECRET', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } }] });
    expect(p.metadata).toMatchObject({ labels: { app: 'web' }, annotations: { team: 'a', 'kubectl.kubernetes.io/last-applied-configuration': DUMP_REDACTED } });
    expect(p.spec.nodeName).toBe('cn-hangzhou.10.0.0.1');
    // The input is not changed.
    expect(JSON.stringify(fleet)).toContain('hunter2');
  });
});
