import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ProbeController } from './probe-controller.util';

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
export class ReadyController extends ProbeController<ReadinessDto>({ path: 'readyz', summary: 'Readiness: database up, migrations applied, Redis up (when configured)', body: ReadinessDto, read: (health) => health.ready(), healthy: (r) => r.status === 'ready' }) {}
