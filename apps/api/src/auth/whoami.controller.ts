import { Get } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import type { Principal, Role } from '@app/store';
import { TeamAware } from '../common/bearer-auth.guard';
import { BearerController } from '../common/bearer-controller.decorator';
import { ApiRoute } from '../common/route.decorator';
import { CurrentPrincipal } from './current-principal.decorator';

/** Who the request's token is: its role and scope, never the token itself. */
export class WhoamiDto {
  @ApiProperty({
    enum: ['viewer', 'operator', 'admin'],
    description:
      'viewer reads; operator also starts scans, runs what-ifs and waives; admin also manages tokens',
  })
  role: Role;

  @ApiProperty({
    enum: ['token', 'bootstrap'],
    description: '`token`: a scoped fa_ token; `bootstrap`: the API_TOKEN (admin over every account)',
  })
  kind: 'token' | 'bootstrap';

  @ApiProperty({
    type: String,
    nullable: true,
    example: 'k3v9x0q2m7ab',
    description: 'Token id (the public part of fa_<id>_<secret>); null for the bootstrap token',
  })
  tokenId: string | null;

  @ApiProperty({
    type: String,
    nullable: true,
    example: 'team-payments dashboards',
    description: "The token's name, if it has one",
  })
  tokenName: string | null;

  @ApiProperty({
    type: [String],
    nullable: true,
    example: ['1234567890123456'],
    description: 'Account ids it may read; null = every account',
  })
  accounts: string[] | null;

  @ApiProperty({
    type: [String],
    nullable: true,
    example: ['payments'],
    description: 'Teams (owners) it may read within its accounts; null = every team',
  })
  teams: string[] | null;
}

/**
 * The shape `GET /v1/whoami` answers for a principal (what a client such as the web console needs to hide the
 * actions the token may not take and to name the scope it reads).
 * @param principal the authenticated request's principal
 */
export function whoamiOf(principal: Principal): WhoamiDto {
  return {
    role: principal.role,
    kind: principal.kind === 'token' ? 'token' : 'bootstrap',
    tokenId: principal.tokenId,
    tokenName: principal.tokenName ?? null,
    accounts: principal.accountScope.all ? null : [...principal.accountScope.accountIds],
    teams: principal.teamScope === undefined ? null : [...principal.teamScope],
  };
}

/**
 * `GET /v1/whoami`: the role and scope of the presented token, for any valid token (viewer and up, team-scoped
 * included). Reads nothing from the store beyond the authentication itself.
 */
@TeamAware()
@BearerController('v1/whoami', 'tokens')
export class WhoamiController {
  @Get()
  @ApiRoute({
    summary: "The presented token's role, account scope and team scope (never the token)",
    ok: WhoamiDto,
  })
  whoami(@CurrentPrincipal() principal: Principal): WhoamiDto {
    return whoamiOf(principal);
  }
}
