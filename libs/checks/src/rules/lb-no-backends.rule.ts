import { parseCcmNamedKey, parseNlbNamedKey } from '@app/domain';
import { combinedCheck, scopedCheck } from '../check-scope';
import { groupsOfNlb } from '../nlb-index';
import { nlbRegionCheck } from './nlb-quota.util';
import { DOC_URL, SEED } from '../doc-links.constants';
import { count, listSome, type PassText } from '../result.util';
import { clbRef, nlbRef } from '../lb-refs';

/** A CLB with backends and no empty vServer group: its message (built when read). */
const clbBackendsText: PassText<{ backendEntries: number }> = (ref, { backendEntries }) =>
  `CLB ${ref.id} has ${count(backendEntries, 'backend server entry', 'backend server entries')}, in no empty vServer group`;

/** An NLB with servers and no empty server group: its message (built when read). */
const nlbBackendsText: PassText<{ backendEntries: number }> = (ref, { backendEntries }) =>
  `NLB ${ref.id} has ${count(backendEntries, 'server entry', 'server entries')}, in no empty server group`;

/**
 * An empty server group as messages name it (CLB vServer group or NLB server group): its id and the Service its CCM
 * name belongs to (`key`, parsed from the name), else its name, else `unnamed`.
 */
function emptyGroupLabel(id: string, name: string, key: { namespace: string; serviceName: string } | undefined): string {
  return `${id} (${key ? `Service ${key.namespace}/${key.serviceName}` : name || 'unnamed'})`;
}

/**
 * A CLB with no backend server at all, or with a vServer group that has none. Seed 002 "There are no available
 * nodes for LoadBalancer: The CLB instance has no backend servers" (CCM records it when a Service has no
 * eligible backend: no pod, unhealthy pods, pods only on master nodes), and "CLB inaccessible from outside the
 * cluster ... Check whether the CLB vServer group is empty". Critical when traffic reaches the emptiness (the
 * CLB has listeners but no backend, or a listener forwards to an empty vServer group), warning otherwise (e.g. an
 * empty group a failed reuse left behind). API server CLBs are out of scope (their backends are the control
 * plane, not CCM's).
 */
const clbPart = scopedCheck({
  id: 'LB_NO_BACKENDS',
  title: 'CLB or NLB, or one of their server groups, has no backend servers',
  category: 'ownership',
  resourceKind: 'LoadBalancer',
  defaultSeverity: 'warning',
  description:
    'Counts the backend servers of each CLB and of each of its vServer groups. A CLB without backends, or a ' +
    'listener forwarding to an empty vServer group, drops every connection; an empty CCM vServer group means its ' +
    'Service has no ready pod on an eligible node.',
  remediation:
    'Check the pod status of the Service the vServer group belongs to (k8s/{port}/{service}/{namespace}/{clusterId}): ' +
    'if no pod is associated with the Service, add a matching application pod; if the pod is unhealthy, resolve ' +
    'the pod issue first; if the pod is running but not added as a backend, check whether it runs on a master node ' +
    'and evict it to a worker node. Delete vServer groups and CLBs nothing uses any more. ' +
    DOC_URL.troubleshooting,
  source:
    `${SEED.troubleshooting} "There are no available nodes for LoadBalancer" and "CLB inaccessible from outside the ` +
    'cluster"; CCM pkg/controller/service/clbv1/vgroups.go (UnAvailableLoadBalancer)',
  scope: 'region',
  needs: ['slb'],
  check(re, out, r, ctx) {
    const stats = ctx.index.clbBackendStats(re.region);
    for (const clb of re.region.loadBalancers ?? []) {
      if (ctx.index.apiServerClusters.has(clb.loadBalancerId)) continue;
      const ref = clbRef(ctx.index, clb);
      const entries = stats.get(clb.loadBalancerId)?.entries ?? 0;
      const listened = new Set<string>();
      for (const l of clb.listeners) if (l.vServerGroupId) listened.add(l.vServerGroupId);
      const empty = clb.vServerGroups.filter((g) => g.backendServers.length === 0);
      const figures = {
        backendEntries: entries,
        listeners: clb.listeners.length,
        vServerGroups: clb.vServerGroups.length,
        emptyVServerGroups: empty.length,
      };
      if (entries === 0) {
        out.push(
          r.fail(
            ref,
            `CLB ${clb.loadBalancerId} has no backend server${clb.listeners.length ? ` behind its ${count(clb.listeners.length, 'listener')}` : ''}` +
              `${clb.vServerGroups.length ? ` (${count(clb.vServerGroups.length, 'vServer group')}, all empty)` : ''}`,
            { severity: clb.listeners.length > 0 ? 'critical' : r.defaultSeverity, figures },
          ),
        );
        continue;
      }
      if (empty.length === 0) {
        out.push(
          r.pass(ref, clbBackendsText, figures),
        );
        continue;
      }
      const names = empty.map((g) => emptyGroupLabel(g.vServerGroupId, g.name, parseCcmNamedKey(g.name)));
      const served = empty.some((g) => listened.has(g.vServerGroupId));
      out.push(
        r.fail(
          ref,
          `CLB ${clb.loadBalancerId} has ${count(empty.length, 'empty vServer group')}: ${listSome(names, 3)}` +
            (served ? '; a listener forwards to one of them' : ''),
          {
            severity: served ? 'critical' : r.defaultSeverity,
            figures: { ...figures, emptyGroupIds: empty.map((g) => g.vServerGroupId) },
          },
        ),
      );
    }
  },
});

