import {
  LB_ANNOTATION,
  getLbAnnotation,
  type ResourceRef,
  type VSwitch,
} from '@app/domain';
import { scopedCheck } from '../check-scope';
import { DOC_URL, FORECAST_HINT, SEED } from '../doc-links.constants';
import type { FleetIndex, RegionEntry } from '../fleet-index';
import { count, listSome, notReadReason, regionRef } from '../result.util';

/** Who draws addresses from a vSwitch (for messages), and whether a Service names it explicitly. */
interface Usage {
  users: string[];
  annotatedBy: string[];
}

function vSwitchRef(re: RegionEntry, id: string, vsw?: VSwitch): ResourceRef {
  return {
    kind: 'VSwitch',
    id,
    accountId: re.account.accountId,
    regionId: re.region.regionId,
    ...(vsw?.zoneId ? { name: vsw.zoneId } : {}),
  };
}

/** Usable addresses of a vSwitch CIDR (Alibaba Cloud reserves the first and the last three addresses). */
function usableAddresses(cidr: string | undefined): number | undefined {
  const m = /\/(\d{1,2})$/.exec(cidr ?? '');
  if (!m) return undefined;
  const bits = 32 - Number(m[1]);
  return bits >= 3 && bits <= 32 ? 2 ** bits - 4 : undefined;
}

/**
 * vSwitch id -> who draws addresses from it in a region: the vSwitch of every CLB, every vSwitch a CLB Service
 * names with `vswitch-id` (annotated), and the vSwitches of the nodes of each cluster whose Kubernetes objects
 * were read (at most 20 non-annotated users are kept, for messages).
 */
function vSwitchUsage(index: FleetIndex, re: RegionEntry): Map<string, Usage> {
  const usage = new Map<string, Usage>();
  const use = (id: string | undefined, who: string, annotated = false) => {
    if (!id) return;
    let u = usage.get(id);
    if (!u) {
      u = { users: [], annotatedBy: [] };
      usage.set(id, u);
    }
    if (annotated) u.annotatedBy.push(who);
    else if (u.users.length < 20) u.users.push(who);
  };
  for (const clb of re.region.loadBalancers ?? []) use(clb.vSwitchId, `CLB ${clb.loadBalancerId}`);
  for (const ce of index.clustersOf(re.region)) {
    for (const se of ce.services) {
      if (!se.needClb) continue;
      const svc = se.service;
      const annotated = getLbAnnotation(svc.annotations, LB_ANNOTATION.vswitchId);
      if (annotated)
        for (const id of annotated.split(','))
          use(id.trim(), `Service ${svc.namespace}/${svc.name} (cluster ${ce.cluster.clusterId})`, true);
    }
    const seen = new Set<string>();
    // Each node's ECS record as the index linked it (`nodeEcsOf`: the listing `ecsById` holds, without a lookup).
    const records = index.nodeEcsOf(ce.cluster);
    for (let i = 0; i < records.length; i++) {
      const vsw = records[i]?.vSwitchId;
      if (vsw && !seen.has(vsw)) {
        seen.add(vsw);
        use(vsw, `nodes of cluster ${ce.cluster.clusterId}`);
      }
    }
  }
  return usage;
}

/**
 * Free IP addresses left in the vSwitches CLBs and ENI backends draw from: the vSwitch of every CLB that has
 * one (internal-facing CLBs), every vSwitch named by a Service's `vswitch-id` annotation, and the vSwitches of
 * the cluster nodes (CCM creates internal-facing CLBs in the cluster's vSwitch unless annotated; Terway pods,
 * which are ENI backends, take their IPs in the nodes' zone vSwitches). Seeds 002/003: "VSwitchAvailableIpNotExist
 * ... The specified VSwitch has no available ip"; seed 003: "The specified VSwitch does not exist". Critical /
 * warning at `vSwitchIps.criticalFreeIps` / `warningFreeIps` free addresses; a vSwitch a Service names that does
 * not exist is critical. Skipped per region when vSwitches were not read.
 */
