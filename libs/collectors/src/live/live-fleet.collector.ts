/**
 * The live scan: reads every account and region of a ScanConfig through the official Alibaba
 * Cloud clients and each ACK cluster's Kubernetes API, into a WireFleet (the same wire shapes the
 * offline loader reads from a fleet directory), then `mapWireFleet` into the FleetSnapshot.
 *
 * Coverage mirrors the offline loader entry for entry (account `ram`; region `slb`, `ecs`,
 * `vpc`, `quotas`, `cs`; cluster `cluster`, `addons`, `resources`, `sysctls`, `kubernetes`):
 * `ok` when read, `absent` when the API reports nothing to read, `failed` with the API's error
 * code and a message naming API and target when a read errors. A failed read never stops the
 * scan; only the caller's AbortSignal does (the promise then rejects with ScanAbortedError).
 *
 * Pacing: per account one limiter for Alibaba Cloud calls and one for Kubernetes calls
 * (`collector.maxConcurrentPerAccount` each), retries of throttling / 5xx / connection resets with
 * exponential backoff and full jitter (`collector.maxAttempts`). Accounts are read in parallel.
 */
import {
  mapWireFleet,
  type FleetSnapshot,
  type WireAccount,
  type WireCluster,
  type WireFleet,
  type WireRegion,
} from '@app/domain';
import { AccountCredentialsResolver, type CredentialsFor } from './account-credentials.service';
import { createAccountClients, type AccountCredentials } from './alibaba-clients.factory';
import { CallRunner } from './call-runner.util';
import { CLUSTER_DATASETS, readCluster } from './cluster.collector';
import { CollectError, ScanAbortedError } from './collect-error.util';
import { CoverageRecorder, readDataset, type AccountScope, type CollectProgress } from './collect-scope.util';
import { readRam } from './ram.collector';
import { readClusterList, readEcsInstances, readSlb, readSlbQuotas, readVSwitches } from './region.collector';
import type { ScanAccount, ScanConfig } from './scan-config';

/** Options of a live scan. */
export interface LiveScanOptions {
  /** Called after every dataset read; `total` grows as clusters are discovered. */
  onProgress?: (event: CollectProgress) => void;
  /** Cancels the scan: in-flight calls are abandoned and the promise rejects with ScanAbortedError. */
  signal?: AbortSignal;
  /**
   * Credentials per account; default: the config's base credentials, or for an account with
   * `auditRoleArn` STS credentials of that role (`AccountCredentialsResolver`, cached until 5
   * minutes before expiry). A CollectError thrown here makes every dataset of the account `failed`.
   */
  credentialsFor?: CredentialsFor;
  /** Environment for `credentials.*Env` (default `process.env`). */
  env?: Record<string, string | undefined>;
}

/** Datasets recorded per region (slb, ecs, vpc, quotas, cs). */
const REGION_DATASETS = 5;

async function collectRegion(scope: AccountScope, regionId: string): Promise<WireRegion> {
  const rc = scope.clients.region(regionId);
  const key = { accountId: scope.accountId, regionId };
  const out: WireRegion = { regionId, clusters: [] };
  const [slb, ecs, vpc, quotas, clusters] = await Promise.all([
    readDataset(scope, { ...key, api: 'slb' }, () => readSlb(scope, rc)),
    readDataset(scope, { ...key, api: 'ecs' }, () => readEcsInstances(scope, rc)),
    readDataset(scope, { ...key, api: 'vpc' }, () => readVSwitches(scope, rc)),
    readDataset(scope, { ...key, api: 'quotas' }, () => readSlbQuotas(scope, rc)),
    readDataset(scope, { ...key, api: 'cs' }, async () => {
      const list = await readClusterList(scope, rc);
      scope.coverage.plan(list.length * CLUSTER_DATASETS);
      return list;
    }),
  ]);
  if (slb) {
    out.loadBalancers = slb.loadBalancers;
    out.vServerGroups = slb.vServerGroups;
  }
  if (ecs) out.ecsInstances = ecs;
  if (vpc) out.vSwitches = vpc;
  if (quotas) out.quotas = quotas;
  const read = await Promise.all((clusters ?? []).map((c) => readCluster(scope, rc, c, ecs)));
  out.clusters = read.filter((c): c is WireCluster => c !== undefined);
  return out;
}

