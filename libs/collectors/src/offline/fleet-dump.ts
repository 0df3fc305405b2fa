/**
 * `fleet-audit dump`: a live crawl written as a fleet directory (docs/fleet-format.md), so offline
 * scans, `report --previous` and history backfills (`scan --fleet DIR --now T`) work from a real fleet
 *.
 *
 * - Same read path as a live scan (`collectLiveFleet`: the official SDKs and client-node, budgets,
 *   retries), written with `writeFleetDirectory` (a temporary sibling directory renamed into place at
 *   the end: an interrupted or failed dump leaves nothing half-written).
 * - Same coverage semantics: a dataset that could not be read has no file in the dump, and the
 *   manifest `dump.json` names it with the API's error code and message; the offline reader reports
 *   that dataset as the same `failed` coverage entry (`applyDumpManifest`), so an offline scan of the
 *   dump shows the gaps the live scan showed, instead of a bare "file missing".
 * - No secrets: the scan config (credentials, role ARNs) is not written; kubeconfigs are never part
 *   of the fleet; container environment values and `kubectl.kubernetes.io/last-applied-configuration`
 *   (which may embed them) are redacted from Pods, and `managedFields` dropped (size only); an account's
 *   `auditRoleArn` (the role the crawl assumed) is left out, every RAM ARN (`acs:ram::...`: RAM roles'
 *   `Arn`, policy `Resource`s and trust principals) and every value of a credential-named key
 *   (password, secret, token, access key, private key) anywhere in the fleet is redacted. The checks
 *   read roles by name and policies by action (libs/domain ram-policy.model: resource scoping is not
 *   modelled), so an offline scan of the dump finds what the live scan found.
 * - `--force` (`overwrite`) replaces only a directory that holds a dump's manifest (`dump.json`) or
 *   nothing at all: a fleet directory written by hand or any other directory is never deleted.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { NLB_DATA, kindWireOf, type WireFleet } from '@app/domain';
import { DUMP_MANIFEST_FILE, readDumpManifest, type DumpManifest } from './fleet-dump-manifest';
import { collectLiveFleet, type LiveScanOptions } from '../live/live-fleet.collector';
import type { ScanConfig } from '../live/scan-config';
import { writeFleetDirectory } from './fleet-directory.writer';

/** What replaces a redacted value in a dump. */
export const DUMP_REDACTED = '[redacted by fleet-audit dump]';

/** The annotation kubectl writes with the whole last applied object (env values included). */
const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

