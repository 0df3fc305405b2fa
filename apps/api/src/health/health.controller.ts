import { Controller, Get, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProperty, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import { Public } from '../common/bearer-auth.guard';
import { type Health, HealthService } from './health.service';

/** Body of `GET /healthz`. */
export class HealthDto {
  @ApiProperty({ enum: ['ok', 'unavailable'] })
  status: Health['status'];

  @ApiProperty({ enum: ['up', 'down'] })
  database: Health['database'];
}

/** The part of Express's response the controller sets. */
interface StatusSettable {
  status(code: number): unknown;
}

/** `GET /healthz` (no token): 200 when the database answers, 503 otherwise. */
@ApiTags('health')
@Public()
@Controller('healthz')
export class HealthController {
  constructor(private readonly health: HealthService) {}

  @Get()
  @ApiOperation({ summary: 'Liveness: the database answers' })
  @ApiOkResponse({ type: HealthDto })
  @ApiServiceUnavailableResponse({ type: HealthDto })
  async get(@Res({ passthrough: true }) res: StatusSettable): Promise<HealthDto> {
    const health = await this.health.check();
    res.status(health.status === 'ok' ? 200 : 503);
    return health;
  }
}
