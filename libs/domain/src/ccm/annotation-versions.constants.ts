/**
 * Minimum CCM version of each Service annotation, as the ACK docs publish it (CCM notes (docs/sources.md#ccm-notes)
 * section 3b: DOC "Add annotations to the YAML file of a Service to configure CLB instances",
 * https://www.alibabacloud.com/help/en/ack/ack-managed-and-ack-dedicated/user-guide/add-annotations-to-the-yaml-file-of-a-service-to-configure-clb-instances,
 * and DOC "Configure NLB using annotations"). Seeds 000/001 "What to do if a service annotation does not
 * take effect": "Make sure that your CCM version meets the version requirements of the annotation".
 *
 * Keys are LB annotation suffixes (after `service.beta.kubernetes.io/alibaba-cloud-loadbalancer-`, or the
 * legacy `alicloud-loadbalancer-`), except entries with `fullKey`.
 */

/** One row: an annotation and the first CCM version that supports it. */
export interface AnnotationMinimumVersion {
  /** Suffix after the LB annotation prefix (e.g. `backend-label`). */
  suffix: string;
  /** First CCM version supporting it. */
  minimumVersion: string;
  /** Where the row comes from. */
  source: string;
}

const CLB_DOC =
  'ACK doc "Add annotations to the YAML file of a Service to configure CLB instances" (CCM notes 3b (docs/sources.md#ccm-3))';
const NLB_DOC = 'ACK doc "Configure NLB using annotations" (CCM notes 3b (docs/sources.md#ccm-3))';

function rows(minimumVersion: string, source: string, suffixes: string[]): AnnotationMinimumVersion[] {
  return suffixes.map((suffix) => ({ suffix, minimumVersion, source }));
}

/** Minimum CCM version of each CLB annotation suffix (ACK doc column). */
export const CLB_ANNOTATION_MIN_VERSIONS: readonly AnnotationMinimumVersion[] = [
  ...rows('v1.9.3', CLB_DOC, [
    'address-type',
    'spec',
    'charge-type',
    'vswitch-id',
    'additional-resource-tags',
    'persistence-timeout',
    'sticky-session',
    'sticky-session-type',
    'cookie-timeout',
    'cookie',
    'protocol-port',
    'scheduler',
    'health-check-type',
    'health-check-connect-timeout',
    'healthy-threshold',
    'unhealthy-threshold',
    'health-check-interval',
    'health-check-flag',
    'health-check-uri',
    'health-check-httpcode',
    'health-check-domain',
    'health-check-timeout',
    'backend-label',
  ]),
  ...rows('v1.9.3.10-gfb99107-aliyun', CLB_DOC, ['master-zoneid', 'slave-zoneid', 'bandwidth']),
  // The annotation doc says v1.9.3.81-gca19cd4-aliyun for `id`; seeds 000/003 ("Why does reusing an existing
  // SLB instance fail?") say versions earlier than v1.9.3.105-gfd4e547-aliyun do not support reuse. The seed wins.
  ...rows('v1.9.3.105-gfd4e547-aliyun', 'ACK "Service FAQ" (docs/sources.md#ack-service-faq) "FAQ about reusing an existing SLB instance"', ['id']),
  ...rows('v1.9.3.81-gca19cd4-aliyun', CLB_DOC, ['force-override-listeners']),
  ...rows('v1.9.3.164-g2105d2e-aliyun', CLB_DOC, [
    'acl-status',
    'acl-id',
    'acl-type',
    'cert-id',
    'forward-port',
    'remove-unscheduled-backend',
  ]),
  ...rows('v1.9.3.220-g24b1885-aliyun', CLB_DOC, ['ip-version']),
  ...rows('v1.9.3.313-g748f81e-aliyun', CLB_DOC, [
    'delete-protection',
    'modification-protection',
    'name',
    'resource-group-id',
  ]),
  ...rows('v2.0.1', CLB_DOC, ['connection-drain', 'connection-drain-timeout']),
  ...rows('v2.0.1', 'CCM release notes v2.0.1 (CCM notes 3b (docs/sources.md#ccm-3))', ['vgroup-port', 'weight']),
  ...rows('v2.1.0', CLB_DOC, ['xforwardedfor-proto', 'idle-timeout', 'http2-enabled']),
  ...rows('v2.3.0', CLB_DOC, ['hostname', 'health-check-method', 'request-timeout', 'established-timeout']),
  ...rows('v2.4.0', CLB_DOC, ['instance-charge-type', 'tls-cipher-policy']),
  ...rows('v2.6.0', CLB_DOC, ['health-check-switch', 'proxy-protocol']),
  ...rows('v2.7.0', CLB_DOC, ['ip']),
  ...rows('v2.9.1', CLB_DOC, ['xforwardedfor-slbport', 'xforwardedfor-clientsrcport']),
  ...rows('v2.10.0', CLB_DOC, ['preserve-lb-on-delete']),
  ...rows('v2.11.1', CLB_DOC, ['ignore-weight-update']),
  ...rows('v2.13.0', CLB_DOC, ['domain-extensions']),
  ...rows('v2.14.0', 'CCM release notes v2.14.0 (CCM notes 3b (docs/sources.md#ccm-3))', ['default-weight']),
];

/**
 * Minimum CCM version of `service.beta.kubernetes.io/backend-type` (full key, not an LB suffix).
 * Source: ACK CLB annotation doc, v1.9.3.164-g2105d2e-aliyun.
 */
export const BACKEND_TYPE_MIN_VERSION: Readonly<AnnotationMinimumVersion> = {
  suffix: 'backend-type',
  minimumVersion: 'v1.9.3.164-g2105d2e-aliyun',
  source: CLB_DOC,
};

/** NLB Services need CCM v2.5.0 at least (and Kubernetes 1.24+). Source: ACK NLB annotation doc. */
export const NLB_MIN_VERSION = 'v2.5.0';

/** Minimum CCM version of NLB annotation suffixes newer than v2.5.0 (ACK NLB doc + release notes). */
export const NLB_ANNOTATION_MIN_VERSIONS: readonly AnnotationMinimumVersion[] = [
  ...rows('v2.6.0', NLB_DOC, ['security-group-ids']),
  ...rows('v2.8.0', NLB_DOC, ['server-group-type']),
  ...rows('v2.9.1', NLB_DOC, [
    'bandwidth-package-id',
    'ipv6-address-type',
    'ppv2-pvl-ep-id-enabled',
    'ppv2-pvl-eps-id-enabled',
    'ppv2-pvl-vpc-id-enabled',
    'vgroup-port',
    'weight',
    'backend-ip-version',
  ]),
  ...rows('v2.10.0', NLB_DOC, ['preserve-lb-on-delete', 'alpn', 'alpn-policy']),
  ...rows('v2.11.1', NLB_DOC, ['ignore-weight-update']),
  ...rows('v2.11.4', NLB_DOC, ['listener-port-range']),
  ...rows('v2.13.0', NLB_DOC, ['cross-zone-enabled', 'additional-cert-ids']),
  ...rows('v2.14.0', NLB_DOC, ['default-weight']),
];
