import { Injectable } from '@nestjs/common';
import { Store } from '@app/store';

/** Result of a health check. */
export interface Health {
  status: 'ok' | 'unavailable';
  database: 'up' | 'down';
}

/** How long the database may take to answer a health check (milliseconds). */
const PING_TIMEOUT_MS = 2_000;

/** Liveness and readiness: does the database answer? */
@Injectable()
export class HealthService {
  constructor(private readonly store: Store) {}

  /** `ok` when the database answers `SELECT 1` within 2 s. Never throws. */
  async check(): Promise<Health> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('timeout')), PING_TIMEOUT_MS);
    });
    try {
      await Promise.race([this.store.ping(), timeout]);
      return { status: 'ok', database: 'up' };
    } catch {
      return { status: 'unavailable', database: 'down' };
    } finally {
      clearTimeout(timer);
    }
  }
}
