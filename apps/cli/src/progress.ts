/**
 * Progress bars on stderr (cli-progress), shown only when stderr is a terminal so that piped
 * output and CI logs stay clean. stdout is never touched (JSON output stays parseable).
 */
import { SingleBar, Presets } from 'cli-progress';
import type { ScanProgress } from '@app/audit';

/** A progress reporter for a scan; call `stop()` when done. */
export interface ScanProgressBar {
  update(p: ScanProgress): void;
  stop(): void;
}

/** Create a progress bar (a no-op when stderr is not a TTY or `enabled` is false). */
export function createScanProgressBar(enabled = process.stderr.isTTY === true): ScanProgressBar {
  if (!enabled) return { update: () => undefined, stop: () => undefined };
  const bar = new SingleBar(
    { stream: process.stderr, format: ' {phase} [{bar}] {value}/{total} {target}', hideCursor: true, clearOnComplete: true },
    Presets.shades_classic,
  );
  let started = false;
  return {
    update(p) {
      const payload = { phase: p.phase.padEnd(7), target: (p.target ?? '').slice(0, 60) };
      if (!started) {
        bar.start(Math.max(p.total, 1), p.done, payload);
        started = true;
      } else {
        bar.setTotal(Math.max(p.total, 1));
        bar.update(p.done, payload);
      }
    },
    stop() {
      if (started) bar.stop();
    },
  };
}
