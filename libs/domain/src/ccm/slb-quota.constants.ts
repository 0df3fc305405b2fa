/**
 * CLB (SLB) quota codes of Quota Center (ProductCode `slb`) and their documented defaults, used when
 * the account's Quota Center value was not read.
 */

import type { QuotaDefinition } from './quota-definition.types';

const CLB_QUOTAS_DOC = 'CLB "CLB quotas" (https://www.alibabacloud.com/help/en/slb/classic-load-balancer/user-guide/quotas; research/quota-center.md 7)';

/**
 * Backend servers per CLB instance: 200 by default. Seed 002 error table ("The CLB instance has reached
 * the 200-backend-server quota limit"), seed 003 ("By default, you can add up to 200 backend servers to
 * each CLB instance"), seed 004 quota limits.
 */
export const SLB_QUOTA_BACKEND_SERVERS: Readonly<QuotaDefinition> = {
  quotaActionCode: 'slb_quota_backendservers_num',
  productCode: 'slb',
  defaultValue: 200,
  adjustable: true,
  source: 'ACK "Troubleshoot LoadBalancer services" (docs/sources.md#ack-troubleshooting) error table; ACK "Service FAQ" (docs/sources.md#ack-service-faq) error table; ACK "Notes on service load balancing configuration and CCM resource update policies" (docs/sources.md#ack-lb-considerations) "Quota limits"',
};

/**
 * CLB instances one backend server (ECS) can be added to: 50 by default ("Number of CLB instances to
 * which a backend server can be added"; research ccm-behaviour.md 7). Seed 004: Cluster mode "quickly
 * consumes the quota".
 */
export const SLB_QUOTA_BACKEND_ATTACHED: Readonly<QuotaDefinition> = {
  quotaActionCode: 'slb_quota_backendserver_attached_num',
  productCode: 'slb',
  defaultValue: 50,
  // Adjustable on the June 2025 CLB quotas page; an older limits page (doc-detail/85966) said not.
  adjustable: true,
  source: 'ACK "Notes on service load balancing configuration and CCM resource update policies" (docs/sources.md#ack-lb-considerations) "Load balancing update policies" (Cluster mode quota); CCM notes 7 (docs/sources.md#ccm-7)',
};

/** Listeners per CLB instance: 50 by default (seed 004 quota limits; research ccm-behaviour.md 7). */
export const SLB_QUOTA_LISTENERS: Readonly<QuotaDefinition> = {
  quotaActionCode: 'slb_quota_listeners_num',
  productCode: 'slb',
  defaultValue: 50,
  adjustable: true,
  source: 'ACK "Notes on service load balancing configuration and CCM resource update policies" (docs/sources.md#ack-lb-considerations) "Quota limits"; CCM notes 7 (docs/sources.md#ccm-7)',
};

/**
 * CLB instances per account and region. The documented defaults conflict: 30 (international docs) and
 * 60 (newer / China-site docs) (CCM notes 7 (docs/sources.md#ccm-7); seed 004 "Quota limits" names the quota without
 * the figure). The lower value is the default, so an audit without Quota Center data warns early; the
 * Quota Center value of the account wins when read.
 */
export const SLB_QUOTA_INSTANCES: Readonly<QuotaDefinition> = {
  quotaActionCode: 'slb_quota_instances_num',
  productCode: 'slb',
  defaultValue: 30,
  adjustable: true,
  source: `ACK "Notes on service load balancing configuration and CCM resource update policies" (docs/sources.md#ack-lb-considerations) "Quota limits"; CCM notes 7 (docs/sources.md#ccm-7) (30 intl vs 60 newer docs: 30 assumed); adjustable: ${CLB_QUOTAS_DOC}`,
};

/** Every CLB quota the audit reads, in the order the catalogue lists them. */
export const CLB_QUOTAS: readonly QuotaDefinition[] = [SLB_QUOTA_BACKEND_SERVERS, SLB_QUOTA_BACKEND_ATTACHED, SLB_QUOTA_LISTENERS, SLB_QUOTA_INSTANCES];
