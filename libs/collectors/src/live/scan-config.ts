/**
 * The scan config file (`fleet-audit scan --config FILE`): which accounts and regions to read, and
 * how to reach the Alibaba Cloud APIs. YAML or JSON. Validated at the boundary with zod; an error
 * names the file, the path and what was expected.
 *
 * Credentials: by default the base credentials come from `@alicloud/credentials`' default chain
 * (env `ALIBABA_CLOUD_ACCESS_KEY_ID`/`_SECRET`, profile, ECS RAM role). `credentials` may name
 * env variables to read instead; a literal AccessKey in the file is accepted only for the
 * simulator's well-known test keys' use (the simulator writes them) and is never logged or stored.
 */
import { z } from 'zod';

/** How to reach the Alibaba Cloud OpenAPI. */
export const alibabaEndpointSchema = z.strictObject({
  /** `host[:port]` for every product (simulator: `127.0.0.1:P`); unset = the real regional endpoints. */
  endpoint: z.string().min(1).optional(),
  /** `https` (default) or `http` (simulator). */
  protocol: z.enum(['http', 'https']).default('https'),
  /** Read timeout per call, milliseconds. */
  readTimeoutMs: z.number().int().positive().default(10_000),
  /** Connect timeout per call, milliseconds. */
  connectTimeoutMs: z.number().int().positive().default(5_000),
});

/** Where the base AccessKey comes from. */
export const credentialsSchema = z
  .strictObject({
    /** Literal AccessKey id (simulator test keys). */
    accessKeyId: z.string().min(1).optional(),
    /** Literal AccessKey secret (simulator test keys). */
    accessKeySecret: z.string().min(1).optional(),
    /** Env variable holding the AccessKey id. */
    accessKeyIdEnv: z.string().min(1).optional(),
    /** Env variable holding the AccessKey secret. */
    accessKeySecretEnv: z.string().min(1).optional(),
  })
  .refine((c) => (c.accessKeyId === undefined) === (c.accessKeySecret === undefined), {
    message: 'accessKeyId and accessKeySecret go together',
  });

/**
 * Which API server endpoint of an ACK cluster the crawl dials (cluster-endpoint.ts):
 * - `public`: the Internet endpoint (the EIP bound to the API server CLB);
 * - `private`: the intranet endpoint (the API server CLB's address in the cluster's VPC);
 * - `auto`: the intranet endpoint when DescribeClusterDetail's `master_url` names no public one
 *   (`api_server_endpoint` empty), else the public one.
 * Passed to DescribeClusterUserKubeconfig as `PrivateIpAddress` (research/reach.md 1.1, 1.3).
 */
export const kubernetesEndpointModeSchema = z.enum(['public', 'private', 'auto']);

/** A region id such as `cn-hangzhou`. */
const regionIdSchema = z.string().regex(/^[a-z]{2}(-[a-z0-9]+)+$/, 'a region id such as cn-hangzhou');

/** One account to audit. */
export const scanAccountSchema = z.strictObject({
  accountId: z
    .union([z.string(), z.number()])
    .transform(String)
    .pipe(z.string().regex(/^\d+$/, 'a numeric account id')),
  name: z.string().optional(),
  regions: z.array(regionIdSchema).min(1),
  /** RAM role to assume for this account (`acs:ram::<uid>:role/<name>`); unset = use base credentials. */
  auditRoleArn: z
    .string()
    .regex(/^acs:ram::\d+:role\/.+$/, 'a RAM role ARN acs:ram::<uid>:role/<name>')
    .optional(),
  /** Endpoint of this account's clusters; unset = `clusters.kubernetesEndpoint`. */
  kubernetesEndpoint: kubernetesEndpointModeSchema.optional(),
  /** Endpoint of this account's clusters in one region (a region of `regions`), by region id; wins over `kubernetesEndpoint`. */
  kubernetesEndpointByRegion: z.record(regionIdSchema, kubernetesEndpointModeSchema).optional(),
}).superRefine((a, ctx) => {
  for (const region of Object.keys(a.kubernetesEndpointByRegion ?? {}))
    if (!a.regions.includes(region))
      ctx.addIssue({
        code: 'custom',
        path: ['kubernetesEndpointByRegion', region],
        message: `region ${region} is not in this account's regions (${a.regions.join(', ')})`,
      });
});

/**
 * One entry of `clusters.include` / `clusters.exclude` (cluster-selection.ts): every field given must
 * match. Values match exactly, or by prefix when they end with `*`.
 */
