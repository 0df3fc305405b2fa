import { type CanActivate, type ExecutionContext, Inject, Injectable, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { roleAllows, type Principal, type Role } from '@app/store';
import { IS_PUBLIC_ROUTE, REQUIRED_ROLE, TEAM_AWARE_ROUTE } from '../api.constants';
import { TokenAuthenticator } from '../auth/token-authenticator';
import { ApiError } from './api.exception';

/** Mark a controller or route as reachable without a token (health check). */
export const Public = (): MethodDecorator & ClassDecorator => SetMetadata(IS_PUBLIC_ROUTE, true);

/** The lowest role a controller or route needs (default `viewer`: every valid token). */
export const RequireRole = (role: Role): MethodDecorator & ClassDecorator => SetMetadata(REQUIRED_ROLE, role);

/**
 * Mark a controller or route whose reads filter by team (Scoped.teamScope): only these answer a team-scoped token.
 * Every other route refuses it with 403 rather than show rows of other teams' clusters (fail closed), so a new
 * controller must decide how it narrows to a team (libs/store team-scope.util.ts) before a team token reaches it.
 */
export const TeamAware = (): MethodDecorator & ClassDecorator => SetMetadata(TEAM_AWARE_ROUTE, true);

/** The REST endpoints a team-scoped token may call (named in the 403 of the others). */
export const TEAM_AWARE_ENDPOINTS =
  '/v1/findings, /v1/scans, /v1/quotas, /v1/clusters, /v1/load-balancers, /v1/nlbs, /v1/nlb-server-groups/unused, /v1/ecs-instances, /v1/forecasts, /v1/quota-plan, /v1/plans, /v1/waivers, /v1/whoami, /v1/reports, /v1/tokens, /metrics';

/** The parts of Express's request the guard reads and writes. */
export interface HttpRequestLike {
  headers: Record<string, string | string[] | undefined>;
  ip?: string;
  socket?: { remoteAddress?: string };
  /** Set by the guard: who is asking. */
  principal?: Principal;
}

/** The client address of a request (Express `req.ip`; the socket peer when absent). */
export function clientAddressOf(req: HttpRequestLike): string {
  return req.ip ?? req.socket?.remoteAddress ?? 'unknown';
}

/** What a route asks of its caller, read from its decorators (`@RequireRole`, `@TeamAware`). */
export interface RouteAccess {
  /** The lowest role the route needs (`viewer` unless `@RequireRole` says otherwise). */
  required: Role;
  /** The route filters by team (`@TeamAware()`): a team-scoped token may call it. */
  teamAware: boolean;
  /** How the route is named in the audit row and log line of a refusal (`Controller.handler`). */
  name: string;
}

/**
 * The access rule of a route handler from its decorators and its controller's (the handler's override the class's),
 * or undefined for a `@Public()` route.
 * @param reflector Nest's Reflector
 * @param handler the route's method
 * @param controller its controller class
 */
export function routeAccessOf(reflector: Reflector, handler: ReturnType<ExecutionContext['getHandler']>, controller: ReturnType<ExecutionContext['getClass']>): RouteAccess | undefined {
  const targets = [handler, controller];
  if (reflector.getAllAndOverride<boolean | undefined>(IS_PUBLIC_ROUTE, targets)) return undefined;
  return {
    required: reflector.getAllAndOverride<Role | undefined>(REQUIRED_ROLE, targets) ?? 'viewer',
    teamAware: reflector.getAllAndOverride<boolean | undefined>(TEAM_AWARE_ROUTE, targets) === true,
    name: `${controller.name}.${handler.name}`,
  };
}

/**
 * Authenticates an HTTP request for a route (the bearer token, TokenAuthenticator) and checks the route's access rule:
 * sets and returns `req.principal`. The guard of every route and the admission webhook's own route
 * (admission.route.ts) both authorize through this one function.
 * @throws ApiError UNAUTHENTICATED / RATE_LIMITED (TokenAuthenticator.authenticate); FORBIDDEN for a role below
 *   `access.required`, or a team-scoped token on a route that is not team-aware (audited as `forbidden`)
 */
export async function authorizeRequest(auth: TokenAuthenticator, req: HttpRequestLike, access: RouteAccess): Promise<Principal> {
  const header = req.headers.authorization;
  const address = clientAddressOf(req);
  const principal = await auth.authenticate(typeof header === 'string' ? header : undefined, address);
  req.principal = principal;
  if (!roleAllows(principal.role, access.required)) {
    await auth.forbidden(principal, address, access.name);
    throw new ApiError('FORBIDDEN', `This operation needs the ${access.required} role; the token has ${principal.role}`);
  }
  if (principal.teamScope !== undefined && !access.teamAware) {
    await auth.forbidden(principal, address, access.name);
    throw new ApiError('FORBIDDEN', `This endpoint does not filter by team; a team-scoped token (teams ${principal.teamScope.join(', ')}) may read ${TEAM_AWARE_ENDPOINTS}`);
  }
  return principal;
}

/**
 * Global guard: every route needs `Authorization: Bearer <token>` unless marked `@Public()`: the
 * bootstrap API_TOKEN or a scoped `fa_` token (TokenAuthenticator). Sets `request.principal`,
 * which controllers read with `@CurrentPrincipal()` and hand to every service / repository read,
 * and refuses (403) a role below the route's `@RequireRole`, and a team-scoped token on a route not `@TeamAware()`
 * (`authorizeRequest`). Tokens are never logged or echoed.
 */
@Injectable()
export class BearerAuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    @Inject(TokenAuthenticator) private readonly auth: TokenAuthenticator,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    // GraphQL requests authenticate in the GraphQL context (same authenticator).
    if (context.getType<string>() !== 'http') return true;
    const access = routeAccessOf(this.reflector, context.getHandler(), context.getClass());
    if (!access) return true;
    await authorizeRequest(this.auth, context.switchToHttp().getRequest<HttpRequestLike>(), access);
    return true;
  }
}
