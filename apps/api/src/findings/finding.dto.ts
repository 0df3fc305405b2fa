/**
 * Response shapes of the findings endpoints (documented for OpenAPI). Optional domain fields
 * are always present, as null when absent, so clients see one stable shape.
 */
import { CHECK_IDS } from '@app/checks';
import { ApiProperty } from '@nestjs/swagger';
import type { FindingWaiverStatus, ResourceKind, Severity, WaiverCategory } from '@app/domain';

/** The waiver shown with a waived finding (or with one whose waiver expired). */
export class AppliedWaiverDto {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ description: 'Person or team answerable for the accepted risk' })
  owner: string;

  @ApiProperty()
  reason: string;

  @ApiProperty({ enum: ['accepted-risk', 'mitigated', 'false-positive'] })
  category: WaiverCategory;

  @ApiProperty({ type: String, nullable: true })
  ticket: string | null;

  @ApiProperty({ format: 'date-time' })
  expiresAt: string;
}

/**
 * The key of a resource: kind and id, account, region and cluster (the resource of a finding, of a quota sample).
 * Not a schema of its own: its subclasses are.
 */
export abstract class ResourceKeyDto {
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

/** The resource a finding is about. */
export class FindingResourceDto extends ResourceKeyDto {
  @ApiProperty({ example: 'lb-bp1abcdefgh', description: 'Cloud id, or namespace/name for Kubernetes objects' })
  declare id: string;

  @ApiProperty({
    type: String,
    nullable: true,
    example: 'storefront',
    description: "The cluster's name (cluster.json / DescribeClusterDetail `name`); null without a cluster, and for findings stored before cluster names were",
  })
  clusterName: string | null;

  @ApiProperty({
    type: String,
    nullable: true,
    example: 'payments',
    description: "The team owning the cluster (its team tag, or the audit settings' owners); null without a cluster, for an unowned one, and for rows stored before teams were",
  })
  team: string | null;

  @ApiProperty({ type: String, nullable: true })
  namespace: string | null;

  @ApiProperty({ type: String, nullable: true })
  name: string | null;
}

/** One finding with its first and last sighting. */
export class FindingDto {
  @ApiProperty({ enum: [...CHECK_IDS], example: 'CLB_BACKEND_QUOTA', description: 'Check id (docs/checks.md)' })
  checkId: string;

  @ApiProperty({ enum: ['info', 'warning', 'critical'] })
  severity: Severity;

  @ApiProperty({ type: FindingResourceDto })
  resource: FindingResourceDto;

  @ApiProperty()
  message: string;

  @ApiProperty()
  remediation: string;

  @ApiProperty({ description: 'Citations: ACK doc, CCM source file, API reference' })
  source: string;

  @ApiProperty({ description: 'Stable hash of check id + resource key (32 hex chars)' })
  fingerprint: string;

  @ApiProperty({ type: Number, nullable: true, description: 'Measured use (count)' })
  used: number | null;

  @ApiProperty({ type: Number, nullable: true, description: 'Quota or limit (count)' })
  limit: number | null;

  @ApiProperty({ type: Number, nullable: true, description: 'used / limit as a fraction (0.8 = 80 %)' })
  ratio: number | null;

  @ApiProperty({ type: 'object', additionalProperties: true, nullable: true, description: 'Further measured figures' })
  figures: Record<string, unknown> | null;

  @ApiProperty({ format: 'date-time', description: 'Start of the first succeeded scan that reported this fingerprint' })
  firstSeenAt: string;

  @ApiProperty({ format: 'date-time', description: 'Start of the latest succeeded scan that reported this fingerprint' })
  lastSeenAt: string;

  @ApiProperty({
    enum: ['open', 'waived', 'waiver-expired'],
    description: 'Waivers applied at read time: waived (an active waiver covers it; severity unchanged), waiver-expired (its waiver expired: it counts again), open',
  })
  status: FindingWaiverStatus;

  @ApiProperty({ type: AppliedWaiverDto, nullable: true, description: 'The active (or latest expired) waiver covering the finding' })
  waiver: AppliedWaiverDto | null;
}

/** A page of findings of one scan. */
export class FindingPageDto {
  @ApiProperty({ type: [FindingDto] })
  items: FindingDto[];

  @ApiProperty({
    type: Number,
    nullable: true,
    description: 'Findings matching the filters (count, all pages); counted on pages read without a cursor, null on pages read with one (the first page had it)',
  })
  total: number | null;

  @ApiProperty()
  limit: number;

  @ApiProperty()
  offset: number;

  @ApiProperty({ type: String, nullable: true, format: 'uuid', description: 'Scan read; null when no scan succeeded yet' })
  scanId: string | null;

  @ApiProperty({
    type: String,
    nullable: true,
    description: 'Pass as `cursor` (with the same filters) for the next page; null on the last page',
  })
  nextCursor: string | null;
}