/**
 * The NLB part: an NLB whose server groups hold no server, or with a listener forwarding to an empty
 * server group (CCM records "There are no available nodes for NetworkLoadBalancer", UnAvailableLoadBalancer,
 * nlbv2/server_groups.go). Critical when a listener reaches the emptiness. Skipped naming the `nlb` gap where the
 * region's NLBs were not read.
 */
const nlbPart = nlbRegionCheck({
  ...clbPart,
  check(view, re, out, r, ctx) {
    for (const nlb of re.region.nlbs ?? []) {
      const groups = groupsOfNlb(view, nlb);
      const entries = groups.reduce((n, g) => n + g.servers.length, 0);
      const listened = new Set(nlb.listeners.flatMap((l) => (l.serverGroupId ? [l.serverGroupId] : [])));
      const empty = groups.filter((g) => g.servers.length === 0);
      const figures = { backendEntries: entries, listeners: nlb.listeners.length, serverGroups: groups.length, emptyServerGroups: empty.length };
      if (empty.length === 0 && entries > 0) {
        out.push(r.pass(nlbRef(ctx.index, nlb), nlbBackendsText, figures));
        continue;
      }
      if (entries === 0) {
        out.push(
          r.fail(nlbRef(ctx.index, nlb), `NLB ${nlb.loadBalancerId} has no backend server${nlb.listeners.length ? ` behind its ${count(nlb.listeners.length, 'listener')}` : ''}`, {
            severity: nlb.listeners.length > 0 ? 'critical' : r.defaultSeverity,
            figures,
          }),
        );
        continue;
      }
      const names = empty.map((g) => emptyGroupLabel(g.serverGroupId, g.name, parseNlbNamedKey(g.name)));
      const served = empty.some((g) => listened.has(g.serverGroupId));
      out.push(
        r.fail(nlbRef(ctx.index, nlb), `NLB ${nlb.loadBalancerId} has ${count(empty.length, 'empty server group')}: ${listSome(names, 3)}${served ? '; a listener forwards to one of them' : ''}`, {
          severity: served ? 'critical' : r.defaultSeverity,
          figures: { ...figures, emptyGroupIds: empty.map((g) => g.serverGroupId) },
        }),
      );
    }
  },
});

/** A CLB or NLB, or one of its vServer / server groups, with no backend servers. */
export const lbNoBackendsRule = combinedCheck(clbPart, nlbPart);
