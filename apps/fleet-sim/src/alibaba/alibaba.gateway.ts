/**
 * Front door of the simulated Alibaba Cloud OpenAPI: one port for every product.
 *
 * Routing (`research/alibaba-cloud-api.md` 1.3, 1.4, 8):
 * - path `/`: RPC. Action from header `x-acs-action`, else `Action` in the query or form body;
 *   version from `x-acs-version`, else `Version`. Parameters: query merged with an urlencoded
 *   body (the body wins), un-flattened on access (`Tag.1.Key`, `Dimensions.1.Value`).
 * - any other path: CS ROA, by method and path (`cs.handler.ts`).
 * Then the signature is verified (`request-auth.service.ts`) and the caller's AccessKey picks the
 * fleet account whose data is served. Then the traffic policy counts the call, applies the QPS
 * limits and may inject a fault (`traffic/`). Success bodies are JSON with `RequestId` first (RPC)
 * and never a top-level `Code`; errors are JSON in the product's shape with the real HTTP status.
 */
import { policyAllows, type RamPolicyDocument } from '@app/collectors';
import { LB_KINDS } from '@app/domain';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { parseFlatParams } from '../http/http.util';
import { RpcParams } from '../http/params.util';
import type { SimResponse, TransportFault } from '../http/response-writer.service';
import type { SimContext } from '../sim-context';
import type { TrafficPolicy } from '../traffic/traffic-policy.service';
import { AcsError, renderAcsError, type AcsErrorStyle } from './acs-error.exception';
import type { AcsRequest, RpcProduct } from './acs-request';
import { CS_VERSION, matchCsRoute } from './cs.handler';
import { ECS_PRODUCT } from './ecs.handler';
import { kindProduct } from './kind-product.handler';
import { QUOTAS_PRODUCT } from './quotas.handler';
import { RAM_PRODUCT } from './ram.handler';
import type { RequestAuthService, SignedRequestParts } from './request-auth.service';
import { SLB_PRODUCT } from './slb.handler';
import { STS_PRODUCT } from './sts.handler';
import { VPC_PRODUCT } from './vpc.handler';

/** The products of the load-balancer kinds with a data path (`LoadBalancerKind.data`: NLB), in `LB_KINDS` order. */
const KIND_PRODUCTS: readonly RpcProduct[] = LB_KINDS.filter((k) => k.data).map(kindProduct);

/** The RPC products the simulator serves, by API version (each version belongs to one product). */
export const RPC_PRODUCTS: ReadonlyMap<string, RpcProduct> = new Map(
  [ECS_PRODUCT, SLB_PRODUCT, ...KIND_PRODUCTS, VPC_PRODUCT, RAM_PRODUCT, STS_PRODUCT, QUOTAS_PRODUCT].map((p) => [
    p.version,
    p,
  ]),
);

/** Lowercase header map with repeated headers joined by `,`. */
function flatHeaders(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers))
    if (v !== undefined) out[k] = Array.isArray(v) ? v.join(',') : v;
  return out;
}

const newRequestId = (): string => randomUUID().toUpperCase();

/** HTTP status of throttling answers: 400 (what SDK error reports show) or 429 (what some products document). */
export type ThrottlingStatus = 400 | 429;

/**
 * The body a gateway in front of the API sends with a 502 (fault `non-json`): HTML, which
 * openapi-core cannot parse as JSON.
 */
export const BAD_GATEWAY_HTML =
  '<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>Tengine</center>\r\n</body>\r\n</html>\r\n';

/** Serves the Alibaba Cloud OpenAPI part of the simulator. */
export class AlibabaGateway {
  /**
   * @param traffic counts calls, applies QPS limits and faults
   * @param throttlingStatus HTTP status of `Throttling.User` answers
   */
  constructor(
    private readonly ctx: SimContext,
    private readonly auth: RequestAuthService,
    private readonly traffic: TrafficPolicy,
    private readonly throttlingStatus: ThrottlingStatus = 400,
    private readonly ramPolicy?: RamPolicyDocument,
  ) {}

  /**
   * Enforce the simulated caller's RAM policy: 403 `Forbidden.RAM` naming `service:Action` (the real
   * RAM error says which action is missing: "You are not authorized to do this action ... Action: ...").
   * @param product the product name of the handler table (`Slb`, `Nlb`, `Ecs`, ..., `cs` for ROA)
   */
  private authorize(product: string, action: string): void {
    if (!this.ramPolicy || product.toLowerCase() === 'sts') return;
    const ramAction = `${product.toLowerCase()}:${action}`;
    if (!policyAllows(this.ramPolicy, ramAction))
      throw new AcsError(403, 'Forbidden.RAM', `You are not authorized to do this action. Resource: * Action: ${ramAction}`);
  }

