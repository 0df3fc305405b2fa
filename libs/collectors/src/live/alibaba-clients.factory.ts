/**
 * Builds the Alibaba Cloud API clients the live collectors use, for one account's credentials.
 *
 * Products and how they are reached (research/alibaba-cloud-api.md sections 1.1, 1.6):
 *  - ECS 2014-05-26, CS 2015-12-15, VPC 2016-04-28, RAM 2015-05-01: the official product SDKs
 *    (`@alicloud/ecs20140526`, `cs20151215`, `vpc20160428`, `ram20150501`), all on openapi-core;
 *  - SLB 2014-05-15, NLB 2022-04-30 and Quota Center 2020-05-10, whose generated SDKs are not on the
 *    registry (`@alicloud/slb20140515`, `@alicloud/nlb20220430`: research/nlb.md section 7):
 *    openapi-core's generic client and `callApi` with the API's action, version and RPC Params.
 *    NLB's endpoint is regional, `nlb.<regionId>.aliyuncs.com` (the SDK's endpoint rule `regional`).
 *
 * Endpoint override: `alibabaCloud.endpoint` (`host[:port]`) replaces every product's endpoint
 * (an explicit `config.endpoint` always wins over the SDKs' endpoint maps) and
 * `alibabaCloud.protocol` overrides the `HTTPS` of every generated Params (openapi-core uses
 * `config.protocol || params.protocol`). That is how the collectors read the simulator.
 *
 * Credentials are per account (`AccountCredentials`): a static AccessKey (optionally with an STS
 * token, from AssumeRole of the account's `auditRoleArn`: account-credentials.service.ts) or the
 * `@alicloud/credentials` default chain (env, profile, ECS RAM role). They are handed to the
 * SDK config only; nothing here logs or stores them.
 */
import type Cs from '@alicloud/cs20151215';
import type Ecs from '@alicloud/ecs20140526';
import type OpenApi from '@alicloud/openapi-core';
import type { $OpenApiUtil } from '@alicloud/openapi-core';
import type Ram from '@alicloud/ram20150501';
import type Vpc from '@alicloud/vpc20160428';
import type { KindProduct } from '@app/domain';
import type { ScanConfig } from './scan-config';
import { credentialsSdk, csSdk, dara, ecsSdk, openApiCore, ramSdk, vpcSdk } from './sdk-modules';
import { fleetAuditErrorKind } from '@app/errors';

/** Where one account's API credentials come from. */
export type AccountCredentials =
  | {
      kind: 'static';
      accessKeyId: string;
      accessKeySecret: string;
      /** STS token when the keys are temporary (`STS.` AccessKey). */
      securityToken?: string;
      /** When temporary keys expire, epoch milliseconds (STS `Expiration`). */
      expiresAt?: number;
    }
  | {
      /** `@alicloud/credentials` default chain (`new Credential()`): env, profile, ECS RAM role. */
      kind: 'default-chain';
    };

/** Problem building credentials from the config (e.g. a named env variable is unset). */
export class CredentialsConfigError extends fleetAuditErrorKind('CredentialsConfigError', 'CREDENTIALS_CONFIG_INVALID', true) {
  // permanent: the environment or the scan config must change first.
}

/**
 * The base credentials of a scan: the literal AccessKey of the config (simulator test keys), else
 * the env variables the config names, else the default chain.
 * @param config the scan config
 * @param env the environment to read named variables from (libs/config `processEnvironment()`:
 *   the names come from the scan config, so they cannot be declared there)
 * @throws CredentialsConfigError when a named env variable is unset or empty
 */
export function resolveBaseCredentials(
  config: Pick<ScanConfig, 'credentials'>,
  env: Record<string, string | undefined>,
): AccountCredentials {
  const c = config.credentials;
  if (c?.accessKeyId !== undefined && c.accessKeySecret !== undefined)
    return { kind: 'static', accessKeyId: c.accessKeyId, accessKeySecret: c.accessKeySecret };
  if (c?.accessKeyIdEnv !== undefined || c?.accessKeySecretEnv !== undefined) {
    const idVar = c.accessKeyIdEnv ?? 'ALIBABA_CLOUD_ACCESS_KEY_ID';
    const secretVar = c.accessKeySecretEnv ?? 'ALIBABA_CLOUD_ACCESS_KEY_SECRET';
    const id = env[idVar];
    const secret = env[secretVar];
    if (!id)
      throw new CredentialsConfigError(
        `credentials.accessKeyIdEnv: the environment variable ${idVar} is not set`,
      );
    if (!secret)
      throw new CredentialsConfigError(
        `credentials.accessKeySecretEnv: the environment variable ${secretVar} is not set`,
      );
    return { kind: 'static', accessKeyId: id, accessKeySecret: secret };
  }
  return { kind: 'default-chain' };
}

