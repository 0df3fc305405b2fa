/**
 * Public URLs of the ACK documents the seeds were taken from (`../shared/seeds/README.md`), quoted in
 * remediations.
 */
export const DOC_URL = {
  /** Seeds 000/001/003: "Service FAQ". */
  serviceFaq: 'https://www.alibabacloud.com/help/en/ack/ack-managed-and-ack-dedicated/user-guide/service-faq',
  /** Seed 002: "Troubleshoot LoadBalancer services" (Service error events and solutions). */
  troubleshooting:
    'https://www.alibabacloud.com/help/en/ack/ack-managed-and-ack-dedicated/user-guide/service-troubleshooting-2',
  /** Seed 004: "Notes on service load balancing configuration and CCM resource update policies". */
  lbConsiderations:
    'https://www.alibabacloud.com/help/en/ack/ack-managed-and-ack-dedicated/user-guide/considerations-for-configuring-a-loadbalancer-type-service-1',
  /** ACK "Add annotations to the YAML file of a Service to configure CLB instances" (annotation -> CCM version). */
  clbAnnotations:
    'https://www.alibabacloud.com/help/en/ack/ack-managed-and-ack-dedicated/user-guide/add-annotations-to-the-yaml-file-of-a-service-to-configure-clb-instances',
  /** ACK "Configure an NLB instance by using annotations" (NLB Services, zone-maps, CCM versions). */
  nlbAnnotations:
    'https://www.alibabacloud.com/help/en/ack/ack-managed-and-ack-dedicated/user-guide/configure-nlb-instances-by-using-annotations',
  /** NLB "NLB quotas" (Quota Center quota names and defaults). */
  nlbQuotas: 'https://www.alibabacloud.com/help/en/slb/network-load-balancer/user-guide/nlb-quotas',
} as const;

/**
 * Remediation pointer of the quota checks (the series stored per scan, `QUOTA_USAGE_CHECK_IDS`) to the
 * capacity-planning commands of `fleet-audit forecast` (apps/cli forecast.command.ts, libs/forecast).
 */
export const FORECAST_HINT =
  'To plan ahead: `fleet-audit forecast trends` gives when this quota runs out (p10/p50/p90 from the stored ' +
  'scans), `fleet-audit forecast headroom` how many nodes or Services still fit, and `fleet-audit forecast whatif ' +
  '--scenario FILE` what a planned change does to it.';

/**
 * The ACK documents as cited in `source` fields: title and edition, with the anchor of docs/sources.md that
 * gives the public URL (the project's seed files are copies of these pages; a finding never cites a file
 * outside the repository).
 */
export const SEED = {
  serviceFaq: 'ACK "Service FAQ" (docs/sources.md#ack-service-faq)',
  serviceFaqOld: 'ACK "FAQ about Services", older edition (docs/sources.md#ack-service-faq)',
  troubleshooting: 'ACK "Troubleshoot LoadBalancer services" (docs/sources.md#ack-troubleshooting)',
  serviceFaqClb: 'ACK "Service FAQ", CLB edition (docs/sources.md#ack-service-faq)',
  lbConsiderations: 'ACK "Notes on service load balancing configuration and CCM resource update policies" (docs/sources.md#ack-lb-considerations)',
  nlbAnnotations: 'ACK "Configure an NLB instance by using annotations" (docs/sources.md#ack-nlb-annotations)',
  nlbQuotas: 'NLB "NLB quotas" (docs/sources.md#nlb-quotas)',
} as const;
