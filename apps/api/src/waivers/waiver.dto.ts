/** Response shapes of `/v1/waivers` (documented for OpenAPI). Optional fields are present as null. */
import { ApiProperty } from '@nestjs/swagger';
import { MAX_GLOB_WILDCARDS, type WaiverCategory, type WaiverState } from '@app/domain';
import { KeysetPageDto } from '../common/page.dto';

/** Findings a waiver covered in one of the latest succeeded scans. */
export class WaiverMatchDto {
  @ApiProperty({ format: 'uuid' })
  scanId: string;

  @ApiProperty({ description: 'Findings of that scan it covers (count)' })
  findings: number;
}

/** A waiver with its state now. */
export class WaiverDto {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ example: 'CLB_BACKEND_QUOTA' })
  checkId: string;

  @ApiProperty({ example: '1234567890123456' })
  accountId: string;

  @ApiProperty({ type: String, nullable: true, description: 'Only this region; null: every region' })
  regionId: string | null;

  @ApiProperty({ type: String, nullable: true, description: 'Only this cluster; null: every cluster' })
  clusterId: string | null;

  @ApiProperty({ example: 'lb-bp1*', description: `Resource id, or a glob over it (\`*\`, \`?\`; at most ${MAX_GLOB_WILDCARDS} wildcards)` })
  resource: string;

  @ApiProperty({ example: 'team-network' })
  owner: string;

  @ApiProperty({ minLength: 10 })
  reason: string;

  @ApiProperty({ enum: ['accepted-risk', 'mitigated', 'false-positive'] })
  category: WaiverCategory;

  @ApiProperty({ type: String, nullable: true })
  ticket: string | null;

  @ApiProperty()
  createdBy: string;

  @ApiProperty({
    type: String,
    nullable: true,
    example: 'k3j9x0a1b2c3',
    description: 'Id of the fa_ token that created the waiver (only it, or an admin, may change or revoke it); null: API_TOKEN, CLI or older waivers',
  })
  createdByToken: string | null;

  @ApiProperty({ format: 'date-time' })
  createdAt: string;

  @ApiProperty({ format: 'date-time' })
  expiresAt: string;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  revokedAt: string | null;

  @ApiProperty({ type: String, nullable: true })
  revokedBy: string | null;

  @ApiProperty({
    enum: ['active', 'expiring', 'expired', 'stale', 'revoked'],
    description: 'expiring: expires within 14 days; stale: covered no finding in the last 2 succeeded scans',
  })
  state: WaiverState;

  @ApiProperty({ type: [WaiverMatchDto], description: 'Findings covered in the latest succeeded scans, newest first' })
  matches: WaiverMatchDto[];
}

/** Waivers, oldest first. */
export class WaiverListDto extends KeysetPageDto<WaiverDto>({ items: WaiverDto, total: { description: 'Waivers listed over all pages (count)' } }) {}

/** One change of a waiver. */
export class WaiverHistoryEntryDto {
  @ApiProperty()
  version: number;

  @ApiProperty({ enum: ['created', 'updated', 'revoked'] })
  action: string;

  @ApiProperty({ description: 'The authenticated principal that made the change: token:<id>, bootstrap, or the CLI user' })
  actor: string;

  @ApiProperty({ type: String, nullable: true, description: 'The fa_ token that made the change (null: bootstrap, CLI, or before it was recorded)' })
  actorTokenId: string | null;

  @ApiProperty({ type: String, nullable: true, description: "That token's name" })
  actorTokenName: string | null;

  @ApiProperty({ type: String, nullable: true, description: 'A name the client gave (createdBy, updatedBy, ?by=) when it differs from the actor: a claim, not verified' })
  statedBy: string | null;

  @ApiProperty({ format: 'date-time' })
  at: string;

  @ApiProperty({ type: 'object', additionalProperties: true, description: 'The waiver after the change' })
  waiver: Record<string, unknown>;
}

/** A waiver with its history. */
export class WaiverDetailDto extends WaiverDto {
  @ApiProperty({ type: [WaiverHistoryEntryDto] })
  history: WaiverHistoryEntryDto[];
}
