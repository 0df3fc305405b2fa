/**
 * Dated copies of the sample fleet for history tests: the dump of day `k` before the last is the sample with
 * `k x nodesPerDay` fewer nodes in one Flannel cluster (their nodes removed from nodes.yaml and their ECS
 * instances from every vServer group of the region), as if the cluster had grown by `nodesPerDay` a day.
 */
import { cpSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dump, load as parse } from 'js-yaml';
import { runScan } from '@app/audit';
import { readFleetDirectory } from '@app/collectors';
import type { WireFleet } from '@app/domain';
import type { Store } from '@app/store';
import { SAMPLE_FLEET } from '../cli/cli-run.util';

/** The payments-legacy cluster of the sample (Flannel, Cluster-mode Services) and where it lives. */
export const GROWING_CLUSTER = 'c1e64668d4e11407d7227bc187533f952';
const REGION_DIR = join('accounts', '1234567890123456', 'regions', 'cn-hangzhou');

interface NodeItem {
  metadata: { name: string };
  spec?: { providerID?: string };
}

/** Writes `days` dated fleet directories (oldest first); returns their paths. */
export function writeDatedDumps(days: number, nodesPerDay: number): string[] {
  const root = mkdtempSync(join(tmpdir(), 'fleet-history-'));
  const out: string[] = [];
  for (let d = 0; d < days; d++) {
    const removed = (days - 1 - d) * nodesPerDay;
    const dir = join(root, `day-${d}`);
    cpSync(SAMPLE_FLEET, dir, { recursive: true });
    if (removed > 0) {
      const nodesFile = join(dir, REGION_DIR, 'clusters', GROWING_CLUSTER, 'kubernetes', 'nodes.yaml');
      const list = parse(readFileSync(nodesFile, 'utf8')) as { items: NodeItem[] };
      const gone = list.items.slice(list.items.length - removed);
      list.items = list.items.slice(0, list.items.length - removed);
      writeFileSync(nodesFile, dump(list));
      const ecsIds = new Set(gone.map((n) => (n.spec?.providerID ?? '').split('.').slice(1).join('.')));
      const vgFile = join(dir, REGION_DIR, 'vserver-groups.json');
      const groups = JSON.parse(readFileSync(vgFile, 'utf8')) as { BackendServers?: { BackendServer?: { ServerId: string }[] } }[];
      for (const g of groups) if (g.BackendServers?.BackendServer) g.BackendServers.BackendServer = g.BackendServers.BackendServer.filter((b) => !ecsIds.has(b.ServerId));
      writeFileSync(vgFile, JSON.stringify(groups, null, 2));
    }
    out.push(dir);
  }
  return out;
}

/** Files of a directory (for debugging a dump). */
export function listDump(dir: string): string[] {
  return readdirSync(dir, { recursive: true }) as string[];
}

/**
 * The quota-request specs' history: `days` dated dumps of the sample (`writeDatedDumps(days, nodesPerDay)`), one a day
 * from `day0`, each stored as an offline scan observed that day, and the last dump's fleet to serve from the simulator.
 */
export async function storeDatedScans(store: Store, day0: number, days = 7, nodesPerDay = 2): Promise<WireFleet> {
  const dumps = writeDatedDumps(days, nodesPerDay);
  for (const [i, dir] of dumps.entries()) {
    const at = new Date(day0 + i * 86_400_000);
    await runScan({ source: { kind: 'offline', fleetDir: dir }, now: at, observedAt: at }, store);
  }
  return readFleetDirectory(dumps[dumps.length - 1]!);
}
