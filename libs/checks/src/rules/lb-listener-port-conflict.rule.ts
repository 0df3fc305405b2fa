import {
  LB_ANNOTATION,
  getLbAnnotation,
  listenerProtocolOf,
  listenerTransport,
  parseProtocolPort,
  expectedNlbListeners,
  nlbListenersOverlap,
  serviceTrafficPolicy,
  type ExpectedNlbListener,
} from '@app/domain';
import { combinedCheck, scopedCheck } from '../check-scope';
import { nlbOfService, nlbServicesOf } from '../nlb-index';
import { nlbRegionCheck } from './nlb-quota.util';
import { DOC_URL, SEED } from '../doc-links.constants';
import type { ServiceEntry } from '../fleet-index';
import { count, listSome } from '../result.util';
import { clbRef, nlbRef } from '../lb-refs';

function svcName(se: ServiceEntry): string {
  return `${se.cluster.cluster.clusterId}:${se.service.namespace}/${se.service.name}`;
}

/**
 * Two Services that use one CLB (reuse) with the same listener port: seed 004 "Multiple Services cannot use the
 * same listener port on the same SLB instance simultaneously". A CLB listener is one per port and transport
 * (`udp`, or `tcp` shared by tcp/http/https listeners); the protocol comes from `protocol-port`, else the Service
 * port's protocol (`protocol()`, pkg/controller/service/clbv1/listeners.go). One result per CLB used by two or
 * more Services; skipped for CLBs that two Services reuse in a region whose CLBs were not read.
 */
const clbPart = scopedCheck({
  id: 'LB_LISTENER_PORT_CONFLICT',
  title: 'Two Services use the same listener port on one CLB or NLB',
  category: 'ownership',
  resourceKind: 'LoadBalancer',
  defaultSeverity: 'critical',
  description:
    'For every CLB shared by several Services (reuse), collects the listener port each Service port asks for. Two ' +
    'Services on the same port and transport fight over one listener: each reconcile points it at its own vServer ' +
    'group, or one Service never gets its listener.',
  remediation:
    'Give every Service that reuses the CLB its own listener ports (change spec.ports[].port), or move one Service ' +
    `to another CLB instance. Multiple Services cannot use the same listener port on one CLB. ${DOC_URL.lbConsiderations}`,
  source:
    `${SEED.lbConsiderations} "Which load balancers can be reused?" ("Multiple Services cannot use the same listener ` +
    'port"); CCM pkg/controller/service/clbv1/listeners.go buildListenerFromServicePort, protocol()',
  scope: 'sharedClb',
  needs: ['slb'],
  check({ lbId, clb, services }, out, r, ctx) {
    const byPort = new Map<string, Set<string>>();
    for (const se of services) {
      const parsed = parseProtocolPort(getLbAnnotation(se.service.annotations, LB_ANNOTATION.protocolPort));
      const entries = 'error' in parsed ? [] : parsed.entries;
      for (const sp of se.service.ports) {
        const key = `${listenerTransport(listenerProtocolOf(entries, sp))}/${sp.port}`;
        const set = byPort.get(key) ?? new Set<string>();
        set.add(svcName(se));
        byPort.set(key, set);
      }
    }
    const conflicts = [...byPort.entries()]
      .filter(([, s]) => s.size > 1)
      .map(([port, s]) => `${port} (${[...s].sort().join(', ')})`)
      .sort();
    const figures = {
      services: services.map(svcName).sort(),
      listenerPorts: byPort.size,
      conflictingPorts: conflicts.length,
    };
    const used = `CLB ${lbId} is used by ${count(services.length, 'Service')}`;
    if (conflicts.length === 0) {
      out.push(r.pass(clbRef(ctx.index, clb.clb), `${used} on distinct listener ports`, figures));
      return;
    }
    out.push(
      r.fail(
        clbRef(ctx.index, clb.clb),
        `${used}, and ${count(conflicts.length, 'listener port')} ${conflicts.length === 1 ? 'is' : 'are'} asked for by ` +
          `more than one: ${listSome(conflicts, 3)}`,
        { figures: { ...figures, conflicts } },
      ),
    );
  },
});

/**
 * The NLB part: NLB Services sharing one NLB (reuse, as CCM finds it) whose listeners overlap: same
 * protocol and port, or a port inside another's `listener-port-range` (`isListenerPortOverlapped`,
 * pkg/controller/service/nlbv2/listeners.go; TCP and UDP on one port do not conflict). One result per NLB used by
 * two or more NLB Services; a region whose NLBs were not read is skipped naming the `nlb` gap.
 */
const nlbPart = nlbRegionCheck({
  ...clbPart,
  check(_view, re, out, r, ctx) {
    const byNlb = new Map<string, ServiceEntry[]>();
    for (const se of nlbServicesOf(ctx.index, re.region)) {
      const nlb = nlbOfService(ctx.index, se)?.nlb;
      if (!nlb) continue;
      const list = byNlb.get(nlb.loadBalancerId) ?? [];
      list.push(se);
      byNlb.set(nlb.loadBalancerId, list);
    }
    for (const nlb of re.region.nlbs ?? []) {
      const services = byNlb.get(nlb.loadBalancerId) ?? [];
      if (services.length < 2) continue;
      const listeners: { se: ServiceEntry; l: ExpectedNlbListener }[] = [];
      for (const se of services) {
        const built = expectedNlbListeners(se.service, se.cluster.cluster.clusterId, serviceTrafficPolicy(se.service, se.cluster.cluster).policy);
        if (!('error' in built)) for (const l of built.listeners) listeners.push({ se, l });
      }
      const conflicts = new Set<string>();
      for (let i = 0; i < listeners.length; i++)
        for (let j = i + 1; j < listeners.length; j++) {
          const a = listeners[i]!;
          const b = listeners[j]!;
          if (a.se !== b.se && nlbListenersOverlap(a.l, b.l))
            conflicts.add(`${a.l.protocol} ${a.l.port || `${a.l.startPort}-${a.l.endPort}`}: ${svcName(a.se)} and ${svcName(b.se)}`);
        }
      const figures = { services: services.length, kind: 'NLB' };
      if (conflicts.size === 0) out.push(r.pass(nlbRef(ctx.index, nlb), `NLB ${nlb.loadBalancerId} is shared by ${count(services.length, 'Service')} on distinct listener ports`, figures));
      else out.push(r.fail(nlbRef(ctx.index, nlb), `NLB ${nlb.loadBalancerId} is shared by ${count(services.length, 'Service')} whose listeners overlap: ${listSome([...conflicts], 3)}`, { figures: { ...figures, conflicts: [...conflicts] } }));
    }
  },
});

/** Two Services use the same listener port (and protocol) on one CLB or NLB. */
export const lbListenerPortConflictRule = combinedCheck(clbPart, nlbPart);
