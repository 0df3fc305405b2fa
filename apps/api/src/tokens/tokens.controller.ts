import { Delete, Get, HttpCode, Post } from '@nestjs/common';
import { ApiForbiddenResponse } from '@nestjs/swagger';
import type { Principal } from '@app/store';
import { CurrentPrincipal } from '../auth/current-principal.decorator';
import { RequireRole, TeamAware } from '../common/bearer-auth.guard';
import { BearerController } from '../common/bearer-controller.decorator';
import { ErrorResponseDto } from '../common/error-response.dto';
import { compareKeys, keysetSlice } from '../common/listing.util';
import { ApiRoute, ZodBody, ZodParam, ZodQuery } from '../common/route.decorator';
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
@TeamAware()
@BearerController('v1/tokens', 'tokens')
@ApiForbiddenResponse({ type: ErrorResponseDto, description: 'The token is not an admin token' })
@RequireRole('admin')
export class TokensController {
  constructor(private readonly tokens: TokensService) {}

  @Get()
  @ApiRoute({ summary: "Every token over accounts within this token's scope, newest first (never secrets); page with `limit` and `after`", query: listTokensQuerySchema, ok: TokenListDto })
  async list(@ZodQuery(listTokensQuerySchema) query: ListTokensQuery, @CurrentPrincipal() principal: Principal): Promise<TokenListDto> {
    // Tokens are few (an organisation's own); read in full, newest first, and paged by (created at, id).
    const all = await this.tokens.list(principal);
    return keysetSlice(all, (t) => [t.createdAt, t.id], 2, (a, b) => -compareKeys(a, b), query.limit, query.after);
  }

  @Post()
  @ApiRoute({
    summary: 'Create a token; the plaintext token is in this response only',
    body: createTokenBodySchema,
    created: CreatedTokenDto,
    badRequest: 'Invalid role, accounts or expiry',
    forbidden: "Not an admin token, or accounts or teams outside the token's scope (a scoped admin cannot create an all-accounts token, a team-scoped one an every-team token)",
  })
  async create(@ZodBody(createTokenBodySchema) body: CreateTokenBody, @CurrentPrincipal() principal: Principal): Promise<CreatedTokenDto> {
    return this.tokens.create({ role: body.role, accounts: body.accounts, teams: body.teams, ttlMs: body.expiresInDays * 86_400_000, name: body.name }, principal);
  }

  @Delete(':id')
  @HttpCode(200)
  @ApiRoute({ summary: 'Revoke a token (idempotent); every API replica refuses it within 5 s', param: { name: 'id', schema: { type: 'string', pattern: '^[0-9a-z]{12}$' } }, ok: TokenDto, notFound: true })
  async revoke(@ZodParam('id', tokenIdSchema) id: string, @CurrentPrincipal() principal: Principal): Promise<TokenDto> {
    return this.tokens.revoke(id, principal);
  }
}