export const clusterMatcherSchema = z
  .strictObject({
    /** The account id (exact). */
    accountId: z
      .union([z.string(), z.number()])
      .transform(String)
      .pipe(z.string().regex(/^\d+$/, 'a numeric account id'))
      .optional(),
    /** Region id, e.g. `cn-hangzhou` or `cn-*`. */
    region: z.string().min(1).optional(),
    /** Cluster id (`c` + 32 hex). */
    id: z.string().min(1).optional(),
    /** Cluster name, e.g. `prod-*`. */
    name: z.string().min(1).optional(),
    /** ACK cluster tag: `key` (any value) or `key=value`. */
    tag: z.string().min(1).regex(/^[^=]+(=.*)?$/, 'a tag as key or key=value').optional(),
  })
  .refine((m) => Object.values(m).some((v) => v !== undefined), {
    message: 'give at least one of accountId, region, id, name, tag',
  });

/**
 * Which clusters a scan reads and how it reaches their Kubernetes API. Precedence of the endpoint:
 * `kubernetesEndpointByCluster` (cluster id or name), then the account's `kubernetesEndpointByRegion`,
 * the account's `kubernetesEndpoint`, then `kubernetesEndpoint` here (default `auto`).
 */
export const clusterSettingsSchema = z.strictObject({
  /** Endpoint of every cluster without a more specific setting. */
  kubernetesEndpoint: kubernetesEndpointModeSchema.default('auto'),
  /** Endpoint of single clusters, by cluster id (`c` + 32 hex) or cluster name (every cluster of that name). */
  kubernetesEndpointByCluster: z.record(z.string().min(1), kubernetesEndpointModeSchema).default({}),
  /** Read only the listed clusters matching one of these (unset: every listed cluster). */
  include: z.array(clusterMatcherSchema).min(1).optional(),
  /**
   * Leave out the listed clusters matching one of these (wins over `include`). An excluded cluster stays in
   * the fleet with its list item (a CLB tagged with it is not taken for an orphan) and `absent` datasets
   * naming the entry: its checks are skipped, never passed.
   */
  exclude: z.array(clusterMatcherSchema).default([]),
});

/** Page sizes the live collectors ask for, items per page (each within the API's documented maximum). */
export const scanPageSizesSchema = z.strictObject({
  /** ECS DescribeInstances MaxResults: 10-100 (values outside are clamped by the API). */
  ecs: z.number().int().min(10).max(100).default(100),
  /** SLB DescribeLoadBalancers PageSize: 1-100. */
  slb: z.number().int().min(1).max(100).default(100),
  /** NLB ListLoadBalancers / ListListeners / ListServerGroups / ListServerGroupServers MaxResults: 1-100 (research/nlb.md 7). */
  nlb: z.number().int().min(1).max(100).default(100),
  /** VPC DescribeVSwitches PageSize: 1-50. */
  vpc: z.number().int().min(1).max(50).default(50),
  /** Quota Center ListProductQuotas MaxResults: 1-100. */
  quotas: z.number().int().min(1).max(100).default(100),
  /** CS DescribeClustersV1 page_size: 1-100. */
  cs: z.number().int().min(1).max(100).default(100),
  /** RAM ListRoles MaxItems: 1-1000. */
  ram: z.number().int().min(1).max(1000).default(100),
  /** Kubernetes list `limit`: 1-5000 (kubectl's default chunk size is 500). */
  kubernetes: z.number().int().min(1).max(5000).default(500),
});

