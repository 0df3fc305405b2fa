import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { Principal } from '@app/store';
import type { HttpRequestLike } from '../common/bearer-auth.guard';

/**
 * The request's Principal (set by BearerAuthGuard): `list(@CurrentPrincipal() p: Principal)`.
 * @throws Error when used on a route without authentication (a programming error)
 */
export const CurrentPrincipal = createParamDecorator((_data: unknown, ctx: ExecutionContext): Principal => {
  const principal = ctx.switchToHttp().getRequest<HttpRequestLike>().principal;
  if (!principal) throw new Error('no principal on this request: the route is public or the guard did not run');
  return principal;
});
