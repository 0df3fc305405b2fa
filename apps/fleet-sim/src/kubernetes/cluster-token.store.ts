/**
 * Bearer tokens of the simulated Kubernetes API servers: one random token per cluster, handed out
 * in the kubeconfig of CS DescribeClusterUserKubeconfig and required on every Kubernetes request
 * for that cluster (a token of another cluster is unknown there, as on a real API server).
 */
import { randomBytes } from 'node:crypto';

/** Cluster id <-> bearer token, created on first use. */
export class ClusterTokenStore {
  private readonly tokenByCluster = new Map<string, string>();

  /** The bearer token of a cluster (created on first call, stable afterwards). */
  tokenFor(clusterId: string): string {
    let token = this.tokenByCluster.get(clusterId);
    if (token === undefined) {
      token = `sim-${randomBytes(24).toString('hex')}`;
      this.tokenByCluster.set(clusterId, token);
    }
    return token;
  }

  /** Whether `token` is the bearer token of `clusterId`. */
  accepts(clusterId: string, token: string): boolean {
    const expected = this.tokenByCluster.get(clusterId);
    return expected !== undefined && expected === token;
  }
}
