import type { PortRange } from '@app/domain';
import { scopedCheck } from '../check-scope';
import { type PassText } from '../result.util';
import { DOC_URL, SEED } from '../doc-links.constants';
import { count, serviceRef } from '../result.util';
import { rangeText } from '../port-range.util';

/** A Service whose NodePorts are all outside the range: its message (built when read). */
const outsideText: PassText<{ nodePorts: string[] }> = (ref, { nodePorts }) =>
  `${ref.id} NodePorts ${nodePorts.join(', ')} are outside every node's ip_local_port_range`;

/**
 * A Service whose `nodePort` lies inside a node's `net.ipv4.ip_local_port_range`: the concrete conflict
 * seeds 000/003 describe ("some NodePort or LoadBalancer services in the cluster may still use ports within
 * the ip_local_port_range ... You need to reconfigure these services"). One result per Service with
 * NodePorts; the cluster is skipped when its Kubernetes objects or node sysctls were not read.
 * Severity critical: the port can be taken as a source port by any outgoing connection now.
 */
export const nodeportInEphemeralRangeRule = scopedCheck({
  id: 'NODEPORT_IN_EPHEMERAL_RANGE',
  title: "Service nodePort inside a node's ip_local_port_range",
  category: 'quota',
  resourceKind: 'Service',
  defaultSeverity: 'critical',
  description:
    "Checks every NodePort and LoadBalancer Service port against the ephemeral port range of the cluster's " +
    'nodes. A NodePort inside that range can collide with source ports of outgoing connections, causing sporadic ' +
    'network errors and failed health checks.',
  remediation:
    'Change spec.ports.nodePort of the Service to an unused NodePort outside ip_local_port_range ' +
    '(kubectl edit <service-name>), and make the NodePort range and ip_local_port_range not overlap. ' +
    DOC_URL.serviceFaq,
  source: `${SEED.serviceFaq} "How to correctly configure the NodePort range"; ${SEED.serviceFaqClb} "How do I configure the NodePort range?"`,
  scope: 'cluster',
  needs: ['kubernetes', 'sysctls'],
  check(ce, out, r) {
    const { cluster } = ce;
    const localRanges = cluster.nodeLocalPortRanges!;
    // Distinct ranges with how many nodes use each: Services x ports x (few distinct ranges). The nodes of a cluster
    // mostly share one range: a node with the previous node's range is counted without building its key.
    const byRange = new Map<string, { range: PortRange; nodes: number }>();
    let last: { range: PortRange; nodes: number } | undefined;
    for (const id in localRanges) {
      const range = localRanges[id]!;
      if (last && range.from === last.range.from && range.to === last.range.to) {
        last.nodes++;
        continue;
      }
      const k = rangeText(range);
      last = byRange.get(k);
      if (last) last.nodes++;
      else byRange.set(k, (last = { range, nodes: 1 }));
    }
    const ranges = [...byRange.values()];
    for (const se of ce.services) {
      const { service } = se;
      const nodePorts = service.ports.map((p) => p.nodePort).filter((p): p is number => p !== undefined);
      if (nodePorts.length === 0) continue;
      const ref = serviceRef(se);
      const inside: string[] = [];
      let maxNodes = 0;
      for (const port of nodePorts) {
        let nodesHit = 0;
        const hitRanges: string[] = [];
        for (const { range, nodes } of ranges) {
          if (port >= range.from && port <= range.to) {
            nodesHit += nodes;
            hitRanges.push(rangeText(range));
          }
        }
        if (nodesHit > 0) {
          inside.push(`${port} (in ${hitRanges.join(', ')} on ${count(nodesHit, 'node')})`);
          maxNodes = Math.max(maxNodes, nodesHit);
        }
      }
      const figures = {
        nodePorts: nodePorts.map(String),
        portsInside: inside.length,
        nodesAffected: maxNodes,
      };
      if (inside.length > 0) {
        out.push(
          r.fail(ref, `${ref.id} uses NodePort ${inside.join('; ')} inside ip_local_port_range`, {
            figures,
          }),
        );
      } else {
        out.push(
          r.pass(ref, outsideText, figures),
        );
      }
    }
  },
});
