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
} as const;

/** Seed file names, as cited in `source` fields. */
export const SEED = {
  serviceFaq: 'seeds/000_863d74d63b550245.txt',
  serviceFaqOld: 'seeds/001_e8cb48602f27d26a.txt',
  troubleshooting: 'seeds/002_ea4450b263a08c22.txt',
  serviceFaqClb: 'seeds/003_1464f88da1c640b4.txt',
  lbConsiderations: 'seeds/004_651223fc904fc2fd.txt',
} as const;
