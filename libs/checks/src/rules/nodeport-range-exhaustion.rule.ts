import { scopedCheck } from '../check-scope';
import { DOC_URL, FORECAST_HINT, SEED } from '../doc-links.constants';
import { rangeText } from '../port-range.util';
import { clusterRef, count, pct, QUOTA_RATIO_SETTINGS, quotaSeverity } from '../result.util';

/**
 * NodePorts allocated in a cluster vs the size of its NodePort range (`--service-node-port-range`, default
 * 30000-32767: 2768 ports). Every port of a NodePort or LoadBalancer Service takes one NodePort; when the range
 * is full the API server rejects new Services (a LoadBalancer Service with `externalTrafficPolicy: Local` also
 * holds its `healthCheckNodePort` from the range: Kubernetes docs "Service" > "externalTrafficPolicy"), and widening the range risks the ephemeral-port overlap seeds
 * 000/003 warn about ("How to correctly configure the NodePort range"). Distinct NodePorts inside the range are
 * counted; warning / critical at the configured quota ratios.
 */
export const nodeportRangeExhaustionRule = scopedCheck({
  id: 'NODEPORT_RANGE_EXHAUSTION',
  title: "NodePorts allocated vs the size of the cluster's NodePort range",
  category: 'quota',
  resourceKind: 'Cluster',
  defaultSeverity: 'warning',
  description:
    "Counts the distinct NodePorts (and Local-mode health check NodePorts) the cluster's Services hold inside its " +
    'NodePort range against the size of the ' +
    'range. A full range makes new NodePort and LoadBalancer Services fail; widening it must not make it overlap ' +
    'net.ipv4.ip_local_port_range on the nodes.',
  remediation:
    'Delete unused NodePort / LoadBalancer Services, use ENI mode (pods as backends) or an Ingress for HTTP ' +
    'Services, or widen the NodePort range of the ACK Pro cluster (customise control plane parameters) while ' +
    'keeping it clear of net.ipv4.ip_local_port_range (default 32768-60999) so that the two ranges do not ' +
    `overlap. ${FORECAST_HINT} ${DOC_URL.serviceFaq}`,
  source:
    `${SEED.serviceFaq} "How to correctly configure the NodePort range"; ${SEED.serviceFaqClb} "How do I configure ` +
    'the NodePort range?" (default 30000-32767)',
  settings: QUOTA_RATIO_SETTINGS,
  quotaUsage: true,
  scope: 'cluster',
  needs: ['kubernetes'],
  check(ce, out, r, ctx) {
    const { cluster } = ce;
    const k8s = cluster.kubernetes!;
    const npr = cluster.nodePortRange;
    const limit = npr.to - npr.from + 1;
    const inside = new Set<number>();
    let outside = 0;
    let services = 0;
    for (const svc of k8s.services) {
      let has = false;
      const ports = svc.ports.map((p) => p.nodePort);
      // The Local-mode health check port is allocated from the same range (kube-apiserver allocator).
      if (svc.healthCheckNodePort !== undefined) ports.push(svc.healthCheckNodePort);
      for (const np of ports) {
        if (np === undefined) continue;
        has = true;
        if (np >= npr.from && np <= npr.to) inside.add(np);
        else outside++;
      }
      if (has) services++;
    }
    const used = inside.size;
    const ratio = limit > 0 ? used / limit : 1;
    const figures = {
      used,
      limit,
      ratio,
      nodePortRange: rangeText(npr),
      nodePortRangeSource: npr.source,
      servicesWithNodePorts: services,
      ...(outside > 0 ? { nodePortsOutsideRange: outside } : {}),
    };
    const text =
      `Cluster ${cluster.clusterId} holds ${count(used, 'NodePort')} of ${limit} in its range ${rangeText(npr)} ` +
      `(${npr.source}): ${pct(ratio)}, over ${count(services, 'Service')}`;
    const severity = quotaSeverity(ratio, ctx.settings.quota);
    out.push(
      severity
        ? r.fail(clusterRef(cluster), text, { severity, figures })
        : r.pass(clusterRef(cluster), text, figures),
    );
  },
});
