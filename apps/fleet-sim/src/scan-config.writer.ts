/**
 * Writes the ready-to-use scan config for a running simulator: the `fleet-audit scan --config`
 * file (schema `libs/collectors/src/live/scan-config.ts`) pointing every product at the
 * simulator over plain HTTP with the simulator's test AccessKey (which belongs to the fleet's
 * management account). Every account of the fleet is listed with the audit role to assume through
 * STS (`auditRoleArn`: the account's own from `account.yaml`, else
 * `acs:ram::<accountId>:role/fleet-audit-readonly`), which the simulator always accepts.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { auditRoleArnOf } from './alibaba/sts.handler';
import type { AccountEntry } from './fleet/fleet-index.repository';

/** File name of the written config inside the config directory. */
export const SCAN_CONFIG_FILE = 'scan-config.json';

/** The scan config (input form of `scanConfigSchema`) for a simulator. */
export interface SimScanConfig {
  name: string;
  alibabaCloud: { endpoint: string; protocol: 'http' };
  credentials: { accessKeyId: string; accessKeySecret: string };
  accounts: { accountId: string; name: string; regions: string[]; auditRoleArn: string }[];
  /**
   * Node sysctl collection on: the simulator serves Cloud Assistant from the fleet's `node-sysctls.json`,
   * so a live scan of it reads what the offline scan of the directory reads (opt-in in user configs). Where the
   * simulator enforces no QPS limit, also the budget of {@link UNLIMITED_SIM_BUDGET}.
   */
  collector: { nodeSysctls: true; qpsPerAccount?: number; maxConcurrentPerAccount?: number };
}

/**
 * The per-account OpenAPI budget written for a simulator that enforces no QPS limit (no `--qps`): calls per second
 * and calls in flight. The defaults (20 calls/s, 16 in flight: `collectorSettingsSchema`) are sized for the real
 * cloud's per-account limits; against a local simulator without limits they only make the scan wait (a live scan
 * of the sample fleet: 11.9 s at 20 calls/s, 6.1 s at this budget, same findings). `fleet-audit demo` scans its
 * simulator with it. A simulator started with `--qps` keeps the defaults, so that scans of it show
 * the pacing and throttling that limit is there to exercise.
 */
export const UNLIMITED_SIM_BUDGET = { qpsPerAccount: 1000, maxConcurrentPerAccount: 32 } as const;

/**
 * Build the config: every account in fleet order, each with its audit role. An account without
 * any region is left out (the scan config schema needs at least one region per account).
 * @param limited whether the simulator enforces QPS limits (`--qps`); when it does not, the collector budget is
 *   {@link UNLIMITED_SIM_BUDGET}
 */
export function buildScanConfig(
  fleetName: string,
  endpoint: string,
  accessKeyId: string,
  accessKeySecret: string,
  accounts: readonly AccountEntry[],
  limited = false,
): SimScanConfig {
  return {
    name: fleetName,
    alibabaCloud: { endpoint, protocol: 'http' },
    credentials: { accessKeyId, accessKeySecret },
    accounts: accounts
      .filter((a) => a.regions.length > 0)
      .map((a) => ({
        accountId: a.accountId,
        name: a.wire.account.name,
        regions: a.regions.map((r) => r.regionId),
        auditRoleArn: auditRoleArnOf(a),
      })),
    collector: limited ? { nodeSysctls: true } : { nodeSysctls: true, ...UNLIMITED_SIM_BUDGET },
  };
}

/**
 * Write the config as JSON (mode 0600: it holds the simulator's AccessKey secret).
 * @param configDir target directory; default a fresh `<tmpdir>/fleet-sim-XXXXXX`
 * @returns the file's path
 */
export function writeScanConfig(config: SimScanConfig, configDir?: string): string {
  const dir = configDir ?? mkdtempSync(join(tmpdir(), 'fleet-sim-'));
  const path = join(dir, SCAN_CONFIG_FILE);
  writeFileSync(path, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  return path;
}

/**
 * Remove a config written by {@link writeScanConfig}: the file, and its directory too when the
 * simulator created that directory (`ownDir`). Synchronous (it runs in `process.on('exit')`),
 * idempotent, never throws (a file already gone is fine).
 * @param path the file's path
 * @param ownDir whether the directory was the simulator's own temporary one
 */
export function removeScanConfig(path: string, ownDir: boolean): void {
  try {
    if (ownDir) rmSync(dirname(path), { recursive: true, force: true });
    else rmSync(path, { force: true });
  } catch {
    // best effort: the operating system's temp cleaning takes what is left
  }
}
