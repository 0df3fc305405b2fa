import { gunzipSync, gzipSync } from 'node:zlib';
import type { Pool, PoolClient } from 'pg';
import type { FleetSnapshot } from '@app/domain';
import { toIso } from './sql.util';

/** A stored snapshot with the scan it belongs to. */
export interface StoredSnapshot {
  scanId: string;
  /** Observation time of the scan (its start, ISO 8601). */
  observedAt: string;
  snapshot: FleetSnapshot;
}

/**
 * Fleet snapshots of succeeded scans (table `scan_snapshots`, gzip-compressed JSON): what the what-if and
 * headroom forecasts run on when given a database. Writes happen only inside `ScanRepository.complete`.
 */
export class ScanSnapshotRepository {
  /** @param pool the store's connection pool */
  constructor(private readonly pool: Pool) {}

  /**
   * Store (or replace) the snapshot of a scan.
   * @param client the transaction's client
   */
  async replaceForScan(client: PoolClient, scanId: string, snapshot: FleetSnapshot): Promise<void> {
    const raw = Buffer.from(JSON.stringify(snapshot));
    await client.query(
      `INSERT INTO scan_snapshots (scan_id, snapshot, bytes_raw) VALUES ($1, $2, $3)
       ON CONFLICT (scan_id) DO UPDATE SET snapshot = EXCLUDED.snapshot, bytes_raw = EXCLUDED.bytes_raw`,
      [scanId, gzipSync(raw), raw.length],
    );
  }

  /** The snapshot of the succeeded scan that started last among those that stored one, or null. */
  async latest(): Promise<StoredSnapshot | null> {
    const { rows } = await this.pool.query<{ scan_id: string; started_at: Date | string; snapshot: Buffer }>(
      `SELECT s.id AS scan_id, s.started_at, n.snapshot
         FROM scans s JOIN scan_snapshots n ON n.scan_id = s.id
        WHERE s.status = 'succeeded'
        ORDER BY s.started_at DESC, s.id DESC LIMIT 1`,
    );
    const row = rows[0];
    if (!row) return null;
    return { scanId: row.scan_id, observedAt: toIso(row.started_at), snapshot: JSON.parse(gunzipSync(row.snapshot).toString('utf8')) as FleetSnapshot };
  }
}
