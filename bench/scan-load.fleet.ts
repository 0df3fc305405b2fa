/**
 * The generated fleet of the scan-load bench (`bench/api-scan-load.bench.ts`) and of the scan queue
 * tests (`test/api/scan-queue.e2e-spec.ts`): 100 clusters over 10 accounts in one region, 30 nodes
 * and 12 LoadBalancer Services each (mostly Cluster mode, so every vServer group lists every node),
 * written as an offline fleet directory. Deterministic for a given seed (libs/collectors generateFleet).
 */
import { generateFleet, generateSpecSchema, writeFleetDirectory } from '@app/collectors';

/** Size of the generated fleet: counts. */
export interface ScanLoadFleetSize {
  clusters: number;
  nodesPerCluster: number;
  servicesPerCluster: number;
}

/** The scan-load scenario: a 100-cluster fleet. */
export const SCAN_LOAD_FLEET: ScanLoadFleetSize = { clusters: 100, nodesPerCluster: 30, servicesPerCluster: 12 };

/**
 * Generate the fleet and write it to `dir` (created; must not exist or be empty).
 * @returns the number of clusters written
 * @throws the writer's error when `dir` cannot be written
 */
export function writeScanLoadFleet(dir: string, size: ScanLoadFleetSize = SCAN_LOAD_FLEET, seed = 14): number {
  const spec = generateSpecSchema.parse({
    seed,
    accounts: 10,
    regions: ['cn-hangzhou'],
    clusters: size.clusters,
    nodesPerCluster: size.nodesPerCluster,
    servicesPerCluster: size.servicesPerCluster,
    podsPerService: 3,
    trafficPolicy: { cluster: 0.9, local: 0.1, eni: 0 },
    shares: { orphaned: 0.02, reused: 0.02, misconfigured: 0.05, consoleReused: 0.05 },
  });
  writeFleetDirectory(generateFleet(spec, `scan-load-${size.clusters}`).fleet, dir, { overwrite: true });
  return size.clusters;
}