export const vswitchIpExhaustionRule = scopedCheck({
  id: 'VSWITCH_IP_EXHAUSTION',
  title: 'vSwitch used by CLBs or ENI backends is running out of IP addresses',
  category: 'quota',
  resourceKind: 'VSwitch',
  defaultSeverity: 'warning',
  description:
    'Checks the free IP addresses of every vSwitch that CLB instances or ENI backends draw from (vSwitches of ' +
    'CLBs, of the vswitch-id annotation, and of the cluster nodes). A vSwitch without free addresses makes CCM fail ' +
    'with VSwitchAvailableIpNotExist when it creates an internal-facing CLB, and Terway cannot give new pods an IP.',
  remediation:
    'Add the annotation service.beta.kubernetes.io/alibaba-cloud-loadbalancer-vswitch-id: "${YOUR_VSWITCH_ID}" to ' +
    'specify a different vSwitch in the same VPC (one with free addresses), or add vSwitches to the cluster or ' +
    'Terway configuration. If a Service names a vSwitch that does not exist, point the annotation at an existing ' +
    `vSwitch. ${FORECAST_HINT} ${DOC_URL.troubleshooting}`,
  source:
    `${SEED.troubleshooting} "Status Code: 400 Code: VSwitchAvailableIpNotExist"; ${SEED.serviceFaqClb} ` +
    '"VSwitchAvailableIpNotExist" and "The specified VSwitch does not exist"; VPC API DescribeVSwitches ' +
    '(AvailableIpAddressCount); CCM clbv1/loadbalancer.go setModelDefaultValue (default vSwitch)',
  settings: ['vSwitchIps.warningFreeIps', 'vSwitchIps.criticalFreeIps'],
  quotaUsage: true,
  scope: 'region',
  needs: [],
  check(re, out, r, ctx) {
    const { region, account } = re;
    const { warningFreeIps, criticalFreeIps } = ctx.settings.vSwitchIps;
    const usage = vSwitchUsage(ctx.index, re);
    if (usage.size === 0) return;
    if (!region.vSwitches) {
      const why = notReadReason(
        ctx.index,
        `vSwitches of ${region.regionId}`,
        'vpc',
        account.accountId,
        region.regionId,
      );
      out.push(r.skipped(regionRef(re), why));
      return;
    }
    const byId = new Map(region.vSwitches.map((v) => [v.vSwitchId, v]));
    for (const [id, u] of [...usage.entries()].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
      const vsw = byId.get(id);
      const who = [...u.annotatedBy.map((a) => `${a} via vswitch-id`), ...u.users];
      if (!vsw) {
        if (u.annotatedBy.length > 0) {
          out.push(
            r.fail(
              vSwitchRef(re, id),
              `vSwitch ${id} named by ${listSome(u.annotatedBy, 3)} does not exist in ${region.regionId}: ` +
                'CCM fails with "The specified VSwitch does not exist"',
              { severity: 'critical', figures: { exists: false, usedBy: who.slice(0, 10) } },
            ),
          );
        } else {
          out.push(
            r.skipped(
              vSwitchRef(re, id),
              `vSwitch ${id} (used by ${listSome(who, 3)}) is not among the vSwitches read in ${region.regionId}`,
            ),
          );
        }
        continue;
      }
      const free = vsw.availableIpAddressCount;
      if (free === undefined) {
        out.push(r.skipped(vSwitchRef(re, id, vsw), `vSwitch ${id} reports no AvailableIpAddressCount`));
        continue;
      }
      const usable = usableAddresses(vsw.cidrBlock);
      const figures = {
        freeIps: free,
        ...(usable !== undefined
          ? { limit: usable, used: Math.max(usable - free, 0), ratio: Math.max(usable - free, 0) / usable }
          : {}),
        ...(vsw.cidrBlock ? { cidrBlock: vsw.cidrBlock } : {}),
        usedBy: who.slice(0, 10),
      };
      const text =
        `vSwitch ${id}${vsw.cidrBlock ? ` (${vsw.cidrBlock})` : ''} has ${count(free, 'free IP address', 'free IP addresses')}` +
        `; used by ${listSome(who, 3)}`;
      if (free <= criticalFreeIps)
        out.push(r.fail(vSwitchRef(re, id, vsw), text, { severity: 'critical', figures }));
      else if (free <= warningFreeIps)
        out.push(r.fail(vSwitchRef(re, id, vsw), text, { severity: 'warning', figures }));
      else out.push(r.pass(vSwitchRef(re, id, vsw), text, figures));
    }
  },
});