  /**
   * Answer one request.
   * @param rawPath path as sent (percent-encoded); @param rawQuery query string without `?`
   */
  handle(req: IncomingMessage, rawPath: string, rawQuery: string, body: Buffer): SimResponse {
    const requestId = newRequestId();
    const headers = flatHeaders(req);
    const method = (req.method ?? 'GET').toUpperCase();
    const query = parseFlatParams(rawQuery);
    const form = (headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')
      ? parseFlatParams(body.toString('utf8'))
      : {};
    const signed: SignedRequestParts = { method, rawPath, query, form, headers, body };
    const isRpc = rawPath === '/' || rawPath === '';
    let style: AcsErrorStyle = isRpc ? 'rpc' : 'roa';
    let product: { product: string; hostId: string } = isRpc
      ? { product: 'pop', hostId: 'pop.aliyuncs.com' }
      : { product: 'CS', hostId: 'cs.aliyuncs.com' };
    try {
      if (isRpc) {
        const action = headers['x-acs-action'] ?? query['Action'] ?? form['Action'];
        const version = headers['x-acs-version'] ?? query['Version'] ?? form['Version'];
        if (!action) throw AcsError.missingParameter('Action');
        if (!version) throw AcsError.missingParameter('Version');
        const rpc = RPC_PRODUCTS.get(version);
        if (!rpc) throw new AcsError(400, 'InvalidVersion', 'Specified parameter Version is not valid.');
        product = rpc;
        const handler = rpc.actions[action];
        if (!handler)
          throw new AcsError(
            404,
            'InvalidAction.NotFound',
            'Specified api is not found, please check your url and method.',
          );
        if (method !== 'GET' && method !== 'POST')
          throw new AcsError(405, 'UnsupportedHTTPMethod', `HTTP method ${method} is not supported.`);
        const acsReq = this.authenticate(
          signed,
          requestId,
          method,
          action,
          version,
          { ...query, ...form },
          {},
        );
        this.authorize(rpc.product, action);
        const verdict = this.admit(acsReq);
        if (verdict.early) return verdict.early;
        const out = handler(acsReq, this.ctx);
        return {
          status: 200,
          body: { RequestId: requestId, ...out },
          headers: { 'x-acs-request-id': requestId },
          ...verdict.transport,
        };
      }
      style = 'roa';
      let segments: string[];
      try {
        segments = rawPath
          .split('/')
          .filter((s) => s !== '')
          .map((s) => decodeURIComponent(s));
      } catch {
        throw new AcsError(400, 'InvalidParameter', 'The request path is not valid.');
      }
      const match = matchCsRoute(method, segments);
      if (match === undefined)
        throw new AcsError(
          404,
          'InvalidAction.NotFound',
          'Specified api is not found, please check your url and method.',
        );
      if (match === 'methodMismatch')
        throw new AcsError(
          405,
          'UnsupportedHTTPMethod',
          `HTTP method ${method} is not supported for this path.`,
        );
      const acsReq = this.authenticate(
        signed,
        requestId,
        method,
        match.route.action,
        headers['x-acs-version'] ?? CS_VERSION,
        query,
        match.pathParams,
      );
      this.authorize('cs', match.route.action);
      const verdict = this.admit(acsReq);
      if (verdict.early) return verdict.early;
      return {
        status: 200,
        body: match.route.handler(acsReq, this.ctx) ?? {},
        headers: { 'x-acs-request-id': requestId },
        ...verdict.transport,
      };
    } catch (e) {
      if (!(e instanceof AcsError)) throw e;
      return {
        status: e.status,
        body: renderAcsError(e, style, requestId, product.hostId, product.product),
        headers: { 'x-acs-request-id': requestId, ...e.headers },
      };
    }
  }

  /**
   * Apply the traffic policy to an authenticated call.
   * @returns `early`: answer this instead of running the handler (timeout, 502); `transport`: to
   *   spread into the handler's answer (a fault applied while sending it)
   * @throws AcsError `Throttling.User` (over a QPS limit or the `throttle` fault) or 503
   *   `ServiceUnavailable` (the `server-error` fault)
   */
  private admit(acsReq: AcsRequest): { early?: SimResponse; transport?: { transport: TransportFault } } {
    const v = this.traffic.admitOpenApi(acsReq.account.accountId, acsReq.action);
    if (v.kind === 'pass') return {};
    if (v.kind === 'throttle')
      throw new AcsError(
        this.throttlingStatus,
        'Throttling.User',
        'Request was denied due to user flow control.',
        {
          'x-acs-retry-after': String(v.retryAfterMs),
        },
      );
    switch (v.fault) {
      case 'server-error':
        throw new AcsError(
          503,
          'ServiceUnavailable',
          'The request has failed due to a temporary failure of the server.',
        );
      case 'non-json':
        return {
          early: {
            status: 502,
            body: BAD_GATEWAY_HTML,
            headers: { 'content-type': 'text/html', 'x-acs-request-id': acsReq.requestId },
          },
        };
      case 'timeout':
        return { early: { status: 0, body: '', transport: { kind: 'timeout' } } };
      case 'slow':
        return { transport: { transport: { kind: 'slow', delayMs: v.delayMs } } };
      case 'truncate':
        return { transport: { transport: { kind: 'truncate' } } };
      case 'expire-continue':
        return {};
    }
  }

  private authenticate(
    signed: SignedRequestParts,
    requestId: string,
    method: string,
    action: string,
    version: string,
    params: Record<string, string>,
    pathParams: Record<string, string>,
  ): AcsRequest {
    const caller = this.auth.verify(signed);
    const account = this.ctx.fleet.account(caller.credential.accountId);
    if (!account)
      throw new AcsError(
        403,
        'Forbidden.AccountNotFound',
        'The account of this AccessKey is not in the simulated fleet.',
      );
    return {
      requestId,
      method,
      action,
      version,
      params: new RpcParams(
        params,
        (name, reason) => AcsError.invalidParameter(name, reason),
        (name) => AcsError.missingParameter(name),
      ),
      pathParams,
      caller,
      account,
    };
  }
}
