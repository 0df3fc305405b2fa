/**
 * The COPY engine of the store: rows described by a column list (`ColumnSpec`, bulk-insert.util.ts) streamed into a
 * table with PostgreSQL's `COPY ... FROM STDIN` in its text format, through pg-copy-streams (node-postgres' COPY
 * streams). COPY parses rows without a statement per batch or a bind parameter per value, which is what lets a
 * 5,000-cluster scan's million-row tables be written in seconds.
 *
 * Text format (PostgreSQL docs, "COPY", section "Text Format"): one line per row, columns separated by a tab, `\N`
 * for NULL, and a backslash, newline, carriage return or tab inside a value written as `\\`, `\n`, `\r`, `\t`.
 * Arrays are sent as array literals (`{"a","b"}`, docs "Arrays", section "Array Value Input").
 */
import { pipeline } from 'node:stream/promises';
import type { PoolClient } from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { sanitizeText } from '@app/domain';
import type { ColumnKind, ColumnSpec } from './bulk-insert.util';
import { storableJson } from './sql.util';

/** Characters COPY's text format escapes inside a value. */
const COPY_SPECIAL = /[\\\n\r\t]/;
const COPY_SPECIAL_ALL = /[\\\n\r\t]/g;
const COPY_ESCAPES: Readonly<Record<string, string>> = {
  '\\': '\\\\',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
};

/** A string as one COPY text field (escaped; never `\N`). */
function copyEscape(s: string): string {
  return COPY_SPECIAL.test(s) ? s.replace(COPY_SPECIAL_ALL, (c) => COPY_ESCAPES[c]) : s;
}

/**
 * What a text value needs beyond being sent as is: a COPY escape, or sanitizeText (NUL, a surrogate code unit). One
 * test for both, so the common value (an id, a name) costs one regular expression scan and no copy.
 */
// eslint-disable-next-line no-control-regex
const TEXT_SPECIAL = /[\\\n\r\t\u0000\uD800-\uDFFF]/;

/** A text value as one COPY text field: sanitised (sanitizeText) and escaped. */
function copyText(s: string): string {
  return TEXT_SPECIAL.test(s) ? copyEscape(sanitizeText(s)) : s;
}

