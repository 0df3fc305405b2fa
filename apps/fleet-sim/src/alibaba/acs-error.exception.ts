/**
 * Errors of the simulated Alibaba Cloud APIs, rendered in the product's native error shape.
 *
 * Shapes (`research/alibaba-cloud-api.md` sections 1.5, 2, 8.5; fixture
 * `fixtures/alibaba-api-samples/slb-error-InvalidParameter.json`):
 * - RPC products (ECS, SLB, RAM, STS, Quota Center): `{RequestId, HostId, Code, Message, Recommend}`;
 * - CS (ROA): `{code, message, requestId}`.
 * Both carry the real HTTP status, because openapi-core picks the error class from it
 * (4xx ClientError, 5xx ServerError, any code containing `Throttling` ThrottlingError).
 */

/** One simulated API error: HTTP status, the product's error code and message. */
export class AcsError extends Error {
  override readonly name = 'AcsError';
  /**
   * @param status HTTP status (400, 403, 404, ...)
   * @param code the product's error code, e.g. `InvalidLoadBalancerId.NotFound`
   * @param message the product's message
   * @param headers extra response headers (e.g. `x-acs-retry-after` for throttling)
   */
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }

  /** `MissingParameter` 400: a mandatory parameter is absent (POP gateway wording). */
  static missingParameter(name: string): AcsError {
    return new AcsError(
      400,
      'MissingParameter',
      `The input parameter "${name}" that is mandatory for processing this request is not supplied.`,
    );
  }

  /** `InvalidParameter` 400: a parameter has an invalid value. */
  static invalidParameter(name: string, reason?: string): AcsError {
    return new AcsError(
      400,
      'InvalidParameter',
      `The specified parameter "${name}" is not valid.${reason ? ` ${reason}` : ''}`,
    );
  }

  /**
   * 403 for data the fleet directory does not hold (the section's file is absent): the live
   * collectors then record the section as not readable, as the offline loader records it absent.
   * RPC code `Forbidden.RAM` (ECS/SLB "not authorized" wording); CS uses `ErrorRamPolicyConfig`.
   */
  static forbidden(product: string, what: string): AcsError {
    return new AcsError(
      403,
      'Forbidden.RAM',
      `User not authorized to operate on the specified resource, or this API doesn't support RAM. (${product}: ${what} is not in the simulated fleet)`,
    );
  }
}

/** Where an error is rendered: RPC products (PascalCase keys) or CS ROA (lowercase keys). */
export type AcsErrorStyle = 'rpc' | 'roa';

/**
 * Render an error body in the product's shape.
 * @param hostId the product's host (`ecs.aliyuncs.com`, ...), RPC only
 * @param product the product name used in `Recommend` (`Ecs`, `Slb`, ...), RPC only
 */
export function renderAcsError(
  err: AcsError,
  style: AcsErrorStyle,
  requestId: string,
  hostId: string,
  product: string,
): Record<string, unknown> {
  if (style === 'roa') return { code: err.code, message: err.message, requestId };
  return {
    RequestId: requestId,
    HostId: hostId,
    Code: err.code,
    Message: err.message,
    Recommend: `https://api.aliyun.com/troubleshoot?q=${encodeURIComponent(err.code)}&product=${encodeURIComponent(product)}&requestId=${requestId}`,
  };
}