/** Values that must never appear in a message (redacted by the error mappers). */
export function credentialSecrets(c: AccountCredentials): string[] {
  return c.kind === 'static'
    ? [c.accessKeyId, c.accessKeySecret, ...(c.securityToken ? [c.securityToken] : [])]
    : [];
}

/** Transport settings of the clients (the scan config's `alibabaCloud` block). */
export type AlibabaEndpointSettings = ScanConfig['alibabaCloud'];

/** SLB 2014-05-15 regions served by the central endpoint (the SLB SDK's `_endpointMap`). */
const SLB_CENTRAL_REGIONS = new Set([
  'cn-qingdao',
  'cn-beijing',
  'cn-hangzhou',
  'cn-shanghai',
  'cn-shenzhen',
  'cn-hongkong',
  'ap-southeast-1',
  'us-west-1',
  'us-east-1',
]);

/** Clients for one region of one account. */
export interface RegionClients {
  regionId: string;
  ecs: Ecs;
  cs: Cs;
  vpc: Vpc;
  /** Generic openapi-core client for SLB 2014-05-15 (`callSlb`). */
  slb: OpenApi;
  /**
   * The generic openapi-core client of a load-balancer kind's product (`callKindProduct`; NLB 2022-04-30 at
   * `nlb.<regionId>.aliyuncs.com`): the product's regional endpoint, or the config's override; built once per product.
   */
  product(product: KindProduct): OpenApi;
  /** The host (`host[:port]`) the client of `product` calls: the config's override, else the product's regional endpoint. */
  endpointOf(product: KindProduct): string;
}

/** Clients for one account (central products) and a per-region builder. */
export interface AccountClients {
  ram: Ram;
  /** Generic openapi-core client for Quota Center 2020-05-10 (`callQuotas`). */
  quotas: OpenApi;
  /** Regional clients, built once per region and cached. */
  region(regionId: string): RegionClients;
  /** Values to redact from messages. */
  secrets: string[];
}

function baseConfig(
  settings: AlibabaEndpointSettings,
  credentials: AccountCredentials,
  regionId: string,
  endpoint: string | undefined,
): $OpenApiUtil.Config {
  const common = {
    regionId,
    protocol: settings.protocol,
    readTimeout: settings.readTimeoutMs,
    connectTimeout: settings.connectTimeoutMs,
    ...(endpoint ? { endpoint } : {}),
  };
  const { $OpenApiUtil } = openApiCore();
  if (credentials.kind === 'static')
    return new $OpenApiUtil.Config({
      ...common,
      accessKeyId: credentials.accessKeyId,
      accessKeySecret: credentials.accessKeySecret,
      ...(credentials.securityToken ? { securityToken: credentials.securityToken } : {}),
    });
  return new $OpenApiUtil.Config({ ...common, credential: new (credentialsSdk().default)() });
}

/**
 * SDK config of the STS 2015-04-01 client that assumes the audit roles: the base credentials,
 * the config's endpoint override (else the central `sts.aliyuncs.com`) and protocol.
 */
export function stsConfig(settings: AlibabaEndpointSettings, base: AccountCredentials): $OpenApiUtil.Config {
  return baseConfig(settings, base, 'cn-hangzhou', settings.endpoint ?? 'sts.aliyuncs.com');
}

/**
 * Build the clients of one account.
 * @param settings endpoint/protocol override and timeouts (ms)
 * @param credentials this account's credentials
 */
