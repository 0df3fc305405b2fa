/**
 * What every simulated API handler may read: the indexed fleet, the public endpoint, the cluster
 * bearer tokens and the clock.
 */
import type { FleetIndex } from './fleet/fleet-index.repository';
import type { ClusterTokenStore } from './kubernetes/cluster-token.store';

/** Shared, read-only state of a running simulator. */
export interface SimContext {
  fleet: FleetIndex;
  /** `127.0.0.1:P`, the `host[:port]` clients use for every product and the Kubernetes API. */
  endpoint: string;
  clusterTokens: ClusterTokenStore;
  now: () => Date;
}
