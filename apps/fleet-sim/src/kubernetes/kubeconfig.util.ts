/**
 * The kubeconfig CS DescribeClusterUserKubeconfig hands out for a simulated cluster: the
 * cluster's Kubernetes API at `https://<endpoint>/k8s/<clusterId>` (self-signed certificate,
 * `insecure-skip-tls-verify: true`) with a bearer token.
 * Layout follows what ACK returns (cluster `kubernetes`, user named by the account id, context
 * `<user>-<clusterId>`), with a token instead of a client certificate.
 */
import { dumpYaml } from '@app/domain';

/** Inputs of {@link buildKubeconfig}. */
export interface KubeconfigInput {
  clusterId: string;
  /** `host:port` of the simulator. */
  endpoint: string;
  /** The cluster's bearer token. */
  token: string;
  /** kubeconfig user name (the account id, as ACK names it). */
  userName: string;
}

/**
 * Base URL of a simulated cluster's Kubernetes API. The kubeconfig uses https because kubectl
 * sends a bearer token only to https servers; the same URL over http also works (client-node).
 */
export function kubernetesServerUrl(
  endpoint: string,
  clusterId: string,
  scheme: 'https' | 'http' = 'https',
): string {
  return `${scheme}://${endpoint}/k8s/${clusterId}`;
}

/** Kubeconfig YAML for one simulated cluster. */
export function buildKubeconfig(input: KubeconfigInput): string {
  const context = `${input.userName}-${input.clusterId}`;
  return dumpYaml({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [
      {
        name: 'kubernetes',
        cluster: {
          server: kubernetesServerUrl(input.endpoint, input.clusterId),
          'insecure-skip-tls-verify': true,
        },
      },
    ],
    contexts: [{ name: context, context: { cluster: 'kubernetes', user: input.userName } }],
    'current-context': context,
    preferences: {},
    users: [{ name: input.userName, user: { token: input.token } }],
  });
}
