/**
 * Progress bars on stderr (cli-progress), shown only when stderr is a terminal so that piped
 * output and CI logs stay clean. stdout is never touched (JSON output stays parseable).
 */
import { SingleBar, Presets } from 'cli-progress';
import type { ScanProgress } from '@app/audit';
import { cliStreams } from './output/cli-streams';

/** A progress reporter for a scan; call `stop()` when done. */
export interface ScanProgressBar {
  update(p: ScanProgress): void;
  stop(): void;
}

/** Create a progress bar (a no-op when stderr is not a TTY or `enabled` is false). */
export function createScanProgressBar(enabled = cliStreams().stderr.isTTY === true): ScanProgressBar {
  if (!enabled) return { update: () => undefined, stop: () => undefined };
  const bar = new SingleBar(
    { stream: cliStreams().stderr, format: ' {phase} [{bar}] {value}/{total} {target}', hideCursor: true, clearOnComplete: true },
    Presets.shades_classic,
  );
  // A spinner until targets are planned (total known and > 1), then a bar whose total never shrinks
  // (targets are discovered while crawling: the total only grows).
  let started = false;
  let total = 0;
  let spin = 0;
  let spinnerShown = false;
  const FRAMES = ['|', '/', '-', '\\'];
  return {
    update(p) {
      const payload = { phase: p.phase.padEnd(7), target: (p.target ?? '').slice(0, 60) };
      if (!started && p.total <= 1) {
        cliStreams().stderr.write(`\r ${FRAMES[spin++ % FRAMES.length]} ${p.phase} ${(p.target ?? '').slice(0, 60)}\u001b[K`);
        spinnerShown = true;
        return;
      }
      total = Math.max(total, p.total, 1);
      if (!started) {
        if (spinnerShown) cliStreams().stderr.write('\r\u001b[K');
        bar.start(total, Math.min(p.done, total), payload);
        started = true;
      } else {
        bar.setTotal(total);
        bar.update(Math.min(p.done, total), payload);
      }
    },
    stop() {
      if (started) bar.stop();
      else if (spinnerShown) cliStreams().stderr.write('\r\u001b[K');
    },
  };
}
