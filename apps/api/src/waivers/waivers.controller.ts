import { Body, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiConflictResponse, ApiCreatedResponse, ApiForbiddenResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiParam } from '@nestjs/swagger';
import { RequireRole } from '../common/bearer-auth.guard';
import type { Principal } from '@app/store';
import { BearerController } from '../common/bearer-controller.decorator';
import { CurrentPrincipal } from '../auth/current-principal.decorator';
import { ErrorResponseDto } from '../common/error-response.dto';
import { ApiZodBody, ApiZodQuery } from '../common/zod-openapi.util';
import { ZodValidationPipe } from '../common/zod-validation.pipe';
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

/**
 * `/v1/waivers`: owned, expiring exceptions to a check (issue 12). Waivers apply when findings are read,
 * so a change here shows at once in `/v1/findings`, `/metrics` and reports. DELETE revokes (the waiver
 * and its history stay readable). Needs the API bearer token like every `/v1` route.
 *
 * Scope (issue 11): a token sees only waivers of its accounts (filtered in SQL; a waiver of another
 * account answers 404 as if absent) and may create waivers only for its accounts (403). Creating,
 * changing and revoking need the operator role; a non-admin token may change or revoke only the waivers
 * it created itself (403 otherwise), an admin any waiver in its scope.
 */
@BearerController('v1/waivers', 'waivers', 'Invalid query, path or body (the field and the rule)')
export class WaiversController {
  constructor(private readonly waivers: WaiversService) {}

  @Get()
  @ApiOperation({ summary: "Waivers of the token's accounts with their state now (active, expiring, expired, stale; revoked on request), oldest first" })
  @ApiZodQuery(listWaiversQuerySchema)
  @ApiOkResponse({ type: WaiverListDto })
  list(
    @Query(new ZodValidationPipe(listWaiversQuerySchema, 'query')) query: ListWaiversQuery,
    @CurrentPrincipal() principal: Principal,
  ): Promise<WaiverListDto> {
    return this.waivers.list(query, principal);
  }

  @Post()
  @RequireRole('operator')
  @ApiOperation({ summary: "Create a waiver for one of the token's accounts (operator; reason >= 10 characters; expiry default 90 days, at most 180)" })
  @ApiZodBody(createWaiverBodySchema)
  @ApiCreatedResponse({ type: WaiverDto })
  @ApiForbiddenResponse({ type: ErrorResponseDto, description: "Role below operator, or the account is outside the token's scope" })
  create(
    @Body(new ZodValidationPipe(createWaiverBodySchema, 'body')) body: CreateWaiverBody,
    @CurrentPrincipal() principal: Principal,
  ): Promise<WaiverDto> {
    return this.waivers.create(body, principal);
  }

  @Get(':id')
  @ApiOperation({ summary: 'One waiver with its state and its append-only history' })
  @ApiParam({ name: 'id', schema: { type: 'string', format: 'uuid' } })
  @ApiOkResponse({ type: WaiverDetailDto })
  @ApiNotFoundResponse({ type: ErrorResponseDto, description: "No such waiver in the token's accounts" })
  get(@Param('id', new ZodValidationPipe(waiverIdSchema, 'path.id')) id: string, @CurrentPrincipal() principal: Principal): Promise<WaiverDetailDto> {
    return this.waivers.get(id, principal);
  }

  @Patch(':id')
  @RequireRole('operator')
  @ApiOperation({ summary: 'Change owner, reason, category, ticket or expiry (renewal: at most 180 days from now)' })
  @ApiParam({ name: 'id', schema: { type: 'string', format: 'uuid' } })
  @ApiZodBody(updateWaiverBodySchema)
  @ApiOkResponse({ type: WaiverDto })
  @ApiNotFoundResponse({ type: ErrorResponseDto, description: "No such waiver in the token's accounts" })
  @ApiForbiddenResponse({ type: ErrorResponseDto, description: 'Role below operator, or another token created the waiver and this one is not admin' })
  @ApiConflictResponse({ type: ErrorResponseDto, description: 'The waiver is revoked' })
  update(
    @Param('id', new ZodValidationPipe(waiverIdSchema, 'path.id')) id: string,
    @Body(new ZodValidationPipe(updateWaiverBodySchema, 'body')) body: UpdateWaiverBody,
    @CurrentPrincipal() principal: Principal,
  ): Promise<WaiverDto> {
    return this.waivers.update(id, body, principal);
  }

  @Delete(':id')
  @RequireRole('operator')
  @HttpCode(200)
  @ApiOperation({ summary: 'Revoke a waiver: its findings count again at once; the waiver and history stay readable' })
  @ApiParam({ name: 'id', schema: { type: 'string', format: 'uuid' } })
  @ApiZodQuery(revokeWaiverQuerySchema)
  @ApiOkResponse({ type: WaiverDto })
  @ApiNotFoundResponse({ type: ErrorResponseDto, description: "No such waiver in the token's accounts" })
  @ApiForbiddenResponse({ type: ErrorResponseDto, description: 'Role below operator, or another token created the waiver and this one is not admin' })
  @ApiConflictResponse({ type: ErrorResponseDto, description: 'Already revoked' })
  revoke(
    @Param('id', new ZodValidationPipe(waiverIdSchema, 'path.id')) id: string,
    @Query(new ZodValidationPipe(revokeWaiverQuerySchema, 'query')) query: RevokeWaiverQuery,
    @CurrentPrincipal() principal: Principal,
  ): Promise<WaiverDto> {
    return this.waivers.revoke(id, query, principal);
  }
}
