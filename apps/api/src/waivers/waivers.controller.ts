import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiBearerAuth,
  ApiConflictResponse,
  ApiCreatedResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
  ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import type { Waiver } from '@app/domain';
import { RequireAllAccounts, RequireRole } from '../common/bearer-auth.guard';
import { Store, StoreError, type WaiverWithState } from '@app/store';
import { ErrorResponseDto } from '../common/error-response.dto';
import { ApiZodBody, ApiZodQuery } from '../common/zod-openapi.util';
import { ZodValidationPipe } from '../common/zod-validation.pipe';
import { WaiverDetailDto, WaiverDto, WaiverListDto } from './waiver.dto';
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
 */
@ApiTags('waivers')
@ApiBearerAuth('bearer')
@ApiUnauthorizedResponse({ type: ErrorResponseDto, description: 'Missing or invalid bearer token' })
@ApiBadRequestResponse({ type: ErrorResponseDto, description: 'Invalid query, path or body (the field and the rule)' })
@RequireAllAccounts()
@Controller('v1/waivers')
export class WaiversController {
  constructor(private readonly store: Store) {}

  @Get()
  @ApiOperation({ summary: 'Waivers with their state now (active, expiring, expired, stale; revoked on request), oldest first' })
  @ApiZodQuery(listWaiversQuerySchema)
  @ApiOkResponse({ type: WaiverListDto })
  async list(@Query(new ZodValidationPipe(listWaiversQuerySchema, 'query')) query: ListWaiversQuery): Promise<WaiverListDto> {
    const all = await this.store.waiverService.listWithState(new Date(), { includeRevoked: query.includeRevoked === 'true' || query.state === 'revoked' });
    const items = all.filter((w) => query.state === undefined || w.state === query.state).map(toWaiverDto);
    return { items, total: items.length };
  }

  @Post()
  @RequireRole('operator')
  @ApiOperation({ summary: 'Create a waiver (reason >= 10 characters; expiry default 90 days, at most 180)' })
  @ApiZodBody(createWaiverBodySchema)
  @ApiCreatedResponse({ type: WaiverDto })
  async create(@Body(new ZodValidationPipe(createWaiverBodySchema, 'body')) body: CreateWaiverBody): Promise<WaiverDto> {
    const { createdBy, ...input } = body;
    const waiver = await this.store.waiverService.create(input, createdBy ?? 'api');
    return this.withState(waiver);
  }

  @Get(':id')
  @ApiOperation({ summary: 'One waiver with its state and its append-only history' })
  @ApiParam({ name: 'id', schema: { type: 'string', format: 'uuid' } })
  @ApiOkResponse({ type: WaiverDetailDto })
  @ApiNotFoundResponse({ type: ErrorResponseDto })
  async get(@Param('id', new ZodValidationPipe(waiverIdSchema, 'path.id')) id: string): Promise<WaiverDetailDto> {
    const found = (await this.store.waiverService.listWithState(new Date(), { includeRevoked: true })).find((w) => w.id === id);
    if (!found) throw new StoreError('NOT_FOUND', `waiver ${id} not found`);
    const history = await this.store.waiverService.history(id);
    return { ...toWaiverDto(found), history: history.map((h) => ({ ...h, waiver: { ...h.waiver } })) };
  }

  @Patch(':id')
  @RequireRole('operator')
  @ApiOperation({ summary: 'Change owner, reason, category, ticket or expiry (renewal: at most 180 days from now)' })
  @ApiParam({ name: 'id', schema: { type: 'string', format: 'uuid' } })
  @ApiZodBody(updateWaiverBodySchema)
  @ApiOkResponse({ type: WaiverDto })
  @ApiNotFoundResponse({ type: ErrorResponseDto })
  @ApiConflictResponse({ type: ErrorResponseDto, description: 'The waiver is revoked' })
  async update(
    @Param('id', new ZodValidationPipe(waiverIdSchema, 'path.id')) id: string,
    @Body(new ZodValidationPipe(updateWaiverBodySchema, 'body')) body: UpdateWaiverBody,
  ): Promise<WaiverDto> {
    const { updatedBy, ...changes } = body;
    return this.withState(await this.store.waiverService.update(id, changes, updatedBy ?? 'api'));
  }

  @Delete(':id')
  @RequireRole('operator')
  @HttpCode(200)
  @ApiOperation({ summary: 'Revoke a waiver: its findings count again at once; the waiver and history stay readable' })
  @ApiParam({ name: 'id', schema: { type: 'string', format: 'uuid' } })
  @ApiZodQuery(revokeWaiverQuerySchema)
  @ApiOkResponse({ type: WaiverDto })
  @ApiNotFoundResponse({ type: ErrorResponseDto })
  @ApiConflictResponse({ type: ErrorResponseDto, description: 'Already revoked' })
  async revoke(
    @Param('id', new ZodValidationPipe(waiverIdSchema, 'path.id')) id: string,
    @Query(new ZodValidationPipe(revokeWaiverQuerySchema, 'query')) query: RevokeWaiverQuery,
  ): Promise<WaiverDto> {
    return this.withState(await this.store.waiverService.revoke(id, query.by ?? 'api'));
  }

  private async withState(w: Waiver): Promise<WaiverDto> {
    const found = (await this.store.waiverService.listWithState(new Date(), { includeRevoked: true })).find((x) => x.id === w.id);
    return toWaiverDto(found ?? { ...w, state: 'active', matches: [] });
  }
}

/** Response shape: absent optional fields as null. */
export function toWaiverDto(w: WaiverWithState): WaiverDto {
  return {
    id: w.id,
    checkId: w.checkId,
    accountId: w.accountId,
    regionId: w.regionId ?? null,
    clusterId: w.clusterId ?? null,
    resource: w.resource,
    owner: w.owner,
    reason: w.reason,
    category: w.category,
    ticket: w.ticket ?? null,
    createdBy: w.createdBy,
    createdAt: w.createdAt,
    expiresAt: w.expiresAt,
    revokedAt: w.revokedAt ?? null,
    revokedBy: w.revokedBy ?? null,
    state: w.state,
    matches: w.matches,
  };
}
