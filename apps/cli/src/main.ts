/**
 * `fleet-audit`: the command-line entry point (scan, sim, demo, ...).
 * Exit codes: 0 ok, 1 findings at/above --fail-on, 2 bad input or failed scan.
 */
import 'reflect-metadata';
import { Command, CommanderError } from 'commander';
import { EXIT_ERROR, reportError } from './cli-error';
import { demoCommand } from './commands/demo.command';
import { scanCommand } from './commands/scan.command';
import { serveCommand } from './commands/serve.command';
import { checksCommand } from './commands/checks.command';
import { workerCommand } from './commands/worker.command';
import { simCommand } from './commands/sim.command';
import { waiverCommand } from './commands/waiver.command';
import { reportCommand } from './commands/report.command';
import { tokenCommand } from './commands/token.command';

/** Build the whole program; `run` receives each action's exit-code promise. */
export function buildProgram(run: (p: Promise<number>) => void): Command {
  const program = new Command('fleet-audit')
    .description('Audit and capacity planning for Service type=LoadBalancer on Alibaba Cloud ACK fleets')
    .version('0.1.0')
    .showHelpAfterError()
    .exitOverride();
  for (const sub of [scanCommand(run), simCommand(run), demoCommand(run), serveCommand(run), workerCommand(run), checksCommand(run), waiverCommand(run), reportCommand(run), tokenCommand(run)]) {
    sub.copyInheritedSettings(program);
    // Nested subcommands (`waiver add`) too: exit codes and error output like every other command.
    for (const nested of sub.commands) nested.copyInheritedSettings(sub);
    program.addCommand(sub);
  }
  return program;
}

/** Parse argv, run the command, and exit with its code. Never prints a stack trace by default. */
export async function main(argv: string[] = process.argv): Promise<void> {
  let pending: Promise<number> | undefined;
  const program = buildProgram((p) => {
    pending = p;
  });
  try {
    await program.parseAsync(argv);
  } catch (e) {
    if (e instanceof CommanderError) {
      process.exit(e.exitCode === 0 ? 0 : EXIT_ERROR);
    }
    reportError(e);
    process.exit(EXIT_ERROR);
  }
  if (!pending) return;
  try {
    process.exitCode = await pending;
  } catch (e) {
    reportError(e);
    process.exitCode = EXIT_ERROR;
  }
  // Open handles (pools, timers) must not keep a finished command alive, but stdout and stderr must be
  // flushed first: on a pipe (`fleet-audit scan | less`) writes are asynchronous, and exiting at once
  // cut the output at 128 KiB.
  await flushed(process.stdout);
  await flushed(process.stderr);
  process.exit(process.exitCode ?? 0);
}

/** Resolves once everything written to `stream` so far has been handed to the OS (or the stream failed). */
function flushed(stream: NodeJS.WriteStream): Promise<void> {
  return new Promise((resolve) => {
    if (stream.destroyed || !stream.writable) return resolve();
    stream.write('', () => resolve());
  });
}

if (require.main === module) void main();
