/** Response shapes of `GET /v1/quotas` (documented for OpenAPI). */
import { ApiProperty } from '@nestjs/swagger';
import type { ResourceKind } from '@app/domain';

/** The resource a quota sample measures. */
export class QuotaResourceDto {
  @ApiProperty({ example: 'LoadBalancer', description: 'Account, Region, Cluster, Node, Service, LoadBalancer, VServerGroup, EcsInstance, VSwitch or RamRole' })
  kind: ResourceKind;

  @ApiProperty({ example: 'lb-bp1abcdefgh' })
  id: string;

  @ApiProperty({ example: '1234567890123456' })
  accountId: string;

  @ApiProperty({ example: 'cn-hangzhou' })
  regionId: string;

  @ApiProperty({ type: String, nullable: true, example: 'c0123456789abcdef' })
  clusterId: string | null;
}

/** How much of one quota one resource uses, in one scan. */
export class QuotaDto {
  @ApiProperty({ example: 'CLB_BACKEND_QUOTA', description: 'The check that measured it (docs/checks.md)' })
  checkId: string;

  @ApiProperty({ type: QuotaResourceDto })
  resource: QuotaResourceDto;

  @ApiProperty({ example: 190, description: 'Measured use (count)' })
  used: number;

  @ApiProperty({ example: 200, description: 'The quota or limit (count)' })
  limit: number;

  @ApiProperty({ example: 0.95, description: 'used / limit as a fraction (0.95 = 95 %)' })
  ratio: number;
}

/** A page of quota samples in key order (check, account, region, resource kind, resource id). */
export class QuotaPageDto {
  @ApiProperty({ type: [QuotaDto] })
  items: QuotaDto[];

  @ApiProperty({ example: 1240, description: "Samples matching the filters within the token's accounts (all pages)" })
  total: number;

  @ApiProperty({ example: 100 })
  limit: number;

  @ApiProperty({ type: String, nullable: true, example: 'WyJDTEJfQkFDS0VORF9RVU9UQSJd', description: 'Pass as `after` for the next page; null on the last page' })
  nextCursor: string | null;

  @ApiProperty({ type: String, nullable: true, format: 'uuid', description: 'Scan read; null when no scan succeeded yet' })
  scanId: string | null;
}
