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
import type { Writable } from 'node:stream';
import type { PoolClient } from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { hasUnstorableText, sanitizeText } from '@app/domain';
import type { ColumnKind, ColumnSpec } from './bulk-insert.util';
import { storableJson } from './sql.util';

/** Characters COPY's text format escapes inside a value (`copyEscape` looks for each with `indexOf`). */
const COPY_SPECIAL_ALL = /[\\\n\r\t]/g;
const COPY_ESCAPES: Readonly<Record<string, string>> = {
  '\\': '\\\\',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
};

/**
 * A string as one COPY text field (escaped; never `\N`). Whether there is anything to escape is asked of `indexOf`,
 * one scan per character sought: together several times faster than a regular expression's scan on the long values
 * (the JSON of a server group's backends: tens of MB per scan).
 */
function copyEscape(s: string): string {
  return s.indexOf('\\') >= 0 || s.indexOf('\n') >= 0 || s.indexOf('\r') >= 0 || s.indexOf('\t') >= 0
    ? s.replace(COPY_SPECIAL_ALL, (c) => COPY_ESCAPES[c]!)
    : s;
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
 * PostgreSQL input form, `text[]` as an array literal of sanitised, quoted elements, `integer[]` as an array literal;
 * null and undefined as `\N`.
 */
export function copyField(kind: ColumnKind, v: unknown): string {
  if (v === null || v === undefined) return '\\N';
  switch (kind) {
    case 'text':
      return copyText(v as string);
    case 'jsonb': {
      // JSON.stringify writes no raw newline, carriage return or tab, and a NUL or a lone surrogate only as a `\u`
      // escape: a text without a backslash is storable as it is (storableJson would return it) and has nothing to
      // COPY-escape, which one `indexOf` tells.
      const text = JSON.stringify(v) as string | undefined;
      return text !== undefined && text.indexOf('\\') < 0 ? text : copyEscape(storableJson(v));
    }
    case 'json':
      return copyEscape(v as string);
    case 'integer':
    case 'numeric':
      return String(v);
    case 'boolean':
      return v ? 't' : 'f';
    case 'text[]':
      return copyTextArray(v as readonly string[]);
    case 'integer[]':
      return `{${(v as readonly number[]).join(',')}}`;
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
      return copyEscape(
        `{${v.map((e) => `"${sanitizeText(e).replace(ARRAY_SPECIAL, (c) => `\\${c}`)}"`).join(',')}}`,
      );
    s += i === 0 ? `"${x}"` : `,"${x}"`;
  }
  return `${s}}`;
}

/**
 * One row as a COPY text line (with its newline): `lead`, the row's first column as COPY text (its `scan_id`, or a
 * trend fit's `window_id`), then the columns in order.
 */
export function copyLine<T>(columns: ColumnSpec<T>, lead: string, row: T): string {
  return copyLineEncoder(columns)(lead, row);
}

/** `copyLine` of one column list, as `copyLineEncoder` compiles it. */
export type CopyLineEncoder<T> = (lead: string, row: T) => string;

/** The encoder of each column list (`copyLineEncoder`), as long as the list lives. */
const ENCODERS = new WeakMap<ColumnSpec<never>, unknown>();

/**
 * `copyLine` for one column list, compiled once into a function of its own (`new Function`, from the list's indexes,
 * kinds and property paths only: no value of a row is ever part of the code), cached per list. Each column is read
 * and encoded at a call site of its own: in one loop over every table's columns, each `value` call and each property
 * load inside it saw every table's rows (a megamorphic site: a stub-cache lookup per value), and the encoding went
 * through the kind switch per value. Same text as the loop, byte for byte (copy.util.spec.ts).
 */
export function copyLineEncoder<T>(columns: ColumnSpec<T>): CopyLineEncoder<T> {
  return compiledPerColumnList(ENCODERS, columns, {
    signature: 'copyLineOf(lead, row)',
    head: 'let line = lead;',
    field: (kind) =>
      `line += v === null || v === undefined ? '\\t\\\\N' : '\\t' + ${
        kind === 'text'
          ? 'copyText(v)'
          : kind === 'integer' || kind === 'numeric'
            ? 'String(v)'
            : kind === 'boolean'
              ? "(v ? 't' : 'f')"
              : `copyField(${JSON.stringify(kind)}, v)`
      };`,
    tail: "return line + '\\n';",
    helpers: { copyText, copyField },
  });
}

/**
 * A function compiled for one column list (`new Function`, from the list's indexes, kinds and property paths only:
 * no value of a row is ever part of the code), cached per list in `cache`: its body is `head`, then per column the
 * column's value read into `v` (`row[path...]`, or the column's `value` function as `value<i>(row)`) and `field`'s
 * statement, then `tail`; `helpers` are in scope by name.
 */
function compiledPerColumnList<T, F>(
  cache: WeakMap<ColumnSpec<never>, unknown>,
  columns: ColumnSpec<T>,
  code: {
    signature: string;
    head: string;
    field: (kind: ColumnKind) => string;
    tail: string;
    helpers: Record<string, unknown>;
  },
): F {
  const cached = cache.get(columns as ColumnSpec<never>) as F | undefined;
  if (cached) return cached;
  const body: string[] = ['let v;', code.head];
  columns.forEach(([, kind, , path], i) => {
    const read =
      path && path.length > 0 ? `row${path.map((p) => `[${JSON.stringify(p)}]`).join('')}` : `value${i}(row)`;
    body.push(`v = ${read};`, code.field(kind));
  });
  body.push(code.tail);
  const names = [...Object.keys(code.helpers), ...columns.map((_, i) => `value${i}`)];
  // Named after its first columns in stack traces and CPU profiles (each list compiles a function of its own).
  const source = `compiled-columns/${columns
    .slice(0, 3)
    .map(([c]) => c)
    .join('-')}`;
  const make = new Function(...names, `return function ${code.signature} {\n${body.join('\n')}\n};\n//# sourceURL=${source}`) as (
    ...args: unknown[]
  ) => F;
  const compiled = make(...Object.values(code.helpers), ...columns.map(([, , value]) => value));
  cache.set(columns as ColumnSpec<never>, compiled);
  return compiled;
}

/** Where `copyRowEncoder` writes: the Buffer, the next byte's offset, and the end of the room it may use. */
export interface CopyTarget {
  buf: Buffer;
  pos: number;
  limit: number;
}

/**
 * One row written into a CopyTarget as `copyLine` writes it (the same bytes, its newline included); false, with
 * `target.pos` anywhere past where it started, when the row does not fit before `target.limit`.
 */
export type CopyRowEncoder<T> = (target: CopyTarget, lead: string, row: T) => boolean;

/**
 * A string written as is (no COPY escape, as `copyField` writes numbers and already-escaped texts), after a tab when
 * `tab`: ASCII byte by byte, anything else as UTF-8 by `Buffer.write`. False when it may not fit (3 bytes per UTF-16
 * code unit, the most UTF-8 needs).
 */
function putRaw(t: CopyTarget, s: string, tab: boolean): boolean {
  const n = s.length;
  let p = t.pos;
  if (p + 3 * n + 1 > t.limit) return false;
  const b = t.buf;
  if (tab) b[p++] = 9;
  for (let i = 0; i < n; i += 1) {
    const c = s.charCodeAt(i);
    if (c >= 0x80) {
      // From the field's start again (its tab is written): the ASCII bytes before are part of what UTF-8 writes.
      const start = tab ? t.pos + 1 : t.pos;
      t.pos = start + b.write(s, start, 'utf8');
      return true;
    }
    b[p++] = c;
  }
  t.pos = p;
  return true;
}

/**
 * A text field (after its tab) as `copyText` writes it: ASCII without a character to escape byte by byte (the
 * common id, name or IP), anything else through `copyText` (sanitised, escaped) as UTF-8.
 */
function putText(t: CopyTarget, s: string): boolean {
  const n = s.length;
  let p = t.pos;
  if (p + 3 * n + 1 > t.limit) return putTextSlow(t, s);
  const b = t.buf;
  b[p++] = 9;
  for (let i = 0; i < n; i += 1) {
    const c = s.charCodeAt(i);
    // Backslash, newline, carriage return, tab and NUL need COPY's escape or sanitizeText; 0x80 and up UTF-8.
    if (c >= 0x80 || c === 92 || c === 10 || c === 13 || c === 9 || c === 0) return putTextSlow(t, s);
    b[p++] = c;
  }
  t.pos = p;
  return true;
}

function putTextSlow(t: CopyTarget, s: string): boolean {
  return putRaw(t, copyText(s), true);
}

/**
 * A number field (after its tab) as `String(v)` writes it: a non-negative integer below 2^31 (a count, a port, a
 * list number: most of what the store writes) digit by digit, so no string is made per value; anything else (a
 * negative or fractional value, a ratio) through `String`.
 */
function putNumber(t: CopyTarget, v: number): boolean {
  if (!(Number.isInteger(v) && v >= 0 && v <= 0x7fffffff)) return putRaw(t, String(v), true);
  if (t.pos + 12 > t.limit) return false;
  const b = t.buf;
  b[t.pos++] = 9;
  let digits = 1;
  for (let x = v; x >= 10; x = (x / 10) | 0) digits += 1;
  let p = t.pos + digits;
  t.pos = p;
  let x = v | 0;
  do {
    b[--p] = 48 + (x % 10);
    x = (x / 10) | 0;
  } while (x > 0);
  return true;
}

/**
 * A `text[]` field (after its tab) as `copyTextArray` writes it: an array literal of quoted elements, each ASCII
 * without a character to escape or sanitise written byte by byte (ids and IPs), so no string is made per value; any
 * other array through `copyTextArray` from the field's start again.
 */
function putTextArray(t: CopyTarget, v: readonly string[]): boolean {
  const start = t.pos;
  let p = start;
  const b = t.buf;
  const limit = t.limit;
  if (p + 3 > limit) return false;
  b[p++] = 9;
  b[p++] = 123;
  for (let i = 0; i < v.length; i += 1) {
    const x = v[i];
    if (typeof x !== 'string' || p + x.length + 4 > limit) return putTextArraySlow(t, start, v);
    if (i > 0) b[p++] = 44;
    b[p++] = 34;
    for (let k = 0; k < x.length; k += 1) {
      const c = x.charCodeAt(k);
      // Quote and backslash need the array literal's escape, newline, carriage return, tab and NUL COPY's escape or
      // sanitizeText; 0x80 and up UTF-8.
      if (c >= 0x80 || c === 34 || c === 92 || c === 10 || c === 13 || c === 9 || c === 0) return putTextArraySlow(t, start, v);
      b[p++] = c;
    }
    b[p++] = 34;
  }
  if (p + 1 > limit) return false;
  b[p++] = 125;
  t.pos = p;
  return true;
}

function putTextArraySlow(t: CopyTarget, start: number, v: readonly string[]): boolean {
  t.pos = start;
  return putRaw(t, copyTextArray(v), true);
}

/** `\t\N`: a NULL field. */
function putNull(t: CopyTarget): boolean {
  if (t.pos + 3 > t.limit) return false;
  const b = t.buf;
  b[t.pos] = 9;
  b[t.pos + 1] = 92;
  b[t.pos + 2] = 78;
  t.pos += 3;
  return true;
}

/** One byte (a boolean's `t` / `f` after its tab, or the row's newline). */
function putByte(t: CopyTarget, c: number, tab: boolean): boolean {
  if (t.pos + 2 > t.limit) return false;
  if (tab) t.buf[t.pos++] = 9;
  t.buf[t.pos++] = c;
  return true;
}

/** The row encoder of each column list (`copyRowEncoder`), as long as the list lives. */
const ROW_ENCODERS = new WeakMap<ColumnSpec<never>, unknown>();

/**
 * `copyLine` for one column list written straight into a CopyTarget, compiled as `copyLineEncoder` is: each field is
 * encoded into the Buffer where it goes (ASCII text byte by byte), so a row makes no string of its own. A line string
 * per row (800,000 rows at 2,000 clusters, each a rope of a few dozen pieces, flattened again by `Buffer.write`) was
 * garbage by the next row, but made the young generation fill, and each scavenge beside a multi-GB heap costs tens of
 * milliseconds. Same bytes as `copyLine`, byte for byte (copy.util.spec.ts).
 */
export function copyRowEncoder<T>(columns: ColumnSpec<T>): CopyRowEncoder<T> {
  return compiledPerColumnList(ROW_ENCODERS, columns, {
    signature: 'copyRowInto(t, lead, row)',
    head: 'if (!putRaw(t, lead, false)) return false;',
    field: (kind) =>
      `if (!(v === null || v === undefined ? putNull(t) : ${
        kind === 'text'
          ? 'putText(t, v)'
          : kind === 'integer' || kind === 'numeric'
            ? 'putNumber(t, v)'
            : kind === 'boolean'
              ? 'putByte(t, v ? 116 : 102, true)'
              : kind === 'text[]'
                ? 'putTextArray(t, v)'
                : `putRaw(t, copyField(${JSON.stringify(kind)}, v), true)`
      })) return false;`,
    tail: 'return putByte(t, 10, false);',
    helpers: { putRaw, putText, putNumber, putTextArray, putNull, putByte, copyField },
  });
}

/**
 * Bytes of COPY data per Buffer sent to the stream. Each row's line is encoded into the current Buffer with one
 * `Buffer.write` (a native copy of a short string): a 256 KiB string concatenated line by line and converted by the
 * stream (`Buffer.from` of a rope of thousands of lines) cost about four times as much CPU per byte.
 */
const WRITE_BYTES = 1024 * 1024;

/**
 * Smallest batch whose Buffer is written again for the next batch. A write of at least a socket's high-water mark
 * (16 KiB by default) makes the socket ask for 'drain', and pg-copy-streams calls the write back only then, when the
 * socket let go of the bytes; a smaller batch (cut short by a long line) may still be queued after its callback, so it
 * goes out as a copy of its own.
 */
const REUSE_MIN_BYTES = 256 * 1024;

/**
 * COPY data written into one Buffer of `WRITE_BYTES`, sent when full and then filled again, one write in flight.
 *
 * One Buffer is encoded into again and again. A new Buffer per batch is memory outside V8's heap that only a
 * collection frees; a batch that waits on PostgreSQL for a few young-generation collections is promoted, and V8 starts
 * marking its whole heap (the snapshot, its index, the analysis: gigabytes at 5,000 clusters) each time such memory
 * has grown by 64 MB: the number of those markings grew with the rows, and the cost of each with the heap.
 */
export interface CopyWriter {
  /**
   * Append `text` encoded as `encoding` (`latin1`: one byte per character, for bytes kept as a string). A text that
   * does not fit in what is left of the Buffer sends the Buffer first; one longer than a whole Buffer goes in
   * slices (`latin1`) or as a Buffer of its own (`utf8`: a long COPY line).
   */
  write(text: string, encoding?: 'utf8' | 'latin1'): Promise<void> | undefined;
  /** Append raw bytes (a small binary field header). */
  writeBytes(bytes: Buffer): Promise<void> | undefined;
  /**
   * Append one row encoded straight into the Buffer by `into` (`copyRowEncoder`); when it does not fit in what is left,
   * the Buffer is sent and the row encoded again into the empty one, and a row longer than a whole Buffer is written
   * as `line` gives it (`copyLineEncoder`: the same text).
   */
  row<T>(into: CopyRowEncoder<T>, line: CopyLineEncoder<T>, lead: string, row: T): Promise<void> | undefined;
  /** Send what the Buffer holds. */
  flush(): Promise<void>;
}

/**
 * A Buffer for `copyIn` to encode COPY data into (`COPY_BUFFER_BYTES`): a caller running many statements one after
 * another (a lane of the chunked store) passes the same one to each, so a store allocates one per lane, not one per
 * chunk (each held for the seconds its chunk takes, long enough to be promoted).
 */
export function copyBuffer(): Buffer {
  return Buffer.allocUnsafe(WRITE_BYTES);
}

/**
 * A CopyWriter on `stream` (see CopyWriter) encoding into `buf` (at least `WRITE_BYTES`): each send waits for the
 * stream's callback before the Buffer is reused.
 */
function copyWriter(stream: Writable, buf: Buffer): CopyWriter {
  let used = 0;
  const send = (chunk: Buffer): Promise<void> =>
    new Promise((resolve, reject) => stream.write(chunk, (err) => (err ? reject(err) : resolve())));
  const flush = async (): Promise<void> => {
    if (used === 0) return;
    const n = used;
    used = 0;
    await send(n >= REUSE_MIN_BYTES ? buf.subarray(0, n) : Buffer.from(buf.subarray(0, n)));
  };
  const write = async (text: string, encoding: 'utf8' | 'latin1'): Promise<void> => {
    // A UTF-16 code unit is at most 3 bytes of UTF-8 (a surrogate pair, two units, is 4): room for the worst case.
    const perChar = encoding === 'utf8' ? 3 : 1;
    if (text.length * perChar > WRITE_BYTES - used) await flush();
    if (text.length * perChar <= WRITE_BYTES) {
      used += buf.write(text, used, encoding);
      return;
    }
    if (encoding === 'utf8') return send(Buffer.from(text, 'utf8'));
    for (let at = 0; at < text.length; at += WRITE_BYTES) {
      used += buf.write(text.slice(at, at + WRITE_BYTES), used, 'latin1');
      await flush();
    }
  };
  const target: CopyTarget = { buf, pos: 0, limit: WRITE_BYTES };
  const rowAgain = async <T>(
    into: CopyRowEncoder<T>,
    line: CopyLineEncoder<T>,
    lead: string,
    row: T,
  ): Promise<void> => {
    await flush();
    target.pos = 0;
    if (into(target, lead, row)) used = target.pos;
    else await write(line(lead, row), 'utf8');
  };
  return {
    row(into, line, lead, row) {
      // Bytes past `used` of a row that did not fit are never sent: `used` moves only when the whole row is in.
      target.pos = used;
      if (into(target, lead, row)) {
        used = target.pos;
        return undefined;
      }
      return rowAgain(into, line, lead, row);
    },
    write(text, encoding = 'utf8') {
      // The common case (it fits) stays synchronous: a promise per row would cost more than the row.
      if (text.length * (encoding === 'utf8' ? 3 : 1) <= WRITE_BYTES - used) {
        used += buf.write(text, used, encoding);
        return undefined;
      }
      return write(text, encoding);
    },
    writeBytes(bytes) {
      if (bytes.length <= WRITE_BYTES - used) {
        used += bytes.copy(buf, used);
        return undefined;
      }
      return write(bytes.toString('latin1'), 'latin1');
    },
    flush,
  };
}

/**
 * Run one `COPY ... FROM STDIN` statement (`sql`) on `client`, its data written by `fill` through a CopyWriter.
 * @param buffer what the data is encoded into (`copyBuffer`; not used by anything else until this resolves); a new
 *   one when omitted
 * @returns the number of rows PostgreSQL reports written
 * @throws the driver's error (unique violation, bad value, lost connection), also while `fill` waits on a write;
 *   `fill`'s error, after the COPY was failed (CopyFail) so the transaction can be rolled back
 */
export async function copyIn(
  client: PoolClient,
  sql: string,
  fill: (out: CopyWriter) => Promise<void>,
  buffer: Buffer = copyBuffer(),
): Promise<number> {
  const stream = client.query(copyFrom(sql));
  let failed = false;
  const ended = new Promise<void>((resolve, reject) => {
    stream.once('finish', resolve);
    // `on`, not `once`: pg-copy-streams emits each error the driver hands it, and a second one (the connection
    // dying after the COPY already failed) without a listener would be an uncaught exception.
    stream.on('error', (e) => {
      failed = true;
      reject(e);
    });
  });
  ended.catch(() => undefined); // observed: awaited below on every path
  try {
    const out = copyWriter(stream, buffer);
    await Promise.race([fill(out).then(() => out.flush()), ended]);
    stream.end();
    await ended;
  } catch (e) {
    // `fill` failed with the COPY open: fail it (CopyFail), so the transaction can be rolled back. A stream that
    // failed itself has no connection left to send that on.
    if (!failed) stream.destroy(e instanceof Error ? e : new Error(String(e)));
    throw e;
  }
  return stream.rowCount;
}

/**
 * Write `rows[from..to)` into `table` with one `COPY table (scan_id, columns...) FROM STDIN` on `client` (inside the
 * caller's transaction, if any). COPY has no ON CONFLICT: the caller sends rows whose keys are new to the table
 * (`dedupeRows`), or the statement fails with a unique violation and writes nothing.
 * @param client a checked-out client (the caller's transaction)
 * @param table the table (from code, never input)
 * @param columns the columns after `scan_id`
 * @param buffer what the COPY text is encoded into (`copyBuffer`); a new one when omitted
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
  buffer?: Buffer,
): Promise<number> {
  return copyIn(
    client,
    `COPY ${table} (scan_id, ${columns.map(([c]) => c).join(', ')}) FROM STDIN`,
    async (out) => {
      const line = copyLineEncoder(columns);
      const into = copyRowEncoder(columns);
      for (let i = from; i < to; i += 1) {
        const pending = out.row(into, line, scanId, rows[i]);
        if (pending) await pending;
      }
    },
    buffer,
  );
}

/** A key part as it is stored: sanitised (sanitizeText); null and undefined alike. */
function storedPart(x: string | null | undefined): string | null {
  return x === null || x === undefined ? null : TEXT_SPECIAL.test(x) ? sanitizeText(x) : x;
}

/**
 * FNV-1a of a key's parts as stored, each part closed by a value no UTF-16 code unit has; 30 bits, so the hash is a
 * small integer V8 keeps unboxed in an array.
 */
function keyHash(parts: readonly (string | null | undefined)[]): number {
  let h = 0x811c9dc5;
  for (const x of parts) {
    const s = storedPart(x);
    if (s === null) h = Math.imul(h ^ 0x10001, 0x01000193);
    else for (let i = 0; i < s.length; i += 1) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
    h = Math.imul(h ^ 0x10000, 0x01000193);
  }
  return h & 0x3fffffff;
}

/** Whether two keys are equal as stored. */
function sameKey(
  a: readonly (string | null | undefined)[],
  b: readonly (string | null | undefined)[],
): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i += 1)
    if (a[i] !== b[i] && storedPart(a[i]) !== storedPart(b[i])) return false;
  return true;
}

