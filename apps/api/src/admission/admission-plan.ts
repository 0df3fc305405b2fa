/**
 * The plan of a review as the webhook keeps it: what the verdict (admission.service.ts `verdict`) and the narrowing
 * to a token's scope (forecast-scope.ts `whatIfInScope`) read, and nothing else. A review thread posts this to the
 * API's event loop instead of the whole plan, and the answers the API remembers hold it.
 */
import type { PlanResult } from '@app/forecast';

/**
 * A `PlanResult` whose `step.quotas` holds only the quotas over their limit after the change (`after.used >
 * after.limit`); every other field as in the plan. The verdict reads `firstBreach` (one of those), the findings and
 * the cluster's name; `whatIfInScope` picks the first breach in scope among the quotas over their limit. The quotas
 * under their limit are most of a plan: a Cluster-mode Service on a 100-node cluster moves every node's ECS
 * attachment count, 100 entries and 34 kB of the 36 kB of a plan on the 1M-backend bench fleet, which the event loop
 * would otherwise copy in from the thread and keep for every remembered answer.
 */
export type AdmissionPlan = PlanResult;

/** The plan as the webhook keeps it (`AdmissionPlan`): the same object when no quota is under its limit. */
export function admissionPlanOf(plan: PlanResult): AdmissionPlan {
  const quotas = plan.step.quotas.filter((q) => q.after.used > q.after.limit);
  if (quotas.length === plan.step.quotas.length) return plan;
  return { ...plan, step: { ...plan.step, quotas } };
}
