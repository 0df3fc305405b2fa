import { DEFAULT_OWNER_TAG_KEY } from '@app/domain';
import type { AuditSettings } from './audit-settings.types';

/**
 * Default audit settings. Quota thresholds: checks.md "Severity" (warning 80 %, critical 95 %).
 * Cluster-mode blowup: fail at factor >= 2 and >= 10 extra backend entries, so a small cluster with a
 * couple of nodes without pods is not reported (the waste is one or two backends), while a Service on
 * 3 of 100 nodes is.
 * vSwitch IPs: critical at 0 free (seeds 002/003 "VSwitchAvailableIpNotExist ... has no available ip": the
 * next CLB or ENI pod fails now), warning at 32 or fewer (one rolling update of a few dozen ENI pods).
 * CCM scale: seed 004 gives no figure ("perform capacity assessments and stress testing in advance"); 200
 * Services (at CCM's workqueue rate of 10 syncs/s and 3 concurrent syncs, a full resync takes 20 s or more)
 * and 10,000 backend entries (250 batch calls of 40) are the defaults, tune them per fleet.
 * Pending grace: 300 s for CCM to create a CLB for a new Service before it is reported. RAM target: v2.12.1 (seed 000 "v2.11.2 for route management in Flannel networks and
 * v2.12.1 for batch management of NLB").
 */
export const DEFAULT_AUDIT_SETTINGS: Readonly<AuditSettings> = Object.freeze({
  quota: Object.freeze({ warningRatio: 0.8, criticalRatio: 0.95 }),
  clusterModeBlowup: Object.freeze({ minFactor: 2, minExtraBackends: 10 }),
  vSwitchIps: Object.freeze({ warningFreeIps: 32, criticalFreeIps: 0 }),
  ccmScale: Object.freeze({ maxLoadBalancerServices: 200, maxBackends: 10_000 }),
  servicePending: Object.freeze({ graceSeconds: 300 }),
  ccm: Object.freeze({ ramTargetVersion: 'v2.12.1' }),
  owners: Object.freeze({ tagKey: DEFAULT_OWNER_TAG_KEY, clusters: Object.freeze({}) }),
  checks: Object.freeze({}),
}) as Readonly<AuditSettings>;
