/**
 * `fleet-audit dump`: the sample fleet crawled live through the simulator and written
 * as a fleet directory; the offline scan of the dump gives exactly the live scan's findings and coverage;
 * a dataset the crawl could not read is left out and named, and the offline scan reports the same gap;
 * no secret reaches the dump (no credential, no role ARN: the whole dump is searched for `acs:ram::`); an
 * existing output is refused before anything is crawled, and `--force` replaces only an earlier dump.
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
import { runCliInProcess } from '../cli/cli-run.util';

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
    const base = await simConfig();
    // Each account crawled through its audit role (the simulator's default role of the account).
    const config: ScanConfig = { ...base, accounts: base.accounts.map((a) => ({ ...a, auditRoleArn: `acs:ram::${a.accountId}:role/fleet-audit-readonly` })) };
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
    // No role ARN: not the audit roles the crawl assumed (account.yaml), not the RAM roles' own ARNs.
    expect(text).not.toContain('acs:ram::');
    expect(text).not.toContain('auditRoleArn');
    expect(text).toContain(DUMP_REDACTED);
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

  it('refuses an existing output without overwrite, before crawling; with overwrite replaces only an earlier dump', async () => {
    const config = await simConfig();
    const out = join(work, 'existing');
    mkdirSync(out);
    writeFileSync(join(out, 'keep.txt'), 'mine');
    await expect(dumpLiveFleet(config, out)).rejects.toThrow(`${out}: already exists (use --force to replace it)`);
    // A directory no dump wrote (no dump.json) is never deleted, --force or not.
    await expect(dumpLiveFleet(config, out, { overwrite: true })).rejects.toThrow(`${out}: is not a fleet-audit dump (no valid dump.json)`);
    expect(readFileSync(join(out, 'keep.txt'), 'utf8')).toBe('mine');
    const cli = await runCliInProcess(['dump', '--config', sim!.configPath, '--out', out, '--force', '--no-progress']);
    expect(cli.status).toBe(2);
    expect(cli.stderr).toBe(`fleet-audit: error: --out ${out}: is not a fleet-audit dump (no valid dump.json): --force replaces only a directory a dump wrote; move it away or choose another --out\n`);
    expect(readdirSync(out)).toEqual(['keep.txt']);
    // An earlier dump is replaced.
    const dump = join(work, 'earlier-dump');
    await dumpLiveFleet(config, dump);
    writeFileSync(join(dump, 'stale.txt'), 'from the earlier dump');
    await dumpLiveFleet(config, dump, { overwrite: true });
    expect(readdirSync(dump).sort()).toEqual(['accounts', DUMP_MANIFEST_FILE, 'fleet.yaml']);
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
    (fleet.accounts[0].account as { auditRoleArn?: string }).auditRoleArn = 'acs:ram::1:role/audit';
    (fleet.accounts[0] as { ram?: unknown }).ram = {
      roles: [{ RoleName: 'r', Arn: 'acs:ram::1:role/r' }],
      policies: [{ PolicyName: 'p', PolicyType: 'Custom', PolicyDocument: '{"Statement":[{"Action":"ram:PassRole","Resource":"acs:ram::1:role/r"}]}' }],
      rolePolicies: {},
    };
    const redacted = redactForDump(fleet);
    const text = JSON.stringify(redacted);
    expect(text).not.toContain('hunter2');
    expect(text).not.toContain('"abc"');
    expect(text).not.toContain('managedFields');
    expect(text).not.toContain('acs:ram::');
    expect(redacted.accounts[0].account).toEqual({ accountId: '1', name: 'a' });
    // The policy document stays JSON with its actions (what the RAM checks read).
    const doc = (redacted.accounts[0].ram!.policies[0] as { PolicyDocument: string }).PolicyDocument;
    expect(JSON.parse(doc)).toEqual({ Statement: [{ Action: 'ram:PassRole', Resource: DUMP_REDACTED }] });
    const p = (redacted.accounts[0].regions[0].clusters[0].kubernetes!.pods[0] as unknown) as typeof pod;
    expect(p.spec.containers[0]).toMatchObject({ command: ['/bin/web'], args: ['--port=80'], env: [{ name: 'DB_PASSWORD', value: DUMP_REDACTED }, { name: 'FROM_SECRET', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } }] });
    expect(p.metadata).toMatchObject({ labels: { app: 'web' }, annotations: { team: 'a', 'kubectl.kubernetes.io/last-applied-configuration': DUMP_REDACTED } });
    expect(p.spec.nodeName).toBe('cn-hangzhou.10.0.0.1');
    // The input is not changed.
    expect(JSON.stringify(fleet)).toContain('hunter2');
  });
});
