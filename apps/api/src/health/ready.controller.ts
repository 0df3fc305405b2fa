import { Controller, Get, Inject, Optional, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProperty, ApiPropertyOptional, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import { Store } from '@app/store';
import { READINESS_PROBES, type ReadinessProbes } from '../api.constants';
import { Public } from '../common/bearer-auth.guard';

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

/** How long one dependency may take to answer (milliseconds). */
const PROBE_TIMEOUT_MS = 2_000;

async function within<T>(p: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([p, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('timeout')), PROBE_TIMEOUT_MS)))]);
  } finally {
    clearTimeout(timer);
  }
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
  constructor(
    private readonly store: Store,
    @Optional() @Inject(READINESS_PROBES) private readonly probes?: ReadinessProbes,
  ) {}

  @Get()
  @ApiOperation({ summary: 'Readiness: database up, migrations applied, Redis up (when configured)' })
  @ApiOkResponse({ type: ReadinessDto })
  @ApiServiceUnavailableResponse({ type: ReadinessDto })
  async get(@Res({ passthrough: true }) res: { status(code: number): unknown }): Promise<ReadinessDto> {
    const out: ReadinessDto = { status: 'ready', database: 'up', migrations: 'applied', redis: 'not_configured' };
    try {
      await within(this.store.ping());
      const pending = await within(this.store.pendingMigrations());
      if (pending.length > 0) {
        out.migrations = 'pending';
        out.pendingMigrations = pending;
      }
    } catch {
      out.database = 'down';
      out.migrations = 'unknown';
    }
    if (this.probes?.redis) {
      try {
        await within(this.probes.redis());
        out.redis = 'up';
      } catch {
        out.redis = 'down';
      }
    }
    if (out.database !== 'up' || out.migrations !== 'applied' || out.redis === 'down') out.status = 'not_ready';
    res.status(out.status === 'ready' ? 200 : 503);
    return out;
  }
}
