/**
 * NLB (Network Load Balancer) quota codes of Quota Center (ProductCode `nlb`) and their documented defaults, used
 * when the account's Quota Center value was not read (research/nlb.md 5: NLB "NLB quotas" and "Performance and
 * usage limits" docs; the docs call the values reference only and point to Quota Center). Same shape as the CLB
 * ones (`QuotaDefinition`), so `effectiveQuota` serves both.
 *
 * UNCONFIRMED (research/nlb.md 9): the Quota Center `ProductCode` is taken to be `nlb` by analogy with `slb`; the
 * audit matches entries by their `QuotaActionCode` (`nlb_quota_*`), which is unambiguous either way.
 */
import type { QuotaDefinition } from './quota-definition.types';

const NLB_QUOTAS_DOC =
  'NLB "NLB quotas" (https://www.alibabacloud.com/help/en/slb/network-load-balancer/user-guide/nlb-quotas; research/nlb.md 5)';

/** NLB instances per account and region: 60 by default, adjustable. */
export const NLB_QUOTA_INSTANCES: Readonly<QuotaDefinition> = {
  quotaActionCode: 'nlb_quota_loadbalancers_num',
  productCode: 'nlb',
  defaultValue: 60,
  adjustable: true,
  source: `${NLB_QUOTAS_DOC} nlb_quota_loadbalancers_num`,
};

/** ECS / ENI / IP backends per NLB instance (all its server groups): 400 by default, adjustable. */
export const NLB_QUOTA_BACKEND_SERVERS: Readonly<QuotaDefinition> = {
  quotaActionCode: 'nlb_quota_loadbalancer_noeci_servers_num',
  productCode: 'nlb',
  defaultValue: 400,
  adjustable: true,
  source: `${NLB_QUOTAS_DOC} nlb_quota_loadbalancer_noeci_servers_num`,
};

/** Listeners per NLB instance: 50 by default, adjustable. */
export const NLB_QUOTA_LISTENERS: Readonly<QuotaDefinition> = {
  quotaActionCode: 'nlb_quota_loadbalancer_listeners_num',
  productCode: 'nlb',
  defaultValue: 50,
  adjustable: true,
  source: `${NLB_QUOTAS_DOC} nlb_quota_loadbalancer_listeners_num`,
};

/** NLB server groups per account and region: 3,000, and it **cannot be raised**. */
export const NLB_QUOTA_SERVER_GROUPS: Readonly<QuotaDefinition> = {
  quotaActionCode: 'nlb_quota_servergroups_num',
  productCode: 'nlb',
  defaultValue: 3000,
  adjustable: false,
  source: `${NLB_QUOTAS_DOC} nlb_quota_servergroups_num (not adjustable)`,
};

/** ECS / ENI / IP servers per server group: 400 by default, adjustable. */
export const NLB_QUOTA_SERVER_GROUP_SERVERS: Readonly<QuotaDefinition> = {
  quotaActionCode: 'nlb_quota_servergroup_noeci_servers_num',
  productCode: 'nlb',
  defaultValue: 400,
  adjustable: true,
  source: `${NLB_QUOTAS_DOC} nlb_quota_servergroup_noeci_servers_num`,
};

/**
 * Times one backend server (ECS instance, ENI, or IP: IP-type entries count too) can be added to NLB server
 * groups: 200 by default, adjustable. Cluster mode adds every eligible node to the server group of every Service
 * port (research/nlb.md 4 (d), (e); seed 004 "Cluster mode ... quickly consumes the quota").
 */
export const NLB_QUOTA_SERVER_ADDED: Readonly<QuotaDefinition> = {
  quotaActionCode: 'nlb_quota_server_added_num',
  productCode: 'nlb',
  defaultValue: 200,
  adjustable: true,
  source: `${NLB_QUOTAS_DOC} nlb_quota_server_added_num`,
};

/** Every NLB quota the audit reads, in the order the catalogue lists them. */
export const NLB_QUOTAS: readonly QuotaDefinition[] = [
  NLB_QUOTA_SERVER_GROUP_SERVERS,
  NLB_QUOTA_BACKEND_SERVERS,
  NLB_QUOTA_SERVER_ADDED,
  NLB_QUOTA_SERVER_GROUPS,
  NLB_QUOTA_LISTENERS,
  NLB_QUOTA_INSTANCES,
];
