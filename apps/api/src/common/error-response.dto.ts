import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

/** One validation problem in an error response. */
export class ValidationIssueDto {
  @ApiProperty({ example: 'query.limit' })
  path: string;

  @ApiProperty({ example: 'must be an integer from 1 to 1000' })
  message: string;
}

/** Body of every error response (4xx and 5xx). */
export class ErrorResponseDto {
  @ApiProperty({ example: 400, description: 'HTTP status code' })
  statusCode: number;

  @ApiProperty({
    example: 'VALIDATION_FAILED',
    description: 'Stable error code: VALIDATION_FAILED, UNAUTHENTICATED, FORBIDDEN, RATE_LIMITED, SCAN_QUEUE_FULL, FORECAST_TOO_LARGE, NOT_FOUND, SCAN_PRUNED, CONFLICT, INVALID_ARGUMENT, UNAVAILABLE, SCAN_LAUNCH_UNAVAILABLE, TOKENS_DISABLED, HTTP_ERROR, INTERNAL',
  })
  error: string;

  @ApiProperty({ example: 'Invalid query: limit: must be an integer from 1 to 1000' })
  message: string;

  @ApiPropertyOptional({ type: [ValidationIssueDto] })
  issues?: ValidationIssueDto[];

  @ApiPropertyOptional({ format: 'uuid', description: 'SCAN_PRUNED (410): the scan retention pruned' })
  scanId?: string;

  @ApiPropertyOptional({ format: 'date-time', description: 'SCAN_PRUNED (410): when retention pruned the scan (its findings were deleted, its quota samples kept)' })
  prunedAt?: string;

  @ApiPropertyOptional({
    type: 'object',
    nullable: true,
    description: 'SCAN_PRUNED (410): the retention policy it was pruned under {rawHours, dailyDays, weeklyWeeks, quotaDays}; null when not recorded',
    additionalProperties: true,
  })
  policy?: { rawHours: number; dailyDays: number; weeklyWeeks: number | null; quotaDays: number } | null;
}
