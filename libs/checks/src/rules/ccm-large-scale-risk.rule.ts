import {
  CCM_BACKEND_BATCH_SIZE,
  CCM_WORKQUEUE_QPS,
  readyEndpoints,
  readyEndpointsByNode,
  serviceTrafficPolicy,
} from '@app/domain';
import { scopedCheck } from '../check-scope';
import { DOC_URL, SEED } from '../doc-links.constants';
import { clusterRef, count } from '../result.util';

/**
 * The scale CCM keeps in sync per cluster: LoadBalancer Services and the backend entries of their vServer
 * groups (modelled: Cluster mode = eligible nodes x ports, Local = nodes with ready pods x ports, ENI = ready
 * pods x ports). Seed 004 "Notes on managing large-scale load balancing in a single cluster with CCM": "CCM has a
 * limited capacity for processing Service events ... perform capacity assessments and stress testing in
 * advance". CCM processes Services through a workqueue of 10 syncs/s with 3 concurrent syncs and adds backends
 * in batches of 40 (CCM notes 7 (docs/sources.md#ccm-7)), so a node change that re-syncs every Cluster-mode Service takes
 * at least Services / 10 seconds. Fails at `ccmScale.maxLoadBalancerServices` Services or `ccmScale.maxBackends`
 * backend entries; the figures feed a what-if forecast (add nodes, add Services, batch changes).
 */
export const ccmLargeScaleRiskRule = scopedCheck({
  id: 'CCM_LARGE_SCALE_RISK',
  title: 'Cluster has more LoadBalancer Services x backends than CCM syncs quickly',
  category: 'quota',
  resourceKind: 'Cluster',
  defaultSeverity: 'warning',
  description:
    'Counts, per cluster, the LoadBalancer Services and the backend entries CCM keeps in sync, with the batch API ' +
    'calls and the minimum time of a full re-sync (workqueue 10 syncs/s, batches of 40 backends). Above the ' +
    'thresholds, node changes and batch Service changes take CCM minutes to apply: capacity-test before scaling.',
  remediation:
    'Perform capacity assessments and stress testing in advance of large batch changes (creating or deleting many ' +
    'Services, changing many endpoints, adding or removing nodes); forecast the change first (`fleet-audit forecast ' +
    'whatif --scenario FILE` reports the quotas and findings a batch change moves, `fleet-audit forecast headroom` ' +
    'what still fits, `fleet-audit forecast trends` when a quota runs out). Reduce the load CCM ' +
    'syncs: Local mode or backend-label instead of Cluster mode, ENI backends on Terway, fewer LoadBalancer Services ' +
    `(share an Ingress), or split the workload over more clusters. ${DOC_URL.lbConsiderations}`,
  source:
    `${SEED.lbConsiderations} "Notes on managing large-scale load balancing in a single cluster with CCM"; CCM ` +
    'pkg/config/controller_config.go (--sg-batch-size 40, --concurrent-service-syncs 3), ' +
    'pkg/controller/service/clbv1/service_controller.go (workqueue rate limit 10 qps)',
  settings: ['ccmScale.maxLoadBalancerServices', 'ccmScale.maxBackends'],
  scope: 'cluster',
  needs: ['kubernetes'],
  check(ce, out, r, ctx) {
    const { cluster } = ce;
    const { maxLoadBalancerServices, maxBackends } = ctx.settings.ccmScale;
    let services = 0;
    let backends = 0;
    let batchCalls = 0;
    let clusterMode = 0;
    for (const se of ce.services) {
      if (!se.needClb && !se.needNlb) continue;
      const svc = se.service;
      services++;
      const mode = serviceTrafficPolicy(svc, cluster).policy;
      let perPort: number;
      if (mode === 'cluster') {
        clusterMode++;
        perPort = ctx.index.eligibleNodesOf(se)?.nodes.length ?? 0;
      } else {
        const slices = ctx.index.slicesOf(se);
        perPort = mode === 'local' ? readyEndpointsByNode(slices).size : readyEndpoints(slices).length;
      }
      const entries = perPort * svc.ports.length;
      backends += entries;
      batchCalls += Math.ceil(entries / CCM_BACKEND_BATCH_SIZE);
    }
    const minResyncSeconds = Math.ceil(services / CCM_WORKQUEUE_QPS);
    const figures = {
      loadBalancerServices: services,
      clusterModeServices: clusterMode,
      backendEntries: backends,
      batchCalls,
      minResyncSeconds,
      maxLoadBalancerServices,
      maxBackends,
    };
    const text =
      `Cluster ${cluster.clusterId} has ${count(services, 'LoadBalancer Service')} with ${count(backends, 'backend entry', 'backend entries')} ` +
      `(${count(batchCalls, 'batch call')} of ${CCM_BACKEND_BATCH_SIZE}); a full re-sync takes at least ${minResyncSeconds} s`;
    if (services >= maxLoadBalancerServices || backends >= maxBackends) {
      const over = [
        ...(services >= maxLoadBalancerServices
          ? [`${services} >= ${maxLoadBalancerServices} Services`]
          : []),
        ...(backends >= maxBackends ? [`${backends} >= ${maxBackends} backend entries`] : []),
      ];
      out.push(
        r.fail(clusterRef(cluster), `${text}: above the CCM scale threshold (${over.join(', ')})`, {
          figures,
        }),
      );
    } else {
      out.push(r.pass(clusterRef(cluster), text, figures));
    }
  },
});
