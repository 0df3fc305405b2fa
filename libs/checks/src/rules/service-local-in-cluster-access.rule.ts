import {
  LB_ANNOTATION,
  getLbAnnotation,
  readyEndpointsByNode,
} from '@app/domain';
import { scopedCheck } from '../check-scope';
import { DOC_URL, SEED } from '../doc-links.constants';
import { count, serviceRef } from '../result.util';

/**
 * A LoadBalancer Service with `externalTrafficPolicy: Local` whose load balancer IP is in its status, while some
 * eligible nodes run none of its ready pods: kube-proxy intercepts in-cluster traffic to that IP and forwards it
 * only to local pods, so access from those nodes fails (seeds 000/003 "Why is an SLB IP address inaccessible from
 * within a cluster?", seed 004 "Notes on accessing the external IP of a LoadBalancer service from within a
 * cluster"). Informational: the audit cannot see whether the address is used from inside the cluster. Passes with
 * the `hostname` annotation (the status then holds a name, not the IP) or when every node runs a pod.
 */
export const serviceLocalInClusterAccessRule = scopedCheck({
  id: 'SERVICE_LOCAL_IN_CLUSTER_ACCESS',
  title: 'Local-mode Service address fails from nodes without its pods',
  category: 'configuration',
  resourceKind: 'Service',
  defaultSeverity: 'info',
  description:
    'For every LoadBalancer Service with externalTrafficPolicy: Local and an IP in its status, counts the nodes ' +
    'that run none of its ready pods. From those nodes (and their pods) the load balancer IP is unreachable, ' +
    'because kube-proxy short-circuits it to local endpoints only.',
  remediation:
    'Access the Service from within the cluster through its ClusterIP or Service name (<service-name>.<namespace>.' +
    'svc.cluster.local); or set the service.beta.kubernetes.io/alibaba-cloud-loadbalancer-hostname annotation and use ' +
    'the domain name; or switch to externalTrafficPolicy: Cluster (the client source IP is lost), or on Terway to ' +
    `Cluster with service.beta.kubernetes.io/backend-type: "eni" (keeps the source IP). ${DOC_URL.serviceFaq}`,
  source:
    `${SEED.serviceFaq} "Why is an SLB IP address inaccessible from within a cluster?" and "How do I resolve the ` +
    `issue where the SLB address exposed by a LoadBalancer service is inaccessible from within a Kubernetes ` +
    `cluster?"; ${SEED.serviceFaqClb} same sections; ${SEED.lbConsiderations} "Notes on accessing the external IP of ` +
    'a LoadBalancer service from within a cluster"',
  scope: 'service',
  needs: ['kubernetes'],
  applies: ({ service, needClb: clb, needNlb: nlb }) => (clb || nlb) && service.externalTrafficPolicy === 'Local',
  check(se, out, r, ctx) {
    const { service } = se;
    const ref = serviceRef(se);
    const hostname = getLbAnnotation(service.annotations, LB_ANNOTATION.hostname);
    const ips = service.ingress.map((i) => i.ip).filter((ip): ip is string => !!ip);
    if (hostname || ips.length === 0) {
      out.push(
        r.pass(
          ref,
          `${ref.id} publishes ${hostname ? `the hostname ${hostname}` : 'no IP'}: kube-proxy does not intercept it`,
          {
            ...(hostname ? { hostname } : {}),
          },
        ),
      );
      return;
    }
    // Any node can host a client pod: every node of the cluster counts, not only backend candidates.
    const nodes = ctx.index.nodeNames(se.cluster);
    const withPods = readyEndpointsByNode(ctx.index.slicesOf(se));
    const total = nodes.size;
    let covered = 0;
    for (const name of withPods.keys()) if (nodes.has(name)) covered++;
    const without = Math.max(total - covered, 0);
    const figures = { addresses: ips, nodes: total, nodesWithPods: covered, nodesWithoutPods: without };
    if (without === 0) {
      out.push(
        r.pass(
          ref,
          `${ref.id} runs a ready pod on every node: its address ${ips.join(', ')} works from inside the cluster`,
          figures,
        ),
      );
    } else {
      out.push(
        r.fail(
          ref,
          `${ref.id} (externalTrafficPolicy: Local) has ready pods on ${covered} of ${count(total, 'node')}: from the other ${without} ` +
            `in-cluster access to ${ips.join(', ')} fails (kube-proxy forwards it to local pods only)`,
          { figures },
        ),
      );
    }
  },
});
