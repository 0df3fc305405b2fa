/**
 * What every simulated API handler may read: the indexed fleet, the public endpoint, the cluster
 * bearer tokens, the Cloud Assistant invocations and the clock.
 */
import type { InvocationStore } from './alibaba/invocation.store';
import type { FleetIndex } from './fleet/fleet-index.repository';
import type { ClusterTokenStore } from './kubernetes/cluster-token.store';

/** Shared, read-only state of a running simulator. */
export interface SimContext {
  fleet: FleetIndex;
  /** `127.0.0.1:P`, the `host[:port]` clients use for every product and the Kubernetes API. */
  endpoint: string;
  clusterTokens: ClusterTokenStore;
  /** Cloud Assistant invocations (the only state the API calls change). */
  invocations: InvocationStore;
  now: () => Date;
}
