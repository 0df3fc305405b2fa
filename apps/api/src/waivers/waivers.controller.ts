import { Delete, Get, HttpCode, Patch, Post } from '@nestjs/common';
import type { ApiParamOptions } from '@nestjs/swagger';
import { RequireRole, TeamAware } from '../common/bearer-auth.guard';
import type { Principal } from '@app/store';
import { BearerController } from '../common/bearer-controller.decorator';
import { CurrentPrincipal } from '../auth/current-principal.decorator';
import { ApiRoute, ZodBody, ZodParam, ZodQuery, type RouteDoc } from '../common/route.decorator';
import { WaiverDetailDto, WaiverDto, WaiverListDto } from './waiver.dto';
import { WaiversService } from './waivers.service';
import {
  createWaiverBodySchema,
  listWaiversQuerySchema,
  revokeWaiverQuerySchema,
  updateWaiverBodySchema,
  waiverIdSchema,
  type CreateWaiverBody,
  type ListWaiversQuery,
  type RevokeWaiverQuery,
  type UpdateWaiverBody,
} from './waivers.schemas';

/** The `id` path parameter of a waiver route. */
const WAIVER_ID: ApiParamOptions = { name: 'id', schema: { type: 'string', format: 'uuid' } };
/** The 404 answer of a waiver route. */
const NO_SUCH_WAIVER = "No such waiver in the token's accounts";
/** What the routes changing one waiver (PATCH, DELETE) answer: the waiver, 404 as for a read, 403 when not its own. */
const CHANGES_ONE_WAIVER = {
  param: WAIVER_ID,
  ok: WaiverDto,
  notFound: NO_SUCH_WAIVER,
  forbidden: 'Role below operator, or another token created the waiver and this one is not admin',
} satisfies Partial<RouteDoc>;

/**
 * `/v1/waivers`: owned, expiring exceptions to a check. Waivers apply when findings are read,
 * so a change here shows at once in `/v1/findings`, `/metrics` and reports. DELETE revokes (the waiver
 * and its history stay readable). Needs the API bearer token like every `/v1` route.
 *
 * Scope: a token sees only waivers of its accounts (filtered in SQL; a waiver of another
 * account answers 404 as if absent) and may create waivers only for its accounts (403). Creating,
 * changing and revoking need the operator role; a non-admin token may change or revoke only the waivers
 * it created itself (403 otherwise), an admin any waiver in its scope.
 */
@TeamAware()
@BearerController('v1/waivers', 'waivers', 'Invalid query, path or body (the field and the rule)')
export class WaiversController {
  constructor(private readonly waivers: WaiversService) {}

  @Get()
  @ApiRoute({ summary: "Waivers of the token's accounts (and teams) with their state now (active, expiring, expired, stale; revoked on request), oldest first", query: listWaiversQuerySchema, ok: WaiverListDto })
  list(@ZodQuery(listWaiversQuerySchema) query: ListWaiversQuery, @CurrentPrincipal() principal: Principal): Promise<WaiverListDto> {
    return this.waivers.list(query, principal);
  }

  @Post()
  @RequireRole('operator')
  @ApiRoute({
    summary: "Create a waiver for one of the token's accounts (operator; reason >= 10 characters; expiry default 90 days, at most 180)",
    body: createWaiverBodySchema,
    created: WaiverDto,
    forbidden: "Role below operator, or the account is outside the token's scope",
  })
  create(@ZodBody(createWaiverBodySchema) body: CreateWaiverBody, @CurrentPrincipal() principal: Principal): Promise<WaiverDto> {
    return this.waivers.create(body, principal);
  }

  @Get(':id')
  @ApiRoute({ summary: 'One waiver with its state and its append-only history', param: WAIVER_ID, ok: WaiverDetailDto, notFound: NO_SUCH_WAIVER })
  get(@ZodParam('id', waiverIdSchema) id: string, @CurrentPrincipal() principal: Principal): Promise<WaiverDetailDto> {
    return this.waivers.get(id, principal);
  }

  @Patch(':id')
  @RequireRole('operator')
  @ApiRoute({ summary: 'Change owner, reason, category, ticket or expiry (renewal: at most 180 days from now)', ...CHANGES_ONE_WAIVER, body: updateWaiverBodySchema, conflict: 'The waiver is revoked' })
  update(@ZodParam('id', waiverIdSchema) id: string, @ZodBody(updateWaiverBodySchema) body: UpdateWaiverBody, @CurrentPrincipal() principal: Principal): Promise<WaiverDto> {
    return this.waivers.update(id, body, principal);
  }

  @Delete(':id')
  @RequireRole('operator')
  @HttpCode(200)
  @ApiRoute({ summary: 'Revoke a waiver: its findings count again at once; the waiver and history stay readable', ...CHANGES_ONE_WAIVER, query: revokeWaiverQuerySchema, conflict: 'Already revoked' })
  revoke(@ZodParam('id', waiverIdSchema) id: string, @ZodQuery(revokeWaiverQuerySchema) query: RevokeWaiverQuery, @CurrentPrincipal() principal: Principal): Promise<WaiverDto> {
    return this.waivers.revoke(id, query, principal);
  }
}
