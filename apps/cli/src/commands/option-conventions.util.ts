/**
 * Conventions every command shares:
 * - one format vocabulary: `table`, `json`, `markdown`, `csv`, `html`, `sarif`, `junit`; the short names
 *   `md` (markdown) and `text` (table) are accepted everywhere as aliases;
 * - an explicit flag wins over an environment default: `--fleet DIR` or `--config FILE` given on the
 *   command line is the source even when `DATABASE_URL` is exported (as the README says to).
 */
import { InvalidArgumentError, Option, type Command } from 'commander';
import { CliUsageError } from '../cli-error';

/** Aliases of format names, accepted by every `--format`. */
const FORMAT_ALIASES: Readonly<Record<string, string>> = { md: 'markdown', text: 'table' };

/**
 * A `--format <format>` option over `formats` (canonical names), accepting the aliases too.
 * @param formats the formats this command writes, canonical names, first = default unless `def`
 * @returns the option; its parsed value is always a canonical name
 */
export function formatOption<F extends string>(formats: readonly F[], def: F = formats[0], description = 'output format'): Option {
  return new Option('--format <format>', `${description}: ${formats.join(', ')}`)
    .argParser((value: string): F => {
      const name = (FORMAT_ALIASES[value] ?? value) as F;
      if (!formats.includes(name)) throw new InvalidArgumentError(`expected one of ${formats.join(', ')}`);
      return name;
    })
    .default(def);
}

/**
 * Options whose value came from the environment (commander's `.env(...)`) are dropped when one of the
 * `explicit` options was given on the command line: `forecast headroom --fleet DIR` with `DATABASE_URL`
 * exported reads DIR instead of refusing "give exactly one of ...".
 * @param options the parsed options
 * @param cmd the command (its value sources)
 * @param fromEnv the options that may come from the environment (`databaseUrl`)
 * @param explicit the options that name the source when given (`fleet`, `config`)
 * @returns `options` without the environment-sourced ones that an explicit option overrides
 */
export function explicitFlagsWin<T extends object>(options: T, cmd: Command, fromEnv: readonly (keyof T & string)[], explicit: readonly (keyof T & string)[]): T {
  const given = explicit.some((k) => options[k] !== undefined && cmd.getOptionValueSource(k) === 'cli');
  if (!given) return options;
  const out = { ...options };
  for (const k of fromEnv) if (cmd.getOptionValueSource(k) === 'env') delete out[k];
  return out;
}

/**
 * The `--now <iso-time>` of the planning commands (forecast, plan, quota), parsed; undefined when not given.
 * @throws CliUsageError naming the flag and the value when it is not an ISO 8601 time
 */
export function parseNow(text: string | undefined): Date | undefined {
  if (text === undefined) return undefined;
  const d = new Date(text);
  if (Number.isNaN(d.getTime())) throw new CliUsageError(`--now: expected an ISO 8601 time, got "${text}"`);
  return d;
}
