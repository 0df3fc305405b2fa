/** Response shapes of `GET /v1/scans/{id}/diff` (documented for OpenAPI). */
import { Field, Int, ObjectType } from '@nestjs/graphql';
import { ApiProperty } from '@nestjs/swagger';
import type { FindingChange } from '@app/store';
import type { Severity } from '@app/domain';
import { FindingResourceDto } from '../findings/finding.dto';

/**
 * Fingerprints per change kind (counts over the token's accounts and the filters, every page): one class for both
 * transports, the REST schema `ScanDiffCountsDto` and the GraphQL type `DiffCounts` (ScanDiff.counts).
 */
@ObjectType('DiffCounts')
export class ScanDiffCountsDto {
  @ApiProperty({ example: 3, description: 'Only in the scan' })
  @Field(() => Int)
  new: number;

  @ApiProperty({ example: 1, description: 'Only in the baseline' })
  @Field(() => Int)
  resolved: number;

  @ApiProperty({ example: 40, description: 'In both, same severity' })
  @Field(() => Int)
  persisting: number;

  @ApiProperty({ example: 2, description: 'In both, another severity' })
  @Field(() => Int)
  severityChanged: number;
}

/** One fingerprint of the diff. */
export class ScanDiffItemDto {
  @ApiProperty({ example: '3f2a9c0d4b5e6f708192a3b4c5d6e7f8', description: 'Stable hash of check id + resource key (32 hex chars)' })
  fingerprint: string;

  @ApiProperty({ enum: ['new', 'resolved', 'persisting', 'severityChanged'], example: 'new' })
  change: FindingChange;

  @ApiProperty({ example: 'CLB_BACKEND_QUOTA' })
  checkId: string;

  @ApiProperty({ enum: ['info', 'warning', 'critical'], nullable: true, type: String, description: 'Severity in the scan; null when resolved' })
  severity: Severity | null;

  @ApiProperty({ enum: ['info', 'warning', 'critical'], nullable: true, type: String, description: 'Severity in the baseline; null when new' })
  previousSeverity: Severity | null;

  @ApiProperty({ type: FindingResourceDto, description: 'The resource (as in the baseline when resolved)' })
  resource: FindingResourceDto;

  @ApiProperty({ example: 'CLB lb-bp1abc uses 190 of 200 backend servers (95 %)' })
  message: string;
}

/** A page of a scan diff. */
export class ScanDiffPageDto {
  @ApiProperty({ format: 'uuid' })
  scanId: string;

  @ApiProperty({ format: 'uuid', description: 'The baseline scan' })
  againstScanId: string;

  @ApiProperty({ type: ScanDiffCountsDto })
  counts: ScanDiffCountsDto;

  @ApiProperty({ type: [ScanDiffItemDto], description: 'In fingerprint order' })
  items: ScanDiffItemDto[];

  @ApiProperty({ type: String, nullable: true, example: 'WyIzZjJhOWMwZDRiNWU2ZjcwODE5MmEzYjRjNWQ2ZTdmOCJd', description: 'Pass as `after` for the next page; null on the last page' })
  nextCursor: string | null;
}
