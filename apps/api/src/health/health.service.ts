import { Inject, Injectable, Optional } from '@nestjs/common';
import { Store } from '@app/store';
import { READINESS_PROBES, type ReadinessProbes } from '../api.constants';

/** Result of a health check. */
export interface Health {
  status: 'ok' | 'unavailable';
  database: 'up' | 'down';
}

/** Readiness: each dependency and the overall verdict (body of `GET /readyz`). */
export interface Readiness {
  status: 'ready' | 'not_ready';
  database: 'up' | 'down';
  /** Whether every migration shipped with the code is applied. */
  migrations: 'applied' | 'pending' | 'unknown';
  /** Migrations not applied yet (only when `pending`). */
  pendingMigrations?: string[];
  redis: 'up' | 'down' | 'not_configured';
}

/** How long one dependency may take to answer (milliseconds). */
const PROBE_TIMEOUT_MS = 2_000;

/** `p`, or a rejection after PROBE_TIMEOUT_MS. */
async function within<T>(p: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([p, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('timeout')), PROBE_TIMEOUT_MS)))]);
  } finally {
    clearTimeout(timer);
  }
}

/** Liveness (`/healthz`: does the database answer?) and readiness (`/readyz`: database, migrations, Redis). */
@Injectable()
export class HealthService {
  constructor(
    private readonly store: Store,
    @Optional() @Inject(READINESS_PROBES) private readonly probes?: ReadinessProbes,
  ) {}

  /** `ok` when the database answers `SELECT 1` within 2 s. Never throws. */
  async check(): Promise<Health> {
    try {
      await within(this.store.ping());
      return { status: 'ok', database: 'up' };
    } catch {
      return { status: 'unavailable', database: 'down' };
    }
  }

  /**
   * Ready when PostgreSQL answers, every migration shipped with the code is applied, and Redis answers when one is
   * configured (each within 2 s). Never throws.
   */
  async ready(): Promise<Readiness> {
    const out: Readiness = { status: 'ready', database: 'up', migrations: 'applied', redis: 'not_configured' };
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
    return out;
  }
}
