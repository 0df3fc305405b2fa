/** Response shapes of `GET /v1/quotas` (documented for OpenAPI). */
import { ApiProperty } from '@nestjs/swagger';
import { ScanListingPageDto } from '../common/page.dto';
import { ResourceKeyDto } from '../findings/finding.dto';

/** The resource a quota sample measures. */
export class QuotaResourceDto extends ResourceKeyDto {}

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
export class QuotaPageDto extends ScanListingPageDto<QuotaDto>({
  items: QuotaDto,
  total: { example: 1240, description: "Samples matching the filters within the token's accounts (all pages)" },
  limitExample: 100,
  cursorExample: 'WyJDTEJfQkFDS0VORF9RVU9UQSJd',
}) {}
