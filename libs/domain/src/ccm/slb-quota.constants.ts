/**
 * CLB (SLB) quota codes of Quota Center (ProductCode `slb`) and their documented defaults, used when
 * the account's Quota Center value was not read.
 */

/** A CLB quota: its Quota Center action code and the documented default value (a count). */
export interface SlbQuotaDefinition {
  quotaActionCode: string;
  /** Documented default, count. */
  defaultValue: number;
  /** Where the default comes from. */
  source: string;
}

/**
 * Backend servers per CLB instance: 200 by default. Seed 002 error table ("The CLB instance has reached
 * the 200-backend-server quota limit"), seed 003 ("By default, you can add up to 200 backend servers to
 * each CLB instance"), seed 004 quota limits.
 */
export const SLB_QUOTA_BACKEND_SERVERS: SlbQuotaDefinition = {
  quotaActionCode: 'slb_quota_backendservers_num',
  defaultValue: 200,
  source: 'ACK "Troubleshoot LoadBalancer services" (docs/sources.md#ack-troubleshooting) error table; ACK "Service FAQ" (docs/sources.md#ack-service-faq) error table; ACK "Notes on service load balancing configuration and CCM resource update policies" (docs/sources.md#ack-lb-considerations) "Quota limits"',
};

/**
 * CLB instances one backend server (ECS) can be added to: 50 by default ("Number of CLB instances to
 * which a backend server can be added"; research ccm-behaviour.md 7). Seed 004: Cluster mode "quickly
 * consumes the quota".
 */
export const SLB_QUOTA_BACKEND_ATTACHED: SlbQuotaDefinition = {
  quotaActionCode: 'slb_quota_backendserver_attached_num',
  defaultValue: 50,
  source: 'ACK "Notes on service load balancing configuration and CCM resource update policies" (docs/sources.md#ack-lb-considerations) "Load balancing update policies" (Cluster mode quota); CCM notes 7 (docs/sources.md#ccm-7)',
};

/** Listeners per CLB instance: 50 by default (seed 004 quota limits; research ccm-behaviour.md 7). */
export const SLB_QUOTA_LISTENERS: SlbQuotaDefinition = {
  quotaActionCode: 'slb_quota_listeners_num',
  defaultValue: 50,
  source: 'ACK "Notes on service load balancing configuration and CCM resource update policies" (docs/sources.md#ack-lb-considerations) "Quota limits"; CCM notes 7 (docs/sources.md#ccm-7)',
};

/**
 * CLB instances per account and region. The documented defaults conflict: 30 (international docs) and
 * 60 (newer / China-site docs) (CCM notes 7 (docs/sources.md#ccm-7); seed 004 "Quota limits" names the quota without
 * the figure). The lower value is the default, so an audit without Quota Center data warns early; the
 * Quota Center value of the account wins when read.
 */
export const SLB_QUOTA_INSTANCES: SlbQuotaDefinition = {
  quotaActionCode: 'slb_quota_instances_num',
  defaultValue: 30,
  source: 'ACK "Notes on service load balancing configuration and CCM resource update policies" (docs/sources.md#ack-lb-considerations) "Quota limits"; CCM notes 7 (docs/sources.md#ccm-7) (30 intl vs 60 newer docs: 30 assumed)',
};
