import {
  LB_ANNOTATION,
  ccmManagesListeners,
  getLbAnnotation,
  listenerProtocolOf,
  listenerTransport,
  parseProtocolPort,
  parseVGroupPort,
  vServerGroupName,
} from '@app/domain';
import { scopedCheck } from '../check-scope';
import { DOC_URL, SEED } from '../doc-links.constants';
import { listSome, serviceRef } from '../result.util';

/**
 * A Service reusing a CLB without `force-override-listeners: "true"`: CCM creates and updates the vServer groups
 * but no listener (model_applier.go "listener override is false, skip reconcile listeners"; seeds 000/001/003
 * "Why is a listener not configured when I reuse an existing SLB instance?"). Fails when a Service port has no
 * listener on the CLB, or its listener forwards to a vServer group that is not the Service's (the traffic never
 * reaches the pods). Passes with override on, or when listeners made in the console serve every port. Skipped
 * when the CLB was not read or does not exist.
 */
export const lbReuseListenersNotManagedRule = scopedCheck({
  id: 'LB_REUSE_LISTENERS_NOT_MANAGED',
  title: 'Reused CLB without force-override-listeners: Service ports lack a listener',
  category: 'ownership',
  resourceKind: 'Service',
  defaultSeverity: 'warning',
  description:
    'For every Service that reuses a CLB without force-override-listeners: "true", checks that each Service port ' +
    "has a listener on the CLB that forwards to the Service's vServer group. CCM does not create listeners on a " +
    'reused CLB by default, so ports without a console-made listener receive no traffic.',
  remediation:
    'Set service.beta.kubernetes.io/alibaba-cloud-loadbalancer-force-override-listeners to "true" if the ports of ' +
    "the CLB's existing listeners are no longer used (CCM then creates and overwrites the listeners), or create the " +
    "listeners in the CLB console and point them at the Service's vServer groups " +
    `(k8s/{nodePort}/{service}/{namespace}/{clusterId}). ${DOC_URL.serviceFaq}`,
  source:
    `${SEED.serviceFaq} "Why is a listener not configured when I reuse an existing SLB instance?"; ${SEED.serviceFaqOld} ` +
    `"Why is no listener created when I reuse an existing SLB instance?"; ${SEED.lbConsiderations} "Load balancing ` +
    'update policies" (Listener); CCM pkg/controller/service/clbv1/model_applier.go',
  scope: 'reusedClb',
  needs: ['kubernetes'],
  applies: ({ needClb: clb }) => clb,
  check({ service: se, clb: { clb } }, out, r, ctx) {
    const { service } = se;
    const ref = serviceRef(se);
    if (ccmManagesListeners(service)) {
      out.push(
        r.pass(
          ref,
          `${ref.id} reuses CLB ${clb.loadBalancerId} with force-override-listeners "true": CCM manages its listeners`,
          {
            loadBalancerId: clb.loadBalancerId,
            forceOverride: true,
          },
        ),
      );
      return;
    }
    const parsed = parseProtocolPort(getLbAnnotation(service.annotations, LB_ANNOTATION.protocolPort));
    const entries = 'error' in parsed ? [] : parsed.entries;
    const vgp = parseVGroupPort(getLbAnnotation(service.annotations, LB_ANNOTATION.vgroupPort));
    const reusedGroups = 'error' in vgp ? new Map<string, string>() : vgp.byPort;
    const groups = ctx.index.vServerGroupsByName(clb);
    const clusterId = se.cluster.cluster.clusterId;
    const missing: string[] = [];
    const misrouted: string[] = [];
    for (const sp of service.ports) {
      const transport = listenerTransport(listenerProtocolOf(entries, sp));
      const listener = clb.listeners.find(
        (l) => l.port === sp.port && listenerTransport(l.protocol) === transport,
      );
      if (!listener) {
        missing.push(`${transport}/${sp.port}`);
        continue;
      }
      if (!listener.vServerGroupId) continue;
      const own = new Set<string>();
      const userGroup = reusedGroups.get(String(sp.port));
      if (userGroup) own.add(userGroup);
      for (const port of [sp.nodePort, sp.targetPort ?? sp.port]) {
        if (port === undefined) continue;
        const g = groups.get(vServerGroupName(port, service.name, service.namespace, clusterId));
        if (g) own.add(g.vServerGroupId);
      }
      if (!own.has(listener.vServerGroupId))
        misrouted.push(`${transport}/${sp.port} -> ${listener.vServerGroupId}`);
    }
    const figures = {
      loadBalancerId: clb.loadBalancerId,
      forceOverride: false,
      ports: service.ports.length,
      portsWithoutListener: missing.length,
      portsForwardedElsewhere: misrouted.length,
    };
    if (missing.length === 0 && misrouted.length === 0) {
      out.push(
        r.pass(
          ref,
          `${ref.id} reuses CLB ${clb.loadBalancerId} without force-override-listeners; every port has a listener (made outside CCM)`,
          figures,
        ),
      );
      return;
    }
    const parts = [
      ...(missing.length ? [`no listener on ${listSome(missing, 4)}`] : []),
      ...(misrouted.length ? [`listeners forward to other vServer groups: ${listSome(misrouted, 3)}`] : []),
    ];
    out.push(
      r.fail(
        ref,
        `${ref.id} reuses CLB ${clb.loadBalancerId} without force-override-listeners "true", so CCM creates no listener: ${parts.join('; ')}`,
        { figures: { ...figures, missingListeners: missing, misroutedListeners: misrouted } },
      ),
    );
  },
});
