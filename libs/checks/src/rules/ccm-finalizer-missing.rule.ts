import {
  CCM_FEATURES,
} from '@app/domain';
import { scopedCheck } from '../check-scope';
import { DOC_URL, SEED } from '../doc-links.constants';
import { type PassText, serviceRef } from '../result.util';

/** A passing Service's message (built when read). */
const finalizerText: PassText<{ finalizer: string }> = (ref, { finalizer }) => `${ref.id} carries the finalizer ${finalizer}`;

/**
 * A LoadBalancer Service without CCM's finalizer (`service.k8s.alibaba/resources` for CLB,
 * `service.k8s.alibaba/nlb` for NLB; `helper.ServiceFinalizer` / `helper.NLBFinalizer`). Seed 004: "Do not manually
 * delete or modify the service.k8s.alibaba/resources or service.k8s.alibaba/nlb Finalizer on a Service. Manually
 * changing the Finalizer may prevent CLB or NLB resources from being released correctly." Warning when the CCM adds
 * finalizers (v2.0.1+) or its version is unknown (removed by hand, or never reconciled); info when the CCM predates
 * finalizers (the leak risk is the same, the remedy is an upgrade).
 */
export const ccmFinalizerMissingRule = scopedCheck({
  id: 'CCM_FINALIZER_MISSING',
  title: 'LoadBalancer Service without the CCM finalizer: its CLB may leak',
  category: 'version',
  resourceKind: 'Service',
  defaultSeverity: 'warning',
  description:
    'Checks that every LoadBalancer Service carries the finalizer CCM uses to release its CLB or NLB before the ' +
    'Service is deleted. Without it, deleting the Service can leave the load balancer behind, still billed.',
  remediation:
    'Do not manually delete or modify the service.k8s.alibaba/resources or service.k8s.alibaba/nlb finalizer. If it ' +
    'was removed, let CCM add it back (it does so at the next reconcile of a CCM v2.0.1+ cluster, e.g. after any ' +
    'annotation change); on older CCM versions upgrade the component. After deleting such a Service, check for an ' +
    `orphaned CLB (LB_ORPHANED). ${DOC_URL.lbConsiderations}`,
  source:
    `${SEED.lbConsiderations} "Notes on CCM-managed load balancers" (finalizers); CCM ` +
    'pkg/controller/helper/service_utils.go (ServiceFinalizer, NLBFinalizer); CCM notes 3c (docs/sources.md#ccm-3) (v2.0.1)',
  scope: 'service',
  needs: ['kubernetes'],
  check(se, out, r, ctx) {
    const { service } = se;
    if (!se.kind) return;
    const ref = serviceRef(se);
    const { finalizer } = se.kind;
    if (service.finalizers.includes(finalizer)) {
      out.push(r.pass(ref, finalizerText, { finalizer }));
      return;
    }
    const version = se.cluster.cluster.ccmVersion;
    const predates = ctx.index.ccmAtLeast(version, CCM_FEATURES.finalizer.sinceVersion) === false;
    out.push(
      r.fail(
        ref,
        `${ref.id} has no ${finalizer} finalizer` +
          (predates
            ? `: CCM ${version} predates finalizers (${CCM_FEATURES.finalizer.sinceVersion}), a Service deleted while CCM is down or lagging leaves its CLB behind`
            : `${service.deletionTimestamp ? ' and is being deleted' : ''}: deleting it may leave its load balancer behind`),
        {
          severity: predates ? 'info' : r.defaultSeverity,
          figures: {
            finalizer,
            ...(version ? { ccmVersion: version } : {}),
            ccmPredatesFinalizer: predates,
          },
        },
      ),
    );
  },
});
