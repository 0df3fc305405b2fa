import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiBearerAuth,
  ApiCreatedResponse,
  ApiForbiddenResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
  ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import type { Principal } from '@app/store';
import { CurrentPrincipal } from '../auth/current-principal.decorator';
import { RequireRole } from '../common/bearer-auth.guard';
import { ErrorResponseDto } from '../common/error-response.dto';
import { ApiZodBody, ApiZodQuery } from '../common/zod-openapi.util';
import { compareKeys, keysetSlice } from '../common/listing.util';
import { ZodValidationPipe } from '../common/zod-validation.pipe';
import { CreatedTokenDto, TokenDto, TokenListDto } from './token.dto';
import { createTokenBodySchema, listTokensQuerySchema, tokenIdSchema, type CreateTokenBody, type ListTokensQuery } from './tokens.schemas';
import { TokensService } from './tokens.service';

export { actorOf } from './tokens.service';

/**
 * `/v1/tokens` (admin): create, list and revoke scoped API tokens. An admin token scoped to some
 * accounts cannot escalate: it creates tokens only over accounts within its scope (403 otherwise, and
 * for an all-accounts token), and lists and revokes only tokens whose accounts lie within its scope
 * (others answer 404 as if absent). The rule and the audit rows live in TokensService, shared with GraphQL.
 */
@ApiTags('tokens')
@ApiBearerAuth('bearer')
@ApiUnauthorizedResponse({ type: ErrorResponseDto, description: 'Missing or invalid bearer token' })
@ApiForbiddenResponse({ type: ErrorResponseDto, description: 'The token is not an admin token' })
@RequireRole('admin')
@Controller('v1/tokens')
export class TokensController {
  constructor(private readonly tokens: TokensService) {}

  @Get()
  @ApiOperation({ summary: "Every token over accounts within this token's scope, newest first (never secrets); page with `limit` and `after`" })
  @ApiZodQuery(listTokensQuerySchema)
  @ApiOkResponse({ type: TokenListDto })
  async list(
    @Query(new ZodValidationPipe(listTokensQuerySchema, 'query')) query: ListTokensQuery,
    @CurrentPrincipal() principal: Principal,
  ): Promise<TokenListDto> {
    // Tokens are few (an organisation's own); read in full, newest first, and paged by (created at, id).
    const all = await this.tokens.list(principal);
    return keysetSlice(all, (t) => [t.createdAt, t.id], 2, (a, b) => -compareKeys(a, b), query.limit, query.after);
  }

  @Post()
  @ApiOperation({ summary: 'Create a token; the plaintext token is in this response only' })
  @ApiZodBody(createTokenBodySchema)
  @ApiCreatedResponse({ type: CreatedTokenDto })
  @ApiBadRequestResponse({ type: ErrorResponseDto, description: 'Invalid role, accounts or expiry' })
  @ApiForbiddenResponse({ type: ErrorResponseDto, description: "Not an admin token, or accounts outside the token's scope (a scoped admin cannot create an all-accounts token)" })
  async create(
    @Body(new ZodValidationPipe(createTokenBodySchema, 'body')) body: CreateTokenBody,
    @CurrentPrincipal() principal: Principal,
  ): Promise<CreatedTokenDto> {
    return this.tokens.create({ role: body.role, accounts: body.accounts, ttlMs: body.expiresInDays * 86_400_000, name: body.name }, principal);
  }

  @Delete(':id')
  @HttpCode(200)
  @ApiOperation({ summary: 'Revoke a token (idempotent); every API replica refuses it within 5 s' })
  @ApiParam({ name: 'id', schema: { type: 'string', pattern: '^[0-9a-z]{12}$' } })
  @ApiOkResponse({ type: TokenDto })
  @ApiNotFoundResponse({ type: ErrorResponseDto })
  async revoke(
    @Param('id', new ZodValidationPipe(tokenIdSchema, 'path.id')) id: string,
    @CurrentPrincipal() principal: Principal,
  ): Promise<TokenDto> {
    return this.tokens.revoke(id, principal);
  }
}
