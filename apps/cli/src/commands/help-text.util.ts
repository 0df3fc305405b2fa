/**
 * The text after every `fleet-audit <command> --help`: examples, environment variables not bound to an
 * option (options that read one show it as "(env: NAME)", the one way the help names variables), and
 * the exit codes.
 */

/** Exit codes common to every command (scan adds 1 for findings). */
const COMMON_EXIT_CODES = [
  '  0    ok',
  '  2    bad input (flag, file, config) or a failure',
  '  3    a transient failure (database unavailable, queue full): retry later',
  '  130  interrupted (Ctrl+C)',
];

/**
 * Build a help footer.
 * @param examples command lines, each optionally followed by `  # comment`
 * @param env variables the command reads that no option shows, as `NAME  meaning`
 * @param exitCodes extra exit-code lines (`  1    ...`), merged into the common ones
 */
export function helpFooter(examples: readonly string[], env: readonly string[] = [], exitCodes: readonly string[] = []): string {
  const codes = [...COMMON_EXIT_CODES, ...exitCodes].sort((a, b) => Number(a.trim().split(/\s/)[0]) - Number(b.trim().split(/\s/)[0]));
  return [
    '',
    'Examples:',
    ...examples.map((e) => `  ${e}`),
    ...(env.length > 0 ? ['', 'Environment (also):', ...env.map((e) => `  ${e}`)] : []),
    '',
    'Exit codes:',
    ...codes,
  ].join('\n');
}