/** How the live collectors pace and retry their calls. */
export const collectorSettingsSchema = z.strictObject({
  /**
   * OpenAPI calls per second per account, over every API without its own `qpsPerApi` budget
   * (api-rate-limiter.util.ts explains the budget model). 20 keeps well under the per-API limits
   * Alibaba Cloud applies per account and leaves room for the account's own controllers (CCM).
   */
  qpsPerAccount: z.number().positive().default(20),
  /** APIs paced by their own budget per account instead, calls per second by action name. */
  qpsPerApi: z
    .record(z.string().regex(/^[A-Z][A-Za-z0-9]+$/, 'an API action name'), z.number().positive())
    .default({}),
  /** OpenAPI calls in flight per account, count. */
  maxConcurrentPerAccount: z.number().int().positive().default(16),
  /** Kubernetes API calls in flight per cluster, count. */
  maxConcurrentPerCluster: z.number().int().positive().default(4),
  /**
   * Kubernetes API calls in flight per scanning process over all clusters, count. Kubernetes
   * reads are not paced by the OpenAPI budget, but parsing their lists is the heaviest CPU work of
   * a crawl: unbounded, hundreds of clusters read at once stall the event loop and with it the
   * even pacing of the OpenAPI calls. Spread over the crawl they cost nothing in wall time.
   */
  maxConcurrentKubernetes: z.number().int().positive().default(8),
  /** Restarts of a Kubernetes list whose `continue` token expired (410 Expired), count. */
  maxListRestarts: z.number().int().min(0).max(10).default(3),
  /**
   * Attempts per call including the first, count. Retried: `Throttling*`, HTTP 5xx, timeouts,
   * connection resets, truncated and non-JSON bodies (collect-error.util.ts `retryable`).
   */
  maxAttempts: z.number().int().min(1).max(10).default(6),
  /** Base delay of the exponential backoff with full jitter, milliseconds. */
  retryBaseDelayMs: z.number().int().min(0).default(200),
  /** Cap of one backoff wait, milliseconds. */
  retryMaxDelayMs: z.number().int().min(0).default(20_000),
  /** Kubernetes API request timeout, milliseconds. */
  kubernetesTimeoutMs: z.number().int().positive().default(30_000),
  /**
   * Read each node's `net.ipv4.ip_local_port_range` through ECS Cloud Assistant (RunCommand of
   * `sysctl -n net.ipv4.ip_local_port_range` on every node; needs `ecs:RunCommand` +
   * `ecs:DescribeInvocationResults`, which let the role run any command on the nodes). Opt-in (default
   * false, least privilege): without it the `sysctls` dataset is `absent` and the
   * NodePort-overlap checks are skipped with that reason.
   */
  nodeSysctls: z.boolean().default(false),
  /** Page sizes per API. */
  pageSizes: scanPageSizesSchema.default({
    ecs: 100,
    slb: 100,
    nlb: 100,
    vpc: 50,
    quotas: 100,
    cs: 100,
    ram: 100,
    kubernetes: 500,
  }),
});

/**
 * The whole scan config. Every object is strict: an unknown key (a typo such as `collecter:`, which
 * would otherwise silently fall back to the default API budget) is refused with the file, the JSON
 * path and the nearest valid key (scan-config.loader.ts). JSON Schema: docs/schemas/scan-config.schema.json.
 */
export const scanConfigSchema = z.strictObject({
  name: z.string().min(1).default('fleet'),
  alibabaCloud: alibabaEndpointSchema.default({
    protocol: 'https',
    readTimeoutMs: 10_000,
    connectTimeoutMs: 5_000,
  }),
  credentials: credentialsSchema.optional(),
  accounts: z.array(scanAccountSchema).min(1),
  /** Which clusters are read and through which API server endpoint (all optional). */
  clusters: clusterSettingsSchema.default({ kubernetesEndpoint: 'auto', kubernetesEndpointByCluster: {}, exclude: [] }),
  /** Pacing, retries and page sizes of the live collectors (all optional). */
  collector: collectorSettingsSchema.default({
    qpsPerAccount: 20,
    qpsPerApi: {},
    maxConcurrentPerAccount: 16,
    maxConcurrentPerCluster: 4,
    maxConcurrentKubernetes: 8,
    maxListRestarts: 3,
    maxAttempts: 6,
    retryBaseDelayMs: 200,
    retryMaxDelayMs: 20_000,
    kubernetesTimeoutMs: 30_000,
    nodeSysctls: false,
    pageSizes: { ecs: 100, slb: 100, nlb: 100, vpc: 50, quotas: 100, cs: 100, ram: 100, kubernetes: 500 },
  }),
});

/** A validated scan config. */
export type ScanConfig = z.infer<typeof scanConfigSchema>;
/** Pacing and page sizes of the live collectors. */
export type CollectorSettings = z.infer<typeof collectorSettingsSchema>;
/** `public`, `private` or `auto`. */
export type KubernetesEndpointMode = z.infer<typeof kubernetesEndpointModeSchema>;
/** One entry of `clusters.include` / `clusters.exclude`. */
export type ClusterMatcher = z.infer<typeof clusterMatcherSchema>;
/** The `clusters` block of a scan config. */
export type ClusterSettings = z.infer<typeof clusterSettingsSchema>;
/** One account of a scan config. */
export type ScanAccount = z.infer<typeof scanAccountSchema>;
