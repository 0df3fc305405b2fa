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
export const alibabaEndpointSchema = z.object({
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
  .object({
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

/** One account to audit. */
export const scanAccountSchema = z.object({
  accountId: z.union([z.string(), z.number()]).transform(String).pipe(z.string().regex(/^\d+$/, 'a numeric account id')),
  name: z.string().optional(),
  regions: z.array(z.string().regex(/^[a-z]{2}(-[a-z0-9]+)+$/, 'a region id such as cn-hangzhou')).min(1),
  /** RAM role to assume for this account (`acs:ram::<uid>:role/<name>`); unset = use base credentials. */
  auditRoleArn: z.string().regex(/^acs:ram::\d+:role\/.+$/, 'a RAM role ARN acs:ram::<uid>:role/<name>').optional(),
});

/** The whole scan config. */
export const scanConfigSchema = z.object({
  name: z.string().min(1).default('fleet'),
  alibabaCloud: alibabaEndpointSchema.default({ protocol: 'https', readTimeoutMs: 10_000, connectTimeoutMs: 5_000 }),
  credentials: credentialsSchema.optional(),
  accounts: z.array(scanAccountSchema).min(1),
});

/** A validated scan config. */
export type ScanConfig = z.infer<typeof scanConfigSchema>;
/** One account of a scan config. */
export type ScanAccount = z.infer<typeof scanAccountSchema>;