/** A RAM ARN (`acs:ram::<uid>:role/<name>`, `acs:ram::<uid>:root`, ...), up to the next space, quote or separator. */
const RAM_ARN = /acs:ram::[^\s"',;]*/g;

/** Keys whose values are credentials wherever they appear (case-insensitive, `_`/`-` ignored). */
const CREDENTIAL_KEY = /^(password|passwd|secret|secretkey|token|securitytoken|accesstoken|accesskey|accesskeyid|accesskeysecret|privatekey|clientsecret)$/i;

/** An output directory `dump --force` will not replace, and why. */
export class DumpOutputRefusedError extends Error {
  override readonly name = 'DumpOutputRefusedError';
  /**
   * @param out the directory (absolute)
   * @param reason why it is refused (one line)
   */
  constructor(
    readonly out: string,
    reason: string,
  ) {
    super(`${out}: ${reason}`);
  }
}

/**
 * Whether `out` may be (re)written: it must not exist, or, with `overwrite`, be a dump (its `dump.json` a valid
 * manifest) or an empty directory.
 * @throws DumpOutputRefusedError naming the directory: it exists without `overwrite`, or is not a dump
 */
export function checkDumpOutput(out: string, overwrite: boolean): void {
  if (!existsSync(out)) return;
  if (!overwrite) throw new DumpOutputRefusedError(out, 'already exists (use --force to replace it)');
  if (!statSync(out).isDirectory()) throw new DumpOutputRefusedError(out, 'exists and is not a directory: --force replaces only a dump directory');
  if (readdirSync(out).length === 0 || readDumpManifest(out) !== undefined) return;
  throw new DumpOutputRefusedError(out, `is not a fleet-audit dump (no valid ${DUMP_MANIFEST_FILE}): --force replaces only a directory a dump wrote; move it away or choose another --out`);
}

/** Options of {@link dumpLiveFleet}. */
export interface DumpOptions extends Pick<LiveScanOptions, 'onProgress' | 'signal' | 'credentialsFor' | 'rateLimiter' | 'env'> {
  /** Replace `out` when it exists and is a dump or empty (default: refuse); see {@link checkDumpOutput}. */
  overwrite?: boolean;
  /** Clock of `dumpedAt` (default: now). */
  now?: () => Date;
}

/** What a dump wrote. */
export interface DumpResult {
  /** The fleet directory written. */
  out: string;
  manifest: DumpManifest;
  /** Counts of what was written (for the CLI's summary line): `loadBalancers` are CLB instances, `nlbs` NLB instances. */
  counts: { accounts: number; regions: number; clusters: number; loadBalancers: number; nlbs: number; ecsInstances: number };
}

/**
 * Crawl `config` live and write it as the fleet directory `out`, atomically.
 * @throws DumpOutputRefusedError when `out` exists and `overwrite` is not set, or it is neither a dump nor
 *   empty (nothing is crawled); the errors of `collectLiveFleet` (ScanAbortedError,
 *   CredentialsConfigError); a file-system error while writing (the temporary directory is removed,
 *   `out` is untouched)
 */
export async function dumpLiveFleet(config: ScanConfig, out: string, options: DumpOptions = {}): Promise<DumpResult> {
  checkDumpOutput(out, options.overwrite === true);
  const { overwrite, now, ...live } = options;
  const wire = redactForDump(await collectLiveFleet(config, live));
  const manifest: DumpManifest = {
    format: 1,
    dumpedAt: (now?.() ?? new Date()).toISOString(),
    fleet: wire.name,
    notRead: wire.coverage.filter((c) => c.status !== 'ok').map((c) => ({ ...c })),
  };
  writeFleetDirectory(wire, out, { overwrite: overwrite === true, files: { [DUMP_MANIFEST_FILE]: `${JSON.stringify(manifest, null, 1)}\n` } });
  const regions = wire.accounts.flatMap((a) => a.regions);
  return {
    out,
    manifest,
    counts: {
      accounts: wire.accounts.length,
      regions: regions.length,
      clusters: regions.reduce((n, r) => n + r.clusters.length, 0),
      loadBalancers: regions.reduce((n, r) => n + (r.loadBalancers?.length ?? 0), 0),
      nlbs: regions.reduce((n, r) => n + (kindWireOf(r, NLB_DATA)?.[NLB_DATA.instanceList]?.length ?? 0), 0),
      ecsInstances: regions.reduce((n, r) => n + (r.ecsInstances?.length ?? 0), 0),
    },
  };
}

/**
 * The fleet with what must not leave the cloud account taken out: every container's (and init
 * container's) `env[].value`, the last-applied-configuration annotation, and `managedFields` of Pods
 * (the checks read only a Pod's node, phase, IP, labels, owner and container command / args); each
 * account's `auditRoleArn`; every RAM ARN in any string, and the value of every credential-named key
 * ({@link DUMP_REDACTED} instead).
 * @returns a copy; `fleet` is not changed
 */
export function redactForDump(fleet: WireFleet): WireFleet {
  return scrubCredentials({
    ...fleet,
    accounts: fleet.accounts.map(({ account: { auditRoleArn: _role, ...account }, ...a }) => ({
      ...a,
      account,
      regions: a.regions.map((r) => ({
        ...r,
        clusters: r.clusters.map((c) =>
          c.kubernetes ? { ...c, kubernetes: { ...c.kubernetes, pods: c.kubernetes.pods.map((p) => redactPod(p as Record<string, unknown>) as typeof p) } } : c,
        ),
      })),
    })),
  });
}

/**
 * A copy of `value` (plain data) with every RAM ARN inside a string and every value of a credential-named key
 * replaced by {@link DUMP_REDACTED}. Linear in the size of the data.
 */
function scrubCredentials<T>(value: T): T {
  if (typeof value === 'string') return (value.includes('acs:ram::') ? value.replace(RAM_ARN, DUMP_REDACTED) : value) as T;
  if (Array.isArray(value)) return value.map((v: unknown) => scrubCredentials(v)) as T;
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>))
    out[k] = CREDENTIAL_KEY.test(k.replace(/[-_]/g, '')) && v !== null && typeof v !== 'object' ? DUMP_REDACTED : scrubCredentials(v);
  return out as T;
}

function redactPod(pod: Record<string, unknown>): Record<string, unknown> {
  const meta = { ...((pod.metadata ?? {}) as Record<string, unknown>) };
  delete meta.managedFields;
  if (meta.annotations && typeof meta.annotations === 'object') {
    const annotations = { ...(meta.annotations as Record<string, unknown>) };
    if (LAST_APPLIED in annotations) annotations[LAST_APPLIED] = DUMP_REDACTED;
    meta.annotations = annotations;
  }
  const spec = pod.spec && typeof pod.spec === 'object' ? { ...(pod.spec as Record<string, unknown>) } : pod.spec;
  if (spec && typeof spec === 'object') {
    const s = spec as Record<string, unknown>;
    for (const key of ['containers', 'initContainers', 'ephemeralContainers'])
      if (Array.isArray(s[key])) s[key] = (s[key] as Record<string, unknown>[]).map(redactContainer);
  }
  return { ...pod, metadata: meta, ...(spec !== undefined ? { spec } : {}) };
}

function redactContainer(c: Record<string, unknown>): Record<string, unknown> {
  if (!Array.isArray(c.env)) return c;
  return { ...c, env: (c.env as Record<string, unknown>[]).map((e) => ('value' in e ? { ...e, value: DUMP_REDACTED } : e)) };
}
