/**
 * Resolve when the process receives SIGINT or SIGTERM (for long-running commands: serve, worker, demo, sim).
 *
 * The listeners stay installed after the first signal, while the command drains: removing them restored
 * the default action, so a library that re-raises the signal when it sees no other listener (the
 * signal-exit pattern) killed a draining worker with SIGTERM instead of letting it finish with exit 0
 * (seen in test/cli/worker-logs.e2e-spec.ts). A second Ctrl+C stops at once: the listeners step aside
 * and the signal is raised again for the process's own handler (bin/fleet-audit.js: exit 130); a repeated
 * SIGTERM is ignored (the orchestrator's SIGKILL after its grace period is the hard stop).
 */
export function untilInterrupted(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    let first: NodeJS.Signals | undefined;
    const on = (sig: NodeJS.Signals) => {
      if (first === undefined) {
        first = sig;
        resolve(sig);
        return;
      }
      if (sig === 'SIGINT') {
        process.off('SIGINT', on);
        process.off('SIGTERM', on);
        process.kill(process.pid, 'SIGINT');
      }
    };
    process.on('SIGINT', on);
    process.on('SIGTERM', on);
  });
}
