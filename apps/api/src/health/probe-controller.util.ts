import { Controller, Get, Res, type Type } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import { Public } from '../common/bearer-auth.guard';
import { HealthService } from './health.service';

/** The part of Express's response a probe sets. */
interface StatusSettable {
  status(code: number): unknown;
}

/** What one probe endpoint declares: its path and summary, its body and how it reads and judges it. */
export interface ProbeSpec<T> {
  /** Route path (`healthz`). */
  path: string;
  /** OpenAPI summary. */
  summary: string;
  /** The body class (OpenAPI schema of both the 200 and the 503 answer). */
  body: Type<T>;
  /** Read the body from the health service. */
  read: (health: HealthService) => Promise<T>;
  /** Whether the body means 200 (else 503). */
  healthy: (body: T) => boolean;
}

/**
 * The base class of a probe controller (`GET /healthz`, `GET /readyz`; no token, OpenAPI tag `health`): the body is
 * the probe's answer, with status 200 when it is healthy and 503 otherwise. A probe controller extends it, so its
 * own class name names the controller (`export class HealthController extends ProbeController({...}) {}`).
 */
export function ProbeController<T>(spec: ProbeSpec<T>): Type<{ get(res: StatusSettable): Promise<T> }> {
  @ApiTags('health')
  @Public()
  @Controller(spec.path)
  class Probe {
    constructor(private readonly health: HealthService) {}

    @Get()
    @ApiOperation({ summary: spec.summary })
    @ApiOkResponse({ type: spec.body })
    @ApiServiceUnavailableResponse({ type: spec.body })
    async get(@Res({ passthrough: true }) res: StatusSettable): Promise<T> {
      const body = await spec.read(this.health);
      res.status(spec.healthy(body) ? 200 : 503);
      return body;
    }
  }
  return Probe;
}