/**
 * Whether each row's key comes strictly after the key of the row before it, in the order of its parts (each part in
 * code-unit order, null and undefined equal and before any string), with no part that sanitizeText changes: then every
 * key is distinct as stored, and `dedupeRows` has nothing to drop. The rows a scan stores mostly come so (the fleet
 * graph's lists sorted by their keys, the quota samples in the analysis' result order): one comparison per row
 * instead of hashing every key's characters. Stops at the first key that does not come after the one before it.
 * A part equal (`===`) to the same part of the key before it is neither compared nor tested again.
 */
function keysIncrease<T>(rows: readonly T[], key: (row: T) => readonly (string | null | undefined)[]): boolean {
  let previous: readonly (string | null | undefined)[] | undefined;
  for (let i = 0; i < rows.length; i += 1) {
    const k = key(rows[i]);
    if (previous !== undefined && k.length !== previous.length) return false;
    // The first key has no key before it: it only needs its parts tested.
    let order = previous === undefined ? -1 : 0;
    for (let j = 0; j < k.length; j += 1) {
      const x = k[j];
      const p = previous === undefined ? undefined : previous[j];
      if (previous !== undefined && x === p) continue;
      if (typeof x === 'string' && hasUnstorableText(x)) return false;
      if (order === 0) order = comparePart(p, x);
    }
    if (order >= 0) return false;
    previous = k;
  }
  return true;
}