async function collectAccount(
  config: ScanConfig,
  account: ScanAccount,
  options: LiveScanOptions,
  coverage: CoverageRecorder,
  credentialsFor: CredentialsFor,
): Promise<WireAccount> {
  const settings = config.collector;
  const regions = [...new Set(account.regions)].sort();
  const out: WireAccount = {
    account: {
      accountId: account.accountId,
      name: account.name ?? '',
      regions,
      ...(account.auditRoleArn !== undefined ? { auditRoleArn: account.auditRoleArn } : {}),
    },
    regions: [],
  };
  let credentials: AccountCredentials;
  try {
    credentials = await credentialsFor(account);
  } catch (e) {
    if (!(e instanceof CollectError)) throw e;
    // No credentials for this account: every dataset of it is failed with the STS code.
    const failed = { errorCode: e.errorCode, message: e.message };
    coverage.record({ accountId: account.accountId, api: 'ram' }, 'failed', failed);
    for (const regionId of regions) {
      for (const api of ['slb', 'ecs', 'vpc', 'quotas', 'cs'] as const)
        coverage.record({ accountId: account.accountId, regionId, api }, 'failed', failed);
      out.regions.push({ regionId, clusters: [] });
    }
    return out;
  }
  const runnerOptions = {
    maxConcurrent: settings.maxConcurrentPerAccount,
    maxAttempts: settings.maxAttempts,
    retryBaseDelayMs: settings.retryBaseDelayMs,
    retryMaxDelayMs: settings.retryMaxDelayMs,
    ...(options.signal ? { signal: options.signal } : {}),
  };
  const scope: AccountScope = {
    accountId: account.accountId,
    clients: createAccountClients(config.alibabaCloud, credentials),
    runner: new CallRunner(runnerOptions),
    kubeRunner: new CallRunner(runnerOptions),
    settings,
    coverage,
    ...(options.signal ? { signal: options.signal } : {}),
  };
  try {
    const [ram, perRegion] = await Promise.all([
      readDataset(scope, { accountId: account.accountId, api: 'ram' }, () => readRam(scope)),
      Promise.all(regions.map((r) => collectRegion(scope, r))),
    ]);
    if (ram) out.ram = ram;
    out.regions = perRegion;
    return out;
  } finally {
    await Promise.all([scope.runner.close(), scope.kubeRunner.close()]);
  }
}

/**
 * Read a live fleet into wire shapes.
 * @param config a validated scan config (`loadScanConfig`)
 * @returns the WireFleet with coverage for every dataset of every target
 * @throws ScanAbortedError when `options.signal` fires; CredentialsConfigError when a named env
 *   variable is missing. API failures never throw: they are `failed` coverage entries.
 */
export async function collectLiveFleet(
  config: ScanConfig,
  options: LiveScanOptions = {},
): Promise<WireFleet> {
  if (options.signal?.aborted) throw new ScanAbortedError();
  const coverage = new CoverageRecorder(options.onProgress);
  for (const a of config.accounts) coverage.plan(1 + new Set(a.regions).size * REGION_DATASETS);
  const stsRunner = new CallRunner({
    maxConcurrent: config.collector.maxConcurrentPerAccount,
    maxAttempts: config.collector.maxAttempts,
    retryBaseDelayMs: config.collector.retryBaseDelayMs,
    retryMaxDelayMs: config.collector.retryMaxDelayMs,
    ...(options.signal ? { signal: options.signal } : {}),
  });
  const resolver = new AccountCredentialsResolver(config, {
    ...(options.env ? { env: options.env } : {}),
    run: (_api, fn) => stsRunner.run(fn),
  });
  const credentialsFor: CredentialsFor = options.credentialsFor ?? ((a) => resolver.credentialsFor(a));
  const accounts = await Promise.all(
    config.accounts.map((a) => collectAccount(config, a, options, coverage, credentialsFor)),
  ).finally(() => stsRunner.close());
  if (options.signal?.aborted) throw new ScanAbortedError();
  return { name: config.name, accounts, coverage: coverage.entries };
}

/**
 * Scan a live fleet into a FleetSnapshot (`collectLiveFleet` + `mapWireFleet`). For the same fleet
 * it equals what `loadFleetDirectory` gives for the fleet directory (coverage included).
 * @throws as collectLiveFleet
 */
export async function scanLive(config: ScanConfig, options: LiveScanOptions = {}): Promise<FleetSnapshot> {
  return mapWireFleet(await collectLiveFleet(config, options));
}
