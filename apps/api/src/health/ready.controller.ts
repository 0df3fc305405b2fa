import { Controller, Get, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProperty, ApiPropertyOptional, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import { Public } from '../common/bearer-auth.guard';
import { HealthService } from './health.service';

/** Body of `GET /readyz`: each dependency and the overall verdict. */
export class ReadinessDto {
  @ApiProperty({ enum: ['ready', 'not_ready'] })
  status: 'ready' | 'not_ready';

  @ApiProperty({ enum: ['up', 'down'] })
  database: 'up' | 'down';

  @ApiProperty({ enum: ['applied', 'pending', 'unknown'], description: 'whether every migration in the image is applied' })
  migrations: 'applied' | 'pending' | 'unknown';

  @ApiPropertyOptional({ type: [String], description: 'migrations not applied yet' })
  pendingMigrations?: string[];

  @ApiPropertyOptional({ enum: ['up', 'down', 'not_configured'] })
  redis: 'up' | 'down' | 'not_configured';
}

/**
 * `GET /readyz` (no token): 200 when the process can serve traffic: PostgreSQL answers, every
 * migration shipped with the code is applied, and Redis answers when one is configured; 503 with
 * the failing part otherwise. `/healthz` stays the liveness probe (database only).
 */
@ApiTags('health')
@Public()
@Controller('readyz')
export class ReadyController {
  constructor(private readonly health: HealthService) {}

  @Get()
  @ApiOperation({ summary: 'Readiness: database up, migrations applied, Redis up (when configured)' })
  @ApiOkResponse({ type: ReadinessDto })
  @ApiServiceUnavailableResponse({ type: ReadinessDto })
  async get(@Res({ passthrough: true }) res: { status(code: number): unknown }): Promise<ReadinessDto> {
    const out = await this.health.ready();
    res.status(out.status === 'ready' ? 200 : 503);
    return out;
  }
}
