/**
 * The store columns and row mappers of the fleet-graph tables (`graph_*`, migration 1797300000000), derived
 * from the resource declarations (libs/domain fleet-graph.resources.ts): a field is stored in the column
 * `snake_case(field)` (or the declaration's `column`), sent as its kind (bulk-insert.util.ts `ColumnKind`):
 * strings as text, counts as integer, flags as boolean, string lists as text[], lists of rows as jsonb (or, where a
 * repository says so, as packed JSON text: `unpackedRowsOf`).
 * A field declared with `column: false` is stored by its repository in its own way (a server group's backends).
 */
import type { QueryResultRow } from 'pg';
import type { ResourceDecl, ResourceField, RowOf } from '@app/domain';
import type { ColumnKind, ColumnSpec } from './bulk-insert.util';

/** How each field kind is sent; `float` has no graph column yet (add a kind here when one is declared). */
const KIND_OF: Record<ResourceField['type'], ColumnKind | undefined> = {
  string: 'text',
  id: 'text',
  int: 'integer',
  float: undefined,
  boolean: 'boolean',
  'string[]': 'text[]',
  list: 'jsonb',
};

/** The column of a field: its declared `column`, else its name in snake_case (`apiServerLoadBalancerId` -> `api_server_load_balancer_id`). */
export function columnOf(field: string, f: ResourceField): string {
  return typeof f.column === 'string' ? f.column : field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

/** (field, column) of every field a declaration stores in a column of its own, in declaration order. */
function storedFields(decl: ResourceDecl): [field: string, column: string, kind: ColumnKind][] {
  return Object.entries(decl.fields)
    .filter(([, f]) => f.column !== false)
    .map(([field, f]) => {
      const kind = KIND_OF[f.type];
      if (!kind) throw new Error(`fleet-graph field ${decl.gql}.${field}: no store column kind for ${f.type}`);
      return [field, columnOf(field, f), kind];
    });
}

/**
 * The insert columns of a resource's table (after `scan_id`), each reading its field of a row.
 * @typeParam R the rows written: the declaration's row, or a row that holds its stored fields under the same names
 *   (a built graph's row, whose lists the caller writes in their stored form: libs/store fleet-graph.repository.ts)
 * @throws Error at start-up when a declared field has a kind no column can hold (a programming error)
 */
export function columnsOf<D extends ResourceDecl, R extends object = RowOf<D>>(decl: D): ColumnSpec<R> {
  return storedFields(decl).map(([field, column, kind]) => [column, kind, (r: R) => (r as Record<string, unknown>)[field], [field]] as const);
}

/**
 * The row mapper of a resource's table: a row as the domain type, properties in declaration order (the order
 * REST sends them in). Fields with `column: false` are left to the caller.
 */
export function rowMapperOf<D extends ResourceDecl>(decl: D): (row: QueryResultRow) => RowOf<D> {
  const fields = storedFields(decl).map(([field, column]) => [field, column] as const);
  return (row) => {
    const out: Record<string, unknown> = {};
    for (const [field, column] of fields) out[field] = row[column];
    return out as RowOf<D>;
  };
}

/** Characters JSON.stringify escapes in a string: quote, backslash, control characters, and (alone) surrogates. */
// eslint-disable-next-line no-control-regex
const JSON_ESCAPED = /["\\\u0000-\u001f\uD800-\uDFFF]/;

/** A string as JSON.stringify writes it (null and undefined as `null`, as in an array). */
export function jsonString(s: string | null | undefined): string {
  if (s === null || s === undefined) return 'null';
  return JSON_ESCAPED.test(s) ? JSON.stringify(s) : `"${s}"`;
}

/** An integer as JSON.stringify writes it in an array (null, undefined and non-finite numbers as `null`). */
export function jsonInt(n: number | null | undefined): string {
  return n === null || n === undefined || !Number.isFinite(n) ? 'null' : String(n);
}

/**
 * Rows of a declaration from a parsed value of its column: packed rows (each row an array of its declared fields in
 * declaration order, a `list` field packed the same way, an absent value null: what fleet-graph.repository.ts
 * `NlbServerGroupsJson` writes, the same values as `JSON.stringify(rows)` without each field's name) or rows stored as objects (a jsonb value converted to text by the migration that packed the
 * column), both as rows with every declared field in declaration order (absent ones null), lists unpacked in turn.
 * Anything but an array reads as no rows.
 */
export function unpackedRowsOf<D extends ResourceDecl>(decl: D): (value: unknown) => RowOf<D>[] {
  const fields = Object.entries(decl.fields).map(([name, f]) => [name, f.type === 'list' && f.of ? unpackedRowsOf(f.of) : undefined] as const);
  return (value) => {
    if (!Array.isArray(value)) return [];
    return value.map((row: unknown) => {
      const out: Record<string, unknown> = {};
      const packed = Array.isArray(row);
      const r = row as Record<string, unknown> & unknown[];
      for (let i = 0; i < fields.length; i += 1) {
        const [name, list] = fields[i]!;
        const v = (packed ? r[i] : (r ?? {})[name]) ?? null;
        out[name] = list ? list(v) : v;
      }
      return out as RowOf<D>;
    });
  };
}
