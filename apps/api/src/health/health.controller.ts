import { ApiProperty } from '@nestjs/swagger';
import type { Health } from './health.service';
import { ProbeController } from './probe-controller.util';

/** Body of `GET /healthz`. */
export class HealthDto {
  @ApiProperty({ enum: ['ok', 'unavailable'] })
  status: Health['status'];

  @ApiProperty({ enum: ['up', 'down'] })
  database: Health['database'];
}

/** `GET /healthz` (no token): 200 when the database answers, 503 otherwise. */
export class HealthController extends ProbeController<HealthDto>({ path: 'healthz', summary: 'Liveness: the database answers', body: HealthDto, read: (health) => health.check(), healthy: (h) => h.status === 'ok' }) {}