/** Code-unit order of two key parts, null and undefined equal and before any string. */
function comparePart(a: string | null | undefined, b: string | null | undefined): number {
  const an = a === null || a === undefined;
  const bn = b === null || b === undefined;
  if (an || bn) return an && bn ? 0 : an ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * The rows with one row per key, the first of each key kept (what `INSERT ... ON CONFLICT DO NOTHING` kept row by
 * row). Keys are compared after sanitizeText, as they are stored.
 *
 * Keys are hashed into an open-addressing table of row numbers (two arrays of small integers, two to four entries per
 * row, on V8's heap: a typed array's memory would count as external memory, see `writeCopyText`), so no string is
 * built per row: a key string per row, held in a Set until the last row, was hundreds of MB at 5,000
 * clusters that outlived a few young-generation collections, was promoted, and then cost a collection of the whole
 * heap to free. A hash match is confirmed by comparing the keys themselves.
 * @param key the values of the table's key after `scan_id`, in order
 */
export function dedupeRows<T>(
  rows: readonly T[],
  key: (row: T) => readonly (string | null | undefined)[],
): readonly T[] {
  if (keysIncrease(rows, key)) return rows;
  let size = 16;
  while (size < rows.length * 2) size *= 2;
  const mask = size - 1;
  // Slot -> 1 + the row number kept there (0: empty), and that row's key hash.
  const slots = new Array<number>(size).fill(0);
  const hashes = new Array<number>(size).fill(0);
  let out: T[] | undefined;
  for (let i = 0; i < rows.length; i += 1) {
    const k = key(rows[i]);
    const h = keyHash(k);
    let slot = h & mask;
    let duplicate = false;
    for (; slots[slot] !== 0; slot = (slot + 1) & mask)
      if (hashes[slot] === h && sameKey(key(rows[slots[slot] - 1]), k)) {
        duplicate = true;
        break;
      }
    if (duplicate) {
      // The first duplicate: every row before it was kept.
      out ??= rows.slice(0, i);
      continue;
    }
    slots[slot] = i + 1;
    hashes[slot] = h;
    out?.push(rows[i]);
  }
  return out ?? rows;
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
  /**
   * COPY rows `[from, to)` on `client`, encoded into `buffer` when given (`copyBuffer`), into `into` when given (the
   * scan's own table of a table partitioned per scan: scan-partition.util.ts) else the part's table; resolves to the
   * rows written.
   */
  copy(
    client: PoolClient,
    scanId: string,
    from: number,
    to: number,
    buffer?: Buffer,
    into?: string,
  ): Promise<number>;
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
    copy: async (client, scanId, from, to, buffer, into) =>
      copyRows(
        client,
        into ?? table,
        typeof columns === 'function' ? await columns(client) : columns,
        scanId,
        rows,
        from,
        to,
        buffer,
      ),
  };
}
