/**
 * Bordered tables of the CLI (cli-table3) that fit the terminal and colour only where colour is wanted
 *: cli-table3 colours the header red and the borders grey by default, also when
 * piped and with NO_COLOR, and never wraps, so a forecast table was up to 266 columns wide.
 */
import Table from 'cli-table3';
import { colourWanted } from './scan-output.renderer';
import { wrapText } from './text-wrap.util';
import { cliStreams } from './cli-streams';
import { cliConfig } from '../cli-config';
import { terminalText } from '@app/domain';

/** How a table is drawn: total width in columns (characters) and whether ANSI colour is used. */
export interface TableStyle {
  width: number;
  color: boolean;
}

/** Width of a table written somewhere that is not a terminal (a file, a pipe, CI logs), columns. */
export const PIPED_TABLE_WIDTH = 120;
/** No column is squeezed below this many characters of content. */
const MIN_COLUMN = 6;

/**
 * The style for output written to `stream`: its width on a terminal (`columns`), else
 * {@link PIPED_TABLE_WIDTH}; colour only on a terminal and never with `NO_COLOR`.
 */
export function tableStyleFor(stream: { isTTY?: boolean; columns?: number } = cliStreams().stdout): TableStyle {
  return {
    width: stream.isTTY === true && stream.columns ? stream.columns : PIPED_TABLE_WIDTH,
    color: colourWanted(stream, cliConfig().cli.noColor),
  };
}

/** Display width of a cell's longest line (characters; cells hold no ANSI codes). */
function cellWidth(text: string): number {
  return Math.max(0, ...text.split('\n').map((l) => l.length));
}

/**
 * Content widths that fit `total` columns: each column its natural width, then the widest ones shrunk
 * in turn (never below {@link MIN_COLUMN}) until the table fits; a table that cannot fit even so keeps
 * the minimum widths.
 * @param natural each column's longest cell (characters)
 * @param total the table's width budget, borders and one space of padding each side included
 */
export function fitColumnWidths(natural: readonly number[], total: number, floors: readonly number[] = []): number[] {
  const widths = natural.map((w) => Math.max(w, 1));
  // A column is not squeezed below its floor (its longest word: an id must stay on one line) unless
  // every column is at its floor.
  const floorOf = (i: number) => Math.min(widths[i], Math.max(MIN_COLUMN, floors[i] ?? MIN_COLUMN));
  // Each column adds 2 padding characters and one border; the table adds the closing border.
  const budget = total - (widths.length * 3 + 1);
  let sum = widths.reduce((a, b) => a + b, 0);
  while (sum > budget) {
    let widest = -1;
    for (let i = 0; i < widths.length; i += 1) if (widths[i] > floorOf(i) && (widest < 0 || widths[i] > widths[widest])) widest = i;
    if (widest < 0) break;
    // Shrink the widest column down to the next widest (or its floor), at most by what is still over.
    const second = Math.max(floorOf(widest), ...widths.filter((_, i) => i !== widest));
    const cut = Math.min(sum - budget, Math.max(1, widths[widest] - second));
    widths[widest] -= cut;
    sum -= cut;
  }
  // Every column at its floor and still too wide: the floors give way too (ids then wrap).
  if (sum > budget && floors.length > 0) return fitColumnWidths(widths, total);
  return widths;
}

/**
 * Render a bordered table that fits `style.width`, wrapping long cells on word boundaries.
 * @param head column titles
 * @param rows cells (plain text; `\n` starts a new line within a cell; escape sequences and other control
 *   characters are dropped, libs/domain terminalText, before widths are measured)
 */
export function renderTable(head: readonly string[], rawRows: readonly (readonly string[])[], style: TableStyle): string {
  const rows = rawRows.map((r) => r.map((c) => terminalText(c)));
  const natural = head.map((h, i) => Math.max(cellWidth(h), ...rows.map((r) => cellWidth(r[i] ?? ''))));
  const longestWord = (t: string) => Math.max(0, ...t.split(/\s+/).map((w) => w.length));
  const floors = head.map((h, i) => Math.min(40, Math.max(longestWord(h), ...rows.map((r) => longestWord(r[i] ?? '')))));
  const widths = fitColumnWidths(natural, style.width, floors);
  // Cells are wrapped here (wrapText: word boundaries, long tokens such as check ids broken, nothing cut);
  // cli-table3's own wrapping truncates a word longer than its column with an ellipsis.
  const wrap = (cells: readonly string[]) => cells.map((c, i) => wrapText(c, widths[i]).join('\n'));
  // The header is set bold here, not through cli-table3's `style.head`: that goes through @colors/colors, which
  // decides on its own (from the process's stdout and FORCE_COLOR) and so dropped the colour the caller asked
  // for when stdout was not a terminal (CI); the caller's `style.color` is the one decision. Borders stay plain.
  const bold = (cell: string) =>
    style.color ? cell.split('\n').map((l) => `\u001b[1m${l}\u001b[22m`).join('\n') : cell;
  const t = new Table({
    head: wrap(head).map(bold),
    colWidths: widths.map((w) => w + 2),
    style: { head: [], border: [], 'padding-left': 1, 'padding-right': 1 },
  });
  for (const r of rows) t.push(wrap(r));
  return t.toString();
}
