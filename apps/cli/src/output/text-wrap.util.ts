/**
 * Word wrapping for the terminal table: break on spaces; a token longer than the column breaks after
 * `_`, `/`, `-`, `.`, `,` or `:` (check ids, resource paths), and only as a last resort inside it.
 * Pure; widths are counted in UTF-16 code units (the table's texts are ASCII ids and English).
 * Every cell and line of the CLI's tables passes here, so this is where their text loses its control
 * characters (libs/domain terminalText).
 */
import { terminalText } from '@app/domain';

/** Split one over-long token into pieces of at most `width`, preferring the separators above. */
function breakToken(token: string, width: number): string[] {
  const out: string[] = [];
  let rest = token;
  while (rest.length > width) {
    const window = rest.slice(0, width);
    let cut = -1;
    for (let i = window.length - 1; i > 0; i--)
      if ('_/-.,:'.includes(window[i])) {
        cut = i + 1;
        break;
      }
    if (cut <= 0) cut = width;
    out.push(rest.slice(0, cut));
    rest = rest.slice(cut);
  }
  if (rest) out.push(rest);
  return out;
}

/**
 * Wrap text to lines of at most `width` characters on word boundaries. Existing newlines are kept;
 * escape sequences and other control characters are dropped (libs/domain terminalText: names and
 * messages come from clusters, cloud APIs and the database, and must not drive the terminal).
 * @param text the cell text
 * @param width the column's content width, >= 1
 * @returns the lines (at least one, possibly empty)
 */
export function wrapText(text: string, width: number): string[] {
  const w = Math.max(1, Math.floor(width));
  const lines: string[] = [];
  for (const paragraph of terminalText(text).split('\n')) {
    let line = '';
    for (const word of paragraph.split(/\s+/).filter(Boolean)) {
      const pieces = word.length > w ? breakToken(word, w) : [word];
      for (const piece of pieces) {
        if (line === '') line = piece;
        else if (line.length + 1 + piece.length <= w) line += ` ${piece}`;
        else {
          lines.push(line);
          line = piece;
        }
      }
    }
    lines.push(line);
  }
  return lines;
}

// eslint-disable-next-line no-control-regex
const ANSI_SGR = /\u001b\[[0-9;]*m/g;

/** Visible length of a string (ANSI colour codes not counted). */
export function visibleLength(s: string): number {
  return s.replace(ANSI_SGR, '').length;
}

/**
 * A box-drawn table of pre-wrapped cells (each cell an array of lines that fit its column).
 * Linear in the number of lines: cli-table3 took 6.5 s for the sample fleet's 124 findings (about
 * 1,000 wrapped message lines), this takes milliseconds. Width = sum(widths) + 3 * columns + 1.
 * @param head the header cells
 * @param rows the body rows, each cell a list of lines
 * @param widths content width per column
 */
export function boxTable(head: readonly string[], rows: readonly (readonly string[][])[], widths: readonly number[]): string {
  const rule = (l: string, m: string, r: string) => `${l}${widths.map((w) => '─'.repeat(w + 2)).join(m)}${r}`;
  const line = (cells: readonly string[]) => `│${cells.map((c, i) => ` ${c}${' '.repeat(Math.max(0, widths[i] - visibleLength(c)))} `).join('│')}│`;
  const out = [rule('┌', '┬', '┐'), line(head)];
  for (const row of rows) {
    out.push(rule('├', '┼', '┤'));
    const height = Math.max(1, ...row.map((c) => c.length));
    for (let i = 0; i < height; i++) out.push(line(row.map((c) => c[i] ?? '')));
  }
  out.push(rule('└', '┴', '┘'));
  return out.join('\n');
}
