/** Response shapes of the scans endpoints (documented for OpenAPI). */
import { ApiProperty } from '@nestjs/swagger';
import { COVERAGE_DATASETS, type CoverageDataset, type CoverageStatus } from '@app/domain';
import type { ScanSource, ScanStatus } from '@app/store';
import { KeysetPageDto } from '../common/page.dto';
import { FindingResourceDto } from '../findings/finding.dto';

/** Findings per severity (counts). */
export class SeverityCountsDto {
  @ApiProperty()
  info: number;

  @ApiProperty()
  warning: number;

  @ApiProperty()
  critical: number;
}

/** Counts of a succeeded scan; the analyzer may add further counts. */
export class ScanSummaryDto {
  @ApiProperty({ description: 'Number of findings' })
  findings: number;

  @ApiProperty({ type: SeverityCountsDto })
  bySeverity: SeverityCountsDto;

  @ApiProperty({ type: 'object', additionalProperties: { type: 'integer' }, description: 'Findings per check id' })
  byCheck: Record<string, number>;
}

/** Which target was read through which API, and whether it worked. */
export class CoverageEntryDto {
  @ApiProperty()
  accountId: string;

  @ApiProperty({ required: false })
  regionId?: string;

  @ApiProperty({ required: false })
  clusterId?: string;

  @ApiProperty({ enum: [...COVERAGE_DATASETS] })
  api: CoverageDataset;

  @ApiProperty({ enum: ['ok', 'failed', 'absent'] })
  status: CoverageStatus;

  @ApiProperty({ required: false, example: 'Forbidden.RAM' })
  errorCode?: string;

  @ApiProperty({ required: false })
  message?: string;
}

/** A scan as listed (without coverage). */
export class ScanListItemDto {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ enum: ['running', 'succeeded', 'failed'] })
  status: ScanStatus;

  @ApiProperty({ enum: ['offline', 'live', 'distributed'] })
  source: ScanSource;

  @ApiProperty({ type: String, nullable: true })
  fleetName: string | null;

  @ApiProperty({ format: 'date-time' })
  startedAt: string;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  finishedAt: string | null;

  @ApiProperty({ type: String, nullable: true, description: 'Why the scan failed' })
  error: string | null;

  @ApiProperty({ type: ScanSummaryDto, nullable: true })
  summary: ScanSummaryDto | null;
}

/** Targets of a distributed scan by state (counts; the total grows while regions list their clusters). */
export class ScanProgressDto {
  @ApiProperty({ description: 'Targets known so far (accounts, regions, clusters)' })
  total: number;

  @ApiProperty({ description: 'Targets read' })
  done: number;

  @ApiProperty({ description: 'Targets that could not be read (coverage gaps)' })
  failed: number;

  @ApiProperty({ description: 'Targets not read yet' })
  pending: number;
}

/** A (check, resource) pair the scan could not evaluate, and why. */
export class SkippedResultDto {
  @ApiProperty({ example: 'CCM_RAM_PERMISSION_GAP' })
  checkId: string;

  @ApiProperty({ type: FindingResourceDto })
  resource: FindingResourceDto;

  @ApiProperty({ description: 'Which data was not read, or which other check reports the resource' })
  reason: string;
}

/** A scan with its coverage, skipped results and settings. */
export class ScanDto extends ScanListItemDto {
  @ApiProperty({ type: [CoverageEntryDto], nullable: true, description: 'Null until the scan succeeded' })
  coverage: CoverageEntryDto[] | null;

  @ApiProperty({
    type: [SkippedResultDto],
    nullable: true,
    description: 'What the scan makes no claim about: (check, resource) pairs not evaluated, with the reason. Null until the scan succeeded',
  })
  skipped: SkippedResultDto[] | null;

  @ApiProperty({ type: 'object', additionalProperties: true, description: 'Audit settings the scan ran with' })
  settings: Record<string, unknown>;

  @ApiProperty({ type: ScanProgressDto, required: false, description: 'Crawl progress; distributed scans only' })
  progress?: ScanProgressDto;
}

/** A page of scans, newest first. */
export class ScanPageDto extends KeysetPageDto<ScanListItemDto>({ items: ScanListItemDto, total: { description: 'Number of scans (all pages)' } }) {
  @ApiProperty({ deprecated: true, description: 'The deprecated `offset` given (0 when paging by `after`)' })
  offset: number;
}

/** Answer of `POST /v1/scans`. */
export class LaunchScanResponseDto {
  @ApiProperty({ format: 'uuid', description: 'Poll GET /v1/scans/{id} for its status' })
  scanId: string;

  @ApiProperty({ description: 'true: a scan of this source was already running and this request joined it (scanId is that scan); false: a new scan' })
  joined: boolean;
}
