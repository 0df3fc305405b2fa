/**
 * What every simulated API handler may read: the indexed fleet, the public endpoint, the cluster
 * bearer tokens, the accepted AccessKeys (STS adds temporary ones), the Cloud Assistant
 * invocations and the clock.
 */
import type { CredentialStore } from './alibaba/credential.store';
import type { InvocationStore } from './alibaba/invocation.store';
import type { FleetIndex } from './fleet/fleet-index.repository';
import type { ClusterTokenStore } from './kubernetes/cluster-token.store';

/** Shared state of a running simulator (read-only except the credential and invocation stores). */
export interface SimContext {
  fleet: FleetIndex;
  /** `127.0.0.1:P`, the `host[:port]` clients use for every product and the Kubernetes API. */
  endpoint: string;
  clusterTokens: ClusterTokenStore;
  /** Accepted AccessKeys: the base key and the STS keys AssumeRole issued. */
  credentials: CredentialStore;
  /** Cloud Assistant invocations (the only state the API calls change). */
  invocations: InvocationStore;
  now: () => Date;
}
