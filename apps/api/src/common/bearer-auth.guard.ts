import { createHash, timingSafeEqual } from 'node:crypto';
import { type CanActivate, type ExecutionContext, Inject, Injectable, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { API_TOKEN, IS_PUBLIC_ROUTE } from '../api.constants';
import { ApiError } from './api.exception';

/** Mark a controller or route as reachable without a token (health check). */
export const Public = (): MethodDecorator & ClassDecorator => SetMetadata(IS_PUBLIC_ROUTE, true);

/** The parts of Express's request the guard reads. */
interface HttpRequestLike {
  headers: Record<string, string | string[] | undefined>;
}

/** SHA-256 of a string: equal-length inputs for `timingSafeEqual` whatever the token lengths. */
function digest(s: string): Buffer {
  return createHash('sha256').update(s, 'utf8').digest();
}

/**
 * Global guard: every route needs `Authorization: Bearer <token>` unless marked `@Public()`.
 * The comparison is constant-time (hashes compared with `timingSafeEqual`), so response timing
 * does not reveal how much of a guess was right. The token is never logged or echoed.
 */
@Injectable()
export class BearerAuthGuard implements CanActivate {
  private readonly expected: Buffer;

  constructor(
    private readonly reflector: Reflector,
    @Inject(API_TOKEN) token: string,
  ) {
    this.expected = digest(token);
  }

  canActivate(context: ExecutionContext): boolean {
    const isPublic = this.reflector.getAllAndOverride<boolean | undefined>(IS_PUBLIC_ROUTE, [context.getHandler(), context.getClass()]);
    if (isPublic) return true;
    const header = context.switchToHttp().getRequest<HttpRequestLike>().headers.authorization;
    const match = typeof header === 'string' ? /^Bearer[ ]+(\S+)\s*$/i.exec(header) : null;
    if (!match) throw new ApiError('UNAUTHENTICATED', 'Missing bearer token: send "Authorization: Bearer <token>"');
    if (!timingSafeEqual(digest(match[1]), this.expected)) throw new ApiError('UNAUTHENTICATED', 'Invalid bearer token');
    return true;
  }
}