export function createAccountClients(
  settings: AlibabaEndpointSettings,
  credentials: AccountCredentials,
): AccountClients {
  const override = settings.endpoint;
  const cache = new Map<string, RegionClients>();
  // RAM and Quota Center are central products; the region only matters for the signature scope.
  const centralRegion = 'cn-hangzhou';
  const OpenApi = openApiCore().default;
  return {
    ram: new (ramSdk().default)(baseConfig(settings, credentials, centralRegion, override)),
    quotas: new OpenApi(baseConfig(settings, credentials, centralRegion, override ?? 'quotas.aliyuncs.com')),
    secrets: credentialSecrets(credentials),
    region(regionId: string): RegionClients {
      const hit = cache.get(regionId);
      if (hit) return hit;
      const slbEndpoint =
        override ?? (SLB_CENTRAL_REGIONS.has(regionId) ? 'slb.aliyuncs.com' : `slb.${regionId}.aliyuncs.com`);
      const products = new Map<KindProduct, OpenApi>();
      const made: RegionClients = {
        regionId,
        ecs: new (ecsSdk().default)(baseConfig(settings, credentials, regionId, override)),
        cs: new (csSdk().default)(baseConfig(settings, credentials, regionId, override)),
        vpc: new (vpcSdk().default)(baseConfig(settings, credentials, regionId, override)),
        slb: new OpenApi(baseConfig(settings, credentials, regionId, slbEndpoint)),
        endpointOf: (product: KindProduct): string => override ?? product.endpoint(regionId),
        product(product: KindProduct): OpenApi {
          let client = products.get(product);
          if (!client) {
            client = new OpenApi(baseConfig(settings, credentials, regionId, made.endpointOf(product)));
            products.set(product, client);
          }
          return client;
        },
      };
      cache.set(regionId, made);
      return made;
    },
  };
}

/** Plain JSON value of a generic-client response body. */
export type JsonObject = Record<string, unknown>;

function rpcParams(action: string, version: string): $OpenApiUtil.Params {
  // The Params every generated SLB 2014-05-15 / Quota Center 2020-05-10 read API uses (research 1.6), and the
  // NLB 2022-04-30 List* / Get* APIs too (TS-SDK nlb-20220430 client.ts: RPC, POST /, AK, json body; research/nlb.md 7).
  return new (openApiCore().$OpenApiUtil.Params)({
    action,
    version,
    protocol: 'HTTPS',
    pathname: '/',
    method: 'POST',
    authType: 'AK',
    style: 'RPC',
    reqBodyType: 'formData',
    bodyType: 'json',
  });
}

function asObject(body: unknown, action: string): JsonObject {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new TypeError(`${action}: the response body is not a JSON object`);
  return body as JsonObject;
}

/**
 * Call an SLB 2014-05-15 RPC API through the generic client; parameters go in the query
 * (flattened by `OpenApiUtil.query`: `Tag.1.Key=...`).
 * @returns the response body as on the wire (PascalCase)
 * @throws openapi-core's ClientError / ServerError / ThrottlingError
 */
export function callSlb(client: OpenApi, action: string, query: Record<string, unknown>): Promise<JsonObject> {
  return callRpcWithQuery(client, '2014-05-15', action, query);
}

/**
 * Call an RPC API of a load-balancer kind's product (`KindProduct`, e.g. NLB 2022-04-30) through the generic client;
 * parameters go in the query, arrays flattened by `OpenApiUtil.query` (`LoadBalancerIds.1=...`), as the generated
 * product SDK sends them (research/nlb.md section 7).
 * @returns the response body as on the wire (PascalCase)
 * @throws openapi-core's ClientError / ServerError / ThrottlingError
 */
export function callKindProduct(
  client: OpenApi,
  product: KindProduct,
  action: string,
  query: Record<string, unknown>,
): Promise<JsonObject> {
  return callRpcWithQuery(client, product.version, action, query);
}

/**
 * Call an RPC API of `version` through the generic client with its parameters in the query, flattened by
 * `OpenApiUtil.query` (`Tag.1.Key=...`, `LoadBalancerIds.1=...`): how SLB and NLB take them.
 * @returns the response body as on the wire (PascalCase)
 * @throws openapi-core's ClientError / ServerError / ThrottlingError
 */
async function callRpcWithQuery(
  client: OpenApi,
  version: string,
  action: string,
  query: Record<string, unknown>,
): Promise<JsonObject> {
  const { $OpenApiUtil, OpenApiUtil } = openApiCore();
  const req = new $OpenApiUtil.OpenApiRequest({ query: OpenApiUtil.query(query) });
  const resp = await client.callApi(rpcParams(action, version), req, new (dara().RuntimeOptions)({}));
  return asObject(resp.body, action);
}

/**
 * Call a Quota Center 2020-05-10 RPC API through the generic client; parameters go in the form
 * body (the generated SDK does the same; `Dimensions.1.Key=...` after `toForm`).
 * @returns the response body as on the wire (PascalCase)
 */
export async function callQuotas(
  client: OpenApi,
  action: string,
  body: Record<string, unknown>,
): Promise<JsonObject> {
  const req = new (openApiCore().$OpenApiUtil.OpenApiRequest)({ body });
  const resp = await client.callApi(rpcParams(action, '2020-05-10'), req, new (dara().RuntimeOptions)({}));
  return asObject(resp.body, action);
}
