/**
 * Front door of the simulated Alibaba Cloud OpenAPI: one port for every product.
 *
 * Routing (`research/alibaba-cloud-api.md` 1.3, 1.4, 8):
 * - path `/`: RPC. Action from header `x-acs-action`, else `Action` in the query or form body;
 *   version from `x-acs-version`, else `Version`. Parameters: query merged with an urlencoded
 *   body (the body wins), un-flattened on access (`Tag.1.Key`, `Dimensions.1.Value`).
 * - any other path: CS ROA, by method and path (`cs.handler.ts`).
 * Then the signature is verified (`request-auth.service.ts`) and the caller's AccessKey picks the
 * fleet account whose data is served. Success bodies are JSON with `RequestId` first (RPC) and
 * never a top-level `Code`; errors are JSON in the product's shape with the real HTTP status.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parseFlatParams, sendJson } from '../http/http.util';
import { RpcParams } from '../http/params.util';
import type { SimContext } from '../sim-context';
import { AcsError, renderAcsError, type AcsErrorStyle } from './acs-error.exception';
import type { AcsRequest, RpcProduct } from './acs-request';
import { CS_VERSION, matchCsRoute } from './cs.handler';
import { ECS_PRODUCT } from './ecs.handler';
import { QUOTAS_PRODUCT } from './quotas.handler';
import { RAM_PRODUCT } from './ram.handler';
import type { RequestAuthService, SignedRequestParts } from './request-auth.service';
import { SLB_PRODUCT } from './slb.handler';
import { STS_PRODUCT } from './sts.handler';
import { VPC_PRODUCT } from './vpc.handler';

/** The RPC products the simulator serves, by API version (each version belongs to one product). */
export const RPC_PRODUCTS: ReadonlyMap<string, RpcProduct> = new Map(
  [ECS_PRODUCT, SLB_PRODUCT, VPC_PRODUCT, RAM_PRODUCT, STS_PRODUCT, QUOTAS_PRODUCT].map((p) => [
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

/** Serves the Alibaba Cloud OpenAPI part of the simulator. */
export class AlibabaGateway {
  constructor(
    private readonly ctx: SimContext,
    private readonly auth: RequestAuthService,
  ) {}

  /**
   * Answer one request.
   * @param rawPath path as sent (percent-encoded); @param rawQuery query string without `?`
   */
  handle(req: IncomingMessage, res: ServerResponse, rawPath: string, rawQuery: string, body: Buffer): void {
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
        const out = handler(acsReq, this.ctx);
        sendJson(res, 200, { RequestId: requestId, ...out }, { 'x-acs-request-id': requestId });
        return;
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
      sendJson(res, 200, match.route.handler(acsReq, this.ctx) ?? {}, { 'x-acs-request-id': requestId });
    } catch (e) {
      if (!(e instanceof AcsError)) throw e;
      sendJson(res, e.status, renderAcsError(e, style, requestId, product.hostId, product.product), {
        'x-acs-request-id': requestId,
        ...e.headers,
      });
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
