/**
 * A small hand-built fleet for the forecast tests: one account, one region, one Flannel cluster of `nodes`
 * workers with lowered Quota Center values, and `clusterServices` Cluster-mode LoadBalancer Services whose CLBs
 * are built by the CCM model itself (ScenarioApplier addServices), so the snapshot is consistent. With `nlb` the
 * region's NLB data counts as read (empty NLB lists, nodes in zone cn-hangzhou-h) and `nlbServices` Cluster-mode
 * NLB Services (`loadBalancerClass: alibabacloud.com/nlb`, each `nlbPorts` ports) are built the same way.
 */
import type { FleetSnapshot, QuotaValue } from '@app/domain';
import { ScenarioApplier, parseScenario } from '@app/forecast';

export const ACCOUNT = '1234567890123456';
export const REGION = 'cn-hangzhou';
export const CLUSTER = 'c-forecast';
export const NOW = new Date('2026-11-20T00:00:00Z');

export interface SmallFleetOptions {
  nodes?: number;
  clusterServices?: number;
  quotas?: Record<string, number>;
  freeIps?: number;
  /** The region's NLB data was read (default: true when `nlbServices` is given, else false). */
  nlb?: boolean;
  /** Cluster-mode NLB Services, in namespace `edge`. */
  nlbServices?: number;
  /** Ports of each NLB Service (default [443]). */
  nlbPorts?: number[];
}

/** Builds the fleet (fresh objects on every call). */
export function smallFleet(opts: SmallFleetOptions = {}): FleetSnapshot {
  const n = opts.nodes ?? 5;
  const quotas: QuotaValue[] = Object.entries(opts.quotas ?? {}).map(([quotaActionCode, totalQuota]) => ({ quotaActionCode, totalQuota }));
  const nodes = Array.from({ length: n }, (_, i) => {
    const id = `i-node${String(i).padStart(4, '0')}`;
    return {
      name: `node-${i}`,
      labels: { 'kubernetes.io/hostname': `node-${i}` },
      providerId: `${REGION}.${id}`,
      ecsInstanceId: id,
      unschedulable: false,
      ready: true,
      taints: [],
      internalIp: `10.0.0.${i + 10}`,
    };
  });
  const snapshot: FleetSnapshot = {
    name: 'forecast-test',
    coverage: [],
    accounts: [
      {
        accountId: ACCOUNT,
        name: 'acme',
        regions: [
          {
            accountId: ACCOUNT,
            regionId: REGION,
            loadBalancers: [],
            ecsInstances: nodes.map((node) => ({
              instanceId: node.ecsInstanceId,
              regionId: REGION,
              vpcId: 'vpc-1',
              vSwitchId: 'vsw-1',
              zoneId: 'cn-hangzhou-h',
              status: 'Running',
              privateIps: [node.internalIp],
              tags: {},
            })),
            vSwitches: [{ vSwitchId: 'vsw-1', vpcId: 'vpc-1', zoneId: 'cn-hangzhou-h', cidrBlock: '10.0.0.0/24', availableIpAddressCount: opts.freeIps ?? 200 }],
            ...((opts.nlb ?? (opts.nlbServices ?? 0) > 0) ? { nlbs: [], nlbServerGroups: [] } : {}),
            quotas,
            clusters: [
              {
                clusterId: CLUSTER,
                name: 'small',
                accountId: ACCOUNT,
                regionId: REGION,
                clusterType: 'ManagedKubernetes',
                created: '2023-05-01T00:00:00Z',
                vpcId: 'vpc-1',
                addons: [
                  { name: 'cloud-controller-manager', version: 'v2.12.3' },
                  { name: 'flannel', version: 'v1' },
                ],
                networkPlugin: 'flannel',
                ccmVersion: 'v2.12.3',
                nodePortRange: { from: 30000, to: 32767, source: 'default' },
                kubernetes: { nodes, services: [], pods: [], endpointSlices: [], events: [] },
              },
            ],
          },
        ],
      },
    ],
  };
  const services = opts.clusterServices ?? 0;
  const nlbServices = opts.nlbServices ?? 0;
  const steps: Record<string, unknown>[] = [];
  if (services > 0) steps.push({ addServices: { cluster: CLUSTER, namespace: 'shop', count: services, namePrefix: 'base' } });
  if (nlbServices > 0)
    steps.push({ addServices: { cluster: CLUSTER, namespace: 'edge', count: nlbServices, namePrefix: 'nlb', loadBalancerClass: 'alibabacloud.com/nlb', ports: opts.nlbPorts ?? [443] } });
  if (steps.length > 0) {
    const applier = new ScenarioApplier(snapshot);
    for (const step of parseScenario({ apiVersion: 'fleet-audit/v1', kind: 'Scenario', name: 'seed', steps }).steps) applier.apply(step);
  }
  return snapshot;
}
