/**
 * Writes the simulator's answers, applying the transport-level faults (`timeout`, `slow`,
 * `truncate`; see `traffic/fault-injector.service.ts`). Timers it starts are tracked and cleared by
 * {@link ResponseWriter.close}, so a held connection never outlives the simulator.
 */
import type { ServerResponse } from 'node:http';
import { sendJson } from './http.util';

/** How an answer is damaged on the wire. */
export type TransportFault =
  /** Never answer: hold the connection, then drop it. */
  | { kind: 'timeout' }
  /** Answer after `delayMs` milliseconds. */
  | { kind: 'slow'; delayMs: number }
  /** Send the headers (with the full `content-length`) and half the body, then close the connection. */
  | { kind: 'truncate' };

/** One answer of a gateway. */
export interface SimResponse {
  /** HTTP status. */
  status: number;
  /** A JSON value, or a pre-serialised body (JSON unless `headers['content-type']` says otherwise). */
  body: unknown;
  /** Extra headers (they override the JSON content type). */
  headers?: Record<string, string>;
  /** A fault to apply while sending. */
  transport?: TransportFault;
}

/** Default hold of the `timeout` fault, milliseconds (longer than the SDKs' default 10 s read timeout). */
export const DEFAULT_TIMEOUT_HOLD_MS = 30_000;

/** Sends {@link SimResponse}s. */
export class ResponseWriter {
  private readonly timers = new Set<NodeJS.Timeout>();

  /** @param timeoutHoldMs how long a `timeout` fault holds the connection before dropping it, milliseconds */
  constructor(private readonly timeoutHoldMs: number = DEFAULT_TIMEOUT_HOLD_MS) {}

  /** Send an answer (or not, for `timeout`). */
  send(res: ServerResponse, r: SimResponse): void {
    const t = r.transport;
    if (t?.kind === 'timeout') {
      this.later(res, this.timeoutHoldMs, () => res.destroy());
      return;
    }
    if (t?.kind === 'slow') {
      this.later(res, t.delayMs, () => {
        if (!res.destroyed && !res.headersSent) sendJson(res, r.status, r.body, r.headers);
      });
      return;
    }
    if (t?.kind === 'truncate') {
      const text = Buffer.from(typeof r.body === 'string' ? r.body : JSON.stringify(r.body));
      res.writeHead(r.status, {
        'content-type': 'application/json;charset=utf-8',
        'content-length': String(text.length),
        ...r.headers,
      });
      res.write(text.subarray(0, Math.floor(text.length / 2)), () => res.destroy());
      return;
    }
    sendJson(res, r.status, r.body, r.headers);
  }

  /** Cancel pending delayed answers and holds (their connections are dropped by the server's close). */
  close(): void {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }

  /** Run `run` after `ms`, unless the connection closes first. */
  private later(res: ServerResponse, ms: number, run: () => void): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      run();
    }, ms);
    timer.unref();
    this.timers.add(timer);
    res.once('close', () => {
      clearTimeout(timer);
      this.timers.delete(timer);
    });
  }
}
