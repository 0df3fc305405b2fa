import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiBadRequestResponse,
  ApiBearerAuth,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiServiceUnavailableResponse,
  ApiTags,
  ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import { ErrorResponseDto } from '../common/error-response.dto';
import { scanIdSchema } from '../common/request.schemas';
import { ApiZodBody, ApiZodQuery } from '../common/zod-openapi.util';
import { ZodValidationPipe } from '../common/zod-validation.pipe';
import { LaunchScanResponseDto, ScanDto, ScanPageDto } from './scan.dto';
import { launchScanBodySchema, listScansQuerySchema, type LaunchScanBody, type ListScansQuery } from './scans.schemas';
import { ScansService } from './scans.service';

/** `/v1/scans`: list, read and launch scans. */
@ApiTags('scans')
@ApiBearerAuth('bearer')
@ApiUnauthorizedResponse({ type: ErrorResponseDto, description: 'Missing or invalid bearer token' })
@ApiBadRequestResponse({ type: ErrorResponseDto, description: 'Invalid query, path or body' })
@Controller('v1/scans')
export class ScansController {
  constructor(private readonly scans: ScansService) {}

  @Get()
  @ApiOperation({ summary: 'List scans, newest first' })
  @ApiZodQuery(listScansQuerySchema)
  @ApiOkResponse({ type: ScanPageDto })
  list(@Query(new ZodValidationPipe(listScansQuerySchema, 'query')) query: ListScansQuery): Promise<ScanPageDto> {
    return this.scans.list(query);
  }

  @Get(':id')
  @ApiOperation({ summary: 'One scan with its coverage' })
  @ApiParam({ name: 'id', schema: { type: 'string', format: 'uuid' } })
  @ApiOkResponse({ type: ScanDto })
  @ApiNotFoundResponse({ type: ErrorResponseDto })
  get(@Param('id', new ZodValidationPipe(scanIdSchema, 'path.id')) id: string): Promise<ScanDto> {
    return this.scans.get(id);
  }

  @Post()
  @HttpCode(202)
  @ApiOperation({ summary: 'Start a scan of a configured source; answers before the scan ends' })
  @ApiZodBody(launchScanBodySchema)
  @ApiAcceptedResponse({ type: LaunchScanResponseDto })
  @ApiServiceUnavailableResponse({ type: ErrorResponseDto, description: 'This API process cannot start scans' })
  launch(@Body(new ZodValidationPipe(launchScanBodySchema, 'body')) body: LaunchScanBody): Promise<LaunchScanResponseDto> {
    return this.scans.launch(body);
  }
}
