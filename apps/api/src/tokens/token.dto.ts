/** Response shapes of `/v1/tokens` (documented for OpenAPI). Never the secret nor its hash, except `token` once at creation. */
import { ApiProperty } from '@nestjs/swagger';
import type { Role } from '@app/store';
import { KeysetPageDto } from '../common/page.dto';

/** A token as listed. */
export class TokenDto {
  @ApiProperty({ example: 'k3v9x0q2m7ab', description: 'Token id (the public part of fa_<id>_<secret>)' })
  id: string;

  @ApiProperty({ example: 'team-payments dashboards' })
  name: string;

  @ApiProperty({ enum: ['viewer', 'operator', 'admin'] })
  role: Role;

  @ApiProperty({ type: [String], nullable: true, example: ['1234567890123456'], description: 'Account ids it may read; null = every account' })
  accounts: string[] | null;

  @ApiProperty({ type: [String], nullable: true, example: ['payments'], description: 'Teams (owners) it may read within its accounts; null = every team' })
  teams: string[] | null;

  @ApiProperty({ format: 'date-time' })
  createdAt: string;

  @ApiProperty({ format: 'date-time' })
  expiresAt: string;

  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'Last authenticated use (updated at most once a minute)' })
  lastUsedAt: string | null;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  revokedAt: string | null;

  @ApiProperty({ example: 'bootstrap', description: 'Creator: a token id, bootstrap (API_TOKEN) or cli' })
  createdBy: string;
}

/** The list of tokens. */
export class TokenListDto extends KeysetPageDto<TokenDto>({ items: TokenDto, total: { description: 'Tokens listed over all pages (count)' } }) {}

/** A created token: the plaintext `token` is shown only in this response. */
export class CreatedTokenDto extends TokenDto {
  @ApiProperty({ example: 'fa_k3v9x0q2m7ab_3Zq...', description: 'The token (fa_<id>_<secret>); shown once, store it now' })
  token: string;
}
