import { scopedCheck } from '../check-scope';
import { DOC_URL, SEED } from '../doc-links.constants';
import { rangeText, rangesOverlap } from '../port-range.util';
import { clusterRef, count, listSome } from '../result.util';

/**
 * The cluster's NodePort range (`--service-node-port-range`, default 30000-32767) must not overlap any
 * node's `net.ipv4.ip_local_port_range` (default 32768-60999). Seeds 000/003 "How to correctly configure
 * the NodePort range": overlapping ranges cause sporadic network exceptions, failed health checks and
 * nodes going offline. One result per cluster; skipped when node sysctls were not read.
 */
export const nodeportEphemeralOverlapRule = scopedCheck({
  id: 'NODEPORT_EPHEMERAL_OVERLAP',
  title: "NodePort range overlaps a node's ip_local_port_range",
  category: 'quota',
  resourceKind: 'Cluster',
  defaultSeverity: 'warning',
  description:
    "Compares the cluster's ServiceNodePortRange with net.ipv4.ip_local_port_range on every node. When they " +
    'overlap, the kernel can pick a NodePort as an ephemeral source port, which causes sporadic network errors.',
  remediation:
    'Restore the default values (NodePort range 30000-32767, ip_local_port_range 32768-60999) or adjust both ' +
    'port ranges so that they do not overlap at all; then move Services whose spec.ports.nodePort falls inside ' +
    `ip_local_port_range to an unused NodePort (kubectl edit <service-name>). ${DOC_URL.serviceFaq}`,
  source:
    `${SEED.serviceFaq} "How to correctly configure the NodePort range"; ${SEED.serviceFaqClb} "How do I configure ` +
    'the NodePort range?"; CCM notes 7 (docs/sources.md#ccm-7) (defaults 30000-32767 and 32768-60999)',
  scope: 'cluster',
  needs: ['sysctls'],
  check(ce, out, r) {
    const { cluster } = ce;
    const ref = clusterRef(cluster);
    const ranges = cluster.nodeLocalPortRanges!;
    const npr = cluster.nodePortRange;
    const overlapping: string[] = [];
    const distinct = new Set<string>();
    let nodes = 0;
    // `for...in` over the record (own keys, in `Object.entries` order) instead of an entry pair per node.
    for (const ecsId in ranges) {
      const range = ranges[ecsId]!;
      nodes++;
      if (!rangesOverlap(npr, range)) continue;
      overlapping.push(ecsId);
      distinct.add(rangeText(range));
    }
    const figures = {
      nodePortRange: rangeText(npr),
      nodePortRangeSource: npr.source,
      nodesRead: nodes,
      overlappingNodes: overlapping.length,
      ...(overlapping.length
        ? { localPortRanges: [...distinct].sort(), nodeIds: overlapping.slice(0, 20) }
        : {}),
    };
    if (overlapping.length > 0) {
      out.push(
        r.fail(
          ref,
          `NodePort range ${rangeText(npr)} (${npr.source}) of cluster ${cluster.clusterId} overlaps ip_local_port_range ` +
            `${[...distinct].sort().join(', ')} on ${overlapping.length} of ${count(nodes, 'node')} (${listSome(overlapping)})`,
          { figures },
        ),
      );
    } else {
      out.push(
        r.pass(
          ref,
          `NodePort range ${rangeText(npr)} does not overlap ip_local_port_range on any of ${count(nodes, 'node')}`,
          figures,
        ),
      );
    }
  },
});
