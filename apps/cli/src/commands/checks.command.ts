/**
 * `fleet-audit checks`: list the check catalogue (id, default severity, category, title) from the registry,
 * as a table, as JSON (full metadata: description, remediation, sources, settings) or as the Markdown of
 * `docs/checks.md` (`npm run docs:checks` writes it with `--format markdown`).
 *
 * `@app/checks` is imported directly: it depends only on `@app/domain` (no NestJS, SDKs or database), so it
 * does not slow down `fleet-audit --help`.
 */
import { helpFooter } from './help-text.util';
import { Command, Option } from 'commander';
import {
  CHECK_CATEGORY_TITLES,
  checkCatalogue,
  renderCheckCatalogueMarkdown,
  type CheckCategory,
  type CheckSummary,
} from '@app/checks';
import { EXIT_OK } from '../cli-error';
import { cliStreams } from '../output/cli-streams';
import { tableStyleFor } from '../output/table.util';
import { wrapText } from '../output/text-wrap.util';

/** Output formats of `checks`. */
export type ChecksFormat = 'table' | 'json' | 'markdown';

/** Options of `checks` after parsing. */
export interface ChecksCommandOptions {
  format: ChecksFormat;
  /** Only this category (checks.md section). */
  category?: CheckCategory;
}

/**
 * The catalogue as aligned text columns: id, severity, category, title; one check per line, in catalogue
 * order, followed by a count. Titles wrap under their column to fit `width` (columns; default: a terminal's
 * width, else 120), so no line is wider than the terminal.
 */
export function renderChecksTable(checks: readonly CheckSummary[], width: number = tableStyleFor().width): string {
  const header = { id: 'ID', severity: 'SEVERITY', category: 'CATEGORY', title: 'TITLE' };
  const rows = [
    header,
    ...checks.map((c) => ({ id: c.id, severity: c.severity, category: c.category, title: c.title })),
  ];
  const w = (k: 'id' | 'severity' | 'category') => Math.max(...rows.map((r) => r[k].length));
  const widths = { id: w('id'), severity: w('severity'), category: w('category') };
  const indent = widths.id + widths.severity + widths.category + 6;
  const titleWidth = Math.max(20, width - indent);
  const lines = rows.flatMap((r) => {
    const [first, ...rest] = wrapText(r.title, titleWidth);
    return [
      `${r.id.padEnd(widths.id)}  ${r.severity.padEnd(widths.severity)}  ${r.category.padEnd(widths.category)}  ${first ?? ''}`.trimEnd(),
      ...rest.map((l) => `${' '.repeat(indent)}${l}`),
    ];
  });
  lines.push('', `${checks.length} checks. Details: fleet-audit checks --format json, or docs/checks.md.`);
  return `${lines.join('\n')}\n`;
}

/** Render the catalogue in a format (pure; the caller writes it). */
export function renderChecks(opts: ChecksCommandOptions): string {
  const all = checkCatalogue();
  const checks = opts.category ? all.filter((c) => c.category === opts.category) : all;
  if (opts.format === 'json') return `${JSON.stringify(checks, null, 2)}\n`;
  if (opts.format === 'markdown') return renderCheckCatalogueMarkdown();
  return renderChecksTable(checks);
}

/** Run the checks command: print the catalogue; returns the exit code (always 0). */
export async function runChecksCommand(opts: ChecksCommandOptions): Promise<number> {
  cliStreams().stdout.write(renderChecks(opts));
  return EXIT_OK;
}

/** Build the `checks` subcommand. */
export function checksCommand(run: (p: Promise<number>) => void): Command {
  return new Command('checks')
    .description('list the check catalogue: id, default severity, category and title of every check')
    .addOption(
      new Option('--format <format>', 'output format (markdown: the text of docs/checks.md, whole catalogue)')
        .choices(['table', 'json', 'markdown'])
        .default('table'),
    )
    .addOption(
      new Option('--category <category>', 'only the checks of one catalogue section').choices(
        Object.keys(CHECK_CATEGORY_TITLES),
      ),
    )
    .addHelpText('after', helpFooter(['fleet-audit checks', 'fleet-audit checks --category quota', 'fleet-audit checks --format json | jq \'.[].id\'']))
    .action((o: ChecksCommandOptions) => run(runChecksCommand(o)));
}
