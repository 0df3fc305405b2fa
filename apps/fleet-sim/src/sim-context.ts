/**
 * What every simulated API handler may read: the indexed fleet, the public endpoint, the cluster
 * bearer tokens, the accepted AccessKeys (STS adds temporary ones), the Cloud Assistant
 * invocations and the clock.
 */
import type { CredentialStore } from './alibaba/credential.store';
import type { InvocationStore } from './alibaba/invocation.store';
import type { QuotaApplicationStore } from './alibaba/quota-application.store';
import type { FleetIndex } from './fleet/fleet-index.repository';
import type { ClusterTokenStore } from './kubernetes/cluster-token.store';

/**
 * Which simulated API server endpoints cannot be dialled: the kubeconfig of such an endpoint names an
 * address that refuses connections (research/reach.md 4.1: an intranet endpoint outside the caller's
 * network; a public endpoint behind the API server CLB's ACL).
 */
export interface UnreachableEndpoints {
  /** Every cluster's public endpoint. */
  public: boolean;
  /** The intranet endpoints of the clusters in these VPCs (`vpc_id`). */
  vpcs: ReadonlySet<string>;
}

/** Shared state of a running simulator (read-only except the credential, invocation and quota application stores). */
export interface SimContext {
  fleet: FleetIndex;
  /**
   * `127.0.0.1:P`, the `host[:port]` clients use for every product and the Kubernetes API: the
   * clusters' public API server endpoint.
   */
  endpoint: string;
  /** `127.0.0.1:Q`, a second listener serving the same APIs: the clusters' intranet API server endpoint. */
  intranetEndpoint: string;
  /** Endpoints whose kubeconfig names a refusing address. */
  unreachable: UnreachableEndpoints;
  clusterTokens: ClusterTokenStore;
  /** Accepted AccessKeys: the base key and the STS keys AssumeRole issued. */
  credentials: CredentialStore;
  /** Cloud Assistant invocations (the only state the API calls change). */
  invocations: InvocationStore;
  /** Quota Center applications (CreateQuotaApplication; ListProductQuotas reads approved values from here). */
  quotaApplications: QuotaApplicationStore;
  now: () => Date;
}
