/**
 * `fleet-audit`: the command-line entry point (scan, sim, demo, ...).
 * Exit codes: 0 ok, 1 findings at/above --fail-on, 2 bad input or failed scan, 3 transient failure
 * (from the error's libs/errors `permanent` flag: `exitCodeOf` in cli-error.ts), 130 interrupted.
 */
import 'reflect-metadata';
import { Command, CommanderError } from 'commander';
import { EXIT_ERROR, reportError } from './cli-error';
import { reloadCliConfig } from './cli-config';
import { cliStreams, withCliStreams, type CliStream, type CliStreams } from './output/cli-streams';
import { demoCommand } from './commands/demo.command';
import { scanCommand } from './commands/scan.command';
import { serveCommand } from './commands/serve.command';
import { checksCommand } from './commands/checks.command';
import { workerCommand } from './commands/worker.command';
import { simCommand } from './commands/sim.command';
import { waiverCommand } from './commands/waiver.command';
import { reportCommand } from './commands/report.command';
import { tokenCommand } from './commands/token.command';
import { forecastCommand } from './commands/forecast.command';
import { quotaCommand } from './commands/quota.command';
import { migrateCommand } from './commands/migrate.command';
import { retentionCommand } from './commands/retention.command';
import { iamPolicyCommand } from './commands/iam-policy.command';
import { rbacCommand } from './commands/rbac.command';
import { dumpCommand } from './commands/dump.command';
import { planCommand } from './commands/plan.command';

/** Examples and exit codes printed after `fleet-audit --help`. */
export const PROGRAM_HELP_FOOTER = `
Examples:
  fleet-audit demo                                   # simulated fleet, live scan, API on :3000
  fleet-audit scan --fleet examples/fleets/sample    # offline audit of a fleet directory
  fleet-audit scan --config scan.yaml --format sarif -o fleet-audit.sarif
  fleet-audit checks                                 # the check catalogue

Exit codes:
  0    ok
  1    scan: a finding at or above --fail-on
  2    bad input (flag, file, config) or a failed scan
  3    a transient failure (database unavailable, scan queue full, wait ended): retry later
  130  interrupted (Ctrl+C)

Environment variables are listed with the options that read them, as "(env: NAME)".
Set NO_COLOR=1 for uncoloured output and FLEET_AUDIT_DEBUG=1 for stack traces.`;

/** Exit code after Ctrl+C / SIGINT (128 + signal 2, the shell convention). */
export const EXIT_INTERRUPTED = 130;

/**
 * Process-wide terminal behaviour of the CLI run as a process (bin/fleet-audit.js installs it; an in-process
 * `main()` call does not):
 * - EPIPE on stdout (`fleet-audit scan | head`): the reader is gone, so stop quietly with exit 0;
 * - SIGINT (Ctrl+C) with no command-specific handler: one line on stderr, exit 130 (a command that
 *   shuts down gracefully, such as `serve`, installs its own and this one steps aside).
 * @param exit ends the process with a code (bin/fleet-audit.js passes `process.exit`; it is the only caller)
 */
export function installTerminalHandlers(exit: (code: number) => void): void {
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') return exit(0);
    exit(reportError(e));
  });
  const onSigint = () => {
    if (process.listenerCount('SIGINT') > 1) return;
    if (process.stderr.isTTY) process.stderr.write('\u001b[?25h\n');
    process.stderr.write('fleet-audit: interrupted\n');
    exit(EXIT_INTERRUPTED);
  };
  process.on('SIGINT', onSigint);
}

/** Help width on `stream`: its columns when it is a terminal, else 80 (commander's default). */
function helpWidthOf(stream: CliStream): number {
  return stream.isTTY && stream.columns ? stream.columns : 80;
}

/** Build the whole program; `run` receives each action's exit-code promise. */
export function buildProgram(run: (p: Promise<number>) => void): Command {
  const program = new Command('fleet-audit')
    .description('Audit and capacity planning for Service type=LoadBalancer on Alibaba Cloud ACK fleets')
    .version('0.1.0')
    .showHelpAfterError('(run "fleet-audit --help" or "fleet-audit <command> --help" for usage)')
    .exitOverride()
    // One line per error ("fleet-audit: error: unknown option '--formt' (Did you mean --format?)"),
    // then the hint above; never the whole help.
    .configureOutput({
      writeOut: (str) => cliStreams().stdout.write(str),
      writeErr: (str) => cliStreams().stderr.write(str),
      // Commander's own rule on the streams of this call: a terminal's width, else 80 columns.
      getOutHelpWidth: () => helpWidthOf(cliStreams().stdout),
      getErrHelpWidth: () => helpWidthOf(cliStreams().stderr),
      outputError: (str, write) => write(str.startsWith('error: ') ? `fleet-audit: ${str.replace(/\n(?=\(Did you mean)/, ' ')}` : str),
    })
    .addHelpText('after', PROGRAM_HELP_FOOTER);
  for (const sub of [scanCommand(run), simCommand(run), demoCommand(run), serveCommand(run), workerCommand(run), checksCommand(run), waiverCommand(run), reportCommand(run), tokenCommand(run), migrateCommand(run), retentionCommand(run), iamPolicyCommand(run), rbacCommand(run), forecastCommand(run), quotaCommand(run), planCommand(run), dumpCommand(run)]) {
    sub.copyInheritedSettings(program);
    // Nested subcommands (`waiver add`) too: exit codes and error output like every other command.
    for (const nested of sub.commands) nested.copyInheritedSettings(sub);
    program.addCommand(sub);
  }
  return program;
}

/**
 * Parse argv and run the command; resolves with its exit code (0, 1 findings, 2 bad input or failed scan,
 * 3 transient, see the header). Everything the command prints goes to `streams` (default the process's own);
 * never a stack trace by default. The variables are validated again on every call (libs/config), so a test can
 * run it in-process with its own environment. It never exits the process: bin/fleet-audit.js exits with the code
 * once stdout and stderr are flushed.
 * @param argv `process.argv`-shaped: node, script, then the arguments
 * @param streams where the command writes (see output/cli-streams.ts)
 */
export async function main(argv: string[] = process.argv, streams: CliStreams = cliStreams()): Promise<number> {
  return withCliStreams(streams, async () => {
    let pending: Promise<number> | undefined;
    try {
      // Every declared variable the CLI reads, validated at boot (libs/config), before any command is built:
      // a bad one is one line naming it and the expected shape, exit 2.
      reloadCliConfig();
      await buildProgram((p) => {
        pending = p;
      }).parseAsync(argv);
    } catch (e) {
      if (e instanceof CommanderError) return e.exitCode === 0 ? 0 : EXIT_ERROR;
      return reportError(e);
    }
    if (!pending) return 0;
    try {
      return await pending;
    } catch (e) {
      return reportError(e);
    }
  });
}
