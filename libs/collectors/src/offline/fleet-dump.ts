/**
 * `fleet-audit dump`: a live crawl written as a fleet directory (docs/fleet-format.md), so offline
 * scans, `report --previous` and history backfills (`scan --fleet DIR --now T`) work from a real fleet
 * (issue 21 item 1).
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
 *   (which may embed them) are redacted from Pods, and `managedFields` dropped (size only).
 */
import { existsSync } from 'node:fs';
import type { WireFleet } from '@app/domain';
import { DUMP_MANIFEST_FILE, type DumpManifest } from './fleet-dump-manifest';
import { collectLiveFleet, type LiveScanOptions } from '../live/live-fleet.collector';
import type { ScanConfig } from '../live/scan-config';
import { writeFleetDirectory } from './fleet-directory.writer';

/** What replaces a redacted value in a dump. */
export const DUMP_REDACTED = '[redacted by fleet-audit dump]';

/** The annotation kubectl writes with the whole last applied object (env values included). */
const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

/** Options of {@link dumpLiveFleet}. */
export interface DumpOptions extends Pick<LiveScanOptions, 'onProgress' | 'signal' | 'credentialsFor' | 'rateLimiter' | 'env'> {
  /** Replace `out` when it exists (default: refuse). */
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
 * @throws Error when `out` exists and `overwrite` is not set (nothing is crawled); the errors of
 *   `collectLiveFleet` (ScanAbortedError, CredentialsConfigError); a file-system error while writing
 *   (the temporary directory is removed, `out` is untouched)
 */
export async function dumpLiveFleet(config: ScanConfig, out: string, options: DumpOptions = {}): Promise<DumpResult> {
  if (existsSync(out) && !options.overwrite) throw new Error(`${out} already exists (use --force to replace it)`);
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
      nlbs: regions.reduce((n, r) => n + (r.nlb?.loadBalancers.length ?? 0), 0),
      ecsInstances: regions.reduce((n, r) => n + (r.ecsInstances?.length ?? 0), 0),
    },
  };
}

/**
 * The fleet with what must not leave the cluster taken out of its Pods: every container's (and init
 * container's) `env[].value`, the last-applied-configuration annotation, and `managedFields`. The
 * checks read only a Pod's node, phase, IP, labels, owner and container command / args.
 * @returns a copy; `fleet` is not changed
 */
export function redactForDump(fleet: WireFleet): WireFleet {
  return {
    ...fleet,
    accounts: fleet.accounts.map((a) => ({
      ...a,
      regions: a.regions.map((r) => ({
        ...r,
        clusters: r.clusters.map((c) =>
          c.kubernetes ? { ...c, kubernetes: { ...c.kubernetes, pods: c.kubernetes.pods.map((p) => redactPod(p as Record<string, unknown>) as typeof p) } } : c,
        ),
      })),
    })),
  };
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