/** Characters an array literal's quoted element escapes with a backslash. */
const ARRAY_SPECIAL = /["\\]/g;

/**
 * One value as a COPY text field, by column kind: text sanitised (sanitizeText: NUL and lone surrogates replaced, as
 * the INSERT path does), `jsonb` as sanitised JSON text, `json` as given (JSON text), numbers and booleans in their
 * PostgreSQL input form, `text[]` as an array literal of sanitised, quoted elements; null and undefined as `\N`.
 */
export function copyField(kind: ColumnKind, v: unknown): string {
  if (v === null || v === undefined) return '\\N';
  switch (kind) {
    case 'text':
      return copyText(v as string);
    case 'jsonb':
      return copyEscape(storableJson(v));
    case 'json':
      return copyEscape(v as string);
    case 'integer':
    case 'numeric':
      return String(v);
    case 'boolean':
      return v ? 't' : 'f';
    case 'text[]':
      return copyTextArray(v as readonly string[]);
  }
}

/**
 * What an array element needs beyond being quoted: an array-literal escape (quote, backslash), a COPY escape, or
 * sanitizeText (NUL, a surrogate code unit).
 */
// eslint-disable-next-line no-control-regex
const ARRAY_ELEMENT_SPECIAL = /["\\\n\r\t\u0000\uD800-\uDFFF]/;

/**
 * A `text[]` value as one COPY text field: an array literal of sanitised, quoted elements, COPY-escaped. The common
 * array (ids, IPs: nothing to escape) is written in one pass; one with an element to escape or sanitise goes the
 * general way.
 */
function copyTextArray(v: readonly string[]): string {
  let s = '{';
  for (let i = 0; i < v.length; i += 1) {
    const x = v[i];
    if (typeof x !== 'string' || ARRAY_ELEMENT_SPECIAL.test(x))
      return copyEscape(`{${v.map((e) => `"${sanitizeText(e).replace(ARRAY_SPECIAL, (c) => `\\${c}`)}"`).join(',')}}`);
    s += i === 0 ? `"${x}"` : `,"${x}"`;
  }
  return `${s}}`;
}

/** One row as a COPY text line (with its newline): `scan_id`, then the columns in order. */
export function copyLine<T>(columns: ColumnSpec<T>, scanId: string, row: T): string {
  let line = scanId;
  for (const [, kind, value] of columns) line += `\t${copyField(kind, value(row))}`;
  return `${line}\n`;
}

/**
 * Bytes of COPY text per Buffer sent to the stream. Each row's line is encoded into the current Buffer with one
 * `Buffer.write` (a native copy of a short string): a 256 KiB string concatenated line by line and converted by the
 * stream (`Buffer.from` of a rope of thousands of lines) cost about four times as much CPU per byte.
 */
const WRITE_BYTES = 1024 * 1024;

/**
 * The rows as COPY text, one Buffer of at most `WRITE_BYTES` at a time (a line longer than that gets a Buffer of
 * its own). A Buffer is never reused: the socket may still hold it after the stream's write returned.
 */
function* copyBatches<T>(
  columns: ColumnSpec<T>,
  scanId: string,
  rows: readonly T[],
  from: number,
  to: number,
): Generator<Buffer> {
  let buf = Buffer.allocUnsafe(WRITE_BYTES);
  let used = 0;
  for (let i = from; i < to; i += 1) {
    const line = copyLine(columns, scanId, rows[i]);
    // A UTF-16 code unit is at most 3 bytes of UTF-8 (a surrogate pair, two units, is 4): room for the worst case.
    if (line.length * 3 > WRITE_BYTES - used) {
      if (used > 0) yield buf.subarray(0, used);
      buf = Buffer.allocUnsafe(WRITE_BYTES);
      used = 0;
      if (line.length * 3 > WRITE_BYTES) {
        yield Buffer.from(line, 'utf8');
        continue;
      }
    }
    used += buf.write(line, used, 'utf8');
  }
  if (used > 0) yield buf.subarray(0, used);
}

/**
 * Write `rows[from..to)` into `table` with one `COPY table (scan_id, columns...) FROM STDIN` on `client` (inside the
 * caller's transaction, if any). COPY has no ON CONFLICT: the caller sends rows whose keys are new to the table
 * (`dedupeRows`), or the statement fails with a unique violation and writes nothing.
 * @param client a checked-out client (the caller's transaction)
 * @param table the table (from code, never input)
 * @param columns the columns after `scan_id`
 * @returns the number of rows PostgreSQL reports written
 * @throws the driver's error (unique violation, bad value, lost connection); a lost connection rejects the stream
 */
export async function copyRows<T>(
  client: PoolClient,
  table: string,
  columns: ColumnSpec<T>,
  scanId: string,
  rows: readonly T[],
  from = 0,
  to = rows.length,
): Promise<number> {
  const stream = client.query(
    copyFrom(`COPY ${table} (scan_id, ${columns.map(([c]) => c).join(', ')}) FROM STDIN`),
  );
  await pipeline(copyBatches(columns, scanId, rows, from, to), stream);
  return stream.rowCount;
}

/**
 * The rows with one row per key, the first of each key kept (what `INSERT ... ON CONFLICT DO NOTHING` kept row by
 * row). Keys are compared after sanitizeText, as they are stored.
 * @param key the values of the table's key after `scan_id`, in order
 */
export function dedupeRows<T>(
  rows: readonly T[],
  key: (row: T) => readonly (string | null | undefined)[],
): readonly T[] {
  const seen = new Set<string>();
  const out: T[] = [];
  for (const r of rows) {
    // U+0000 never occurs in a sanitised value, so it separates the parts without ambiguity.
    let k = '';
    for (const x of key(r)) k += `${x === null || x === undefined ? '\u0001' : TEXT_SPECIAL.test(x) ? sanitizeText(x) : x}\u0000`;
    if (seen.has(k)) continue;
    seen.add(k);
    out.push(r);
  }
  return out.length === rows.length ? rows : out;
}

/**
 * The rows of one table a scan stores, ready for COPY in chunks: `copy` writes rows `[from, to)` (of the deduplicated
 * rows) on a client. The row type is closed over, so the parts of different tables go in one list.
 */
export interface CopyPart {
  /** The table (also the part's name in `scan_store_chunks`). */
  readonly table: string;
  /** How many rows it writes (after deduplication). */
  readonly rowCount: number;
  /** Most rows per chunk (one transaction each in a chunked store): fewer for tables of large rows. */
  readonly chunkRows: number;
  /** COPY rows `[from, to)` on `client`; resolves to the rows written. */
  copy(client: PoolClient, scanId: string, from: number, to: number): Promise<number>;
}

/**
 * A table's part of a scan's store.
 * @param rows the rows, one per key (`dedupeRows`)
 * @param chunkRows most rows per chunk
 */
export function copyPart<T>(
  table: string,
  columns: ColumnSpec<T> | ((client: PoolClient) => Promise<ColumnSpec<T>>),
  rows: readonly T[],
  chunkRows: number,
): CopyPart {
  return {
    table,
    rowCount: rows.length,
    chunkRows,
    copy: async (client, scanId, from, to) =>
      copyRows(
        client,
        table,
        typeof columns === 'function' ? await columns(client) : columns,
        scanId,
        rows,
        from,
        to,
      ),
  };
}
