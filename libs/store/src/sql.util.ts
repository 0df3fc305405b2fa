import { scopeCondition, teamCondition, type Scoped } from './principal';

/**
 * Small helpers shared by the repositories: value normalisation between PostgreSQL back ends and
 * parameter chunking.
 */
import { sanitizeText } from '@app/domain';

/**
 * PostgreSQL's wire protocol carries the number of bind parameters of one statement in an Int16,
 * so a query may have at most 65535 parameters (`$1` .. `$65535`); beyond that the server rejects
 * it. Fleet-sized inserts are therefore split into chunks (immich `server/src/decorators.ts`
 * `Chunked`, STYLE.md D.16).
 */
export const MAX_BIND_PARAMETERS = 65_535;

/**
 * Split `items` into consecutive chunks of at most `size` items (the last may be shorter).
 * @throws RangeError when `size` is not a positive integer
 */
export function chunk<T>(items: readonly T[], size: number): T[][] {
  if (!Number.isInteger(size) || size < 1) throw new RangeError(`chunk size must be a positive integer, got ${size}`);
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/**
 * A numeric column as a JS number. `pg` returns int8 (`count(*)`) and numeric as strings,
 * PGlite returns int8 as a number (STACK.md pitfall 18); both end up here.
 * @throws TypeError when the value is not numeric (a schema / query bug)
 */
export function toNumber(value: string | number | bigint): number {
  const n = typeof value === 'number' ? value : Number(value);
  if (!Number.isFinite(n)) throw new TypeError(`expected a numeric column value, got ${String(value)}`);
  return n;
}

/** A nullable numeric column as a JS number, or `undefined` for NULL (optional Finding fields). */
export function toOptionalNumber(value: string | number | bigint | null): number | undefined {
  return value === null ? undefined : toNumber(value);
}

/** A timestamptz column (`pg` parses it into a Date; text when a type parser is absent) as ISO 8601 UTC. */
export function toIso(value: Date | string): string {
  return (value instanceof Date ? value : new Date(value)).toISOString();
}

/** A nullable timestamptz column as ISO 8601 UTC, or null. */
export function toIsoOrNull(value: Date | string | null): string | null {
  return value === null ? null : toIso(value);
}

/**
 * Collects `WHERE` conditions and their bind parameters, numbering placeholders in order.
 * Column expressions must come from code, never from input; only values are parameters.
 */
export class WhereBuilder {
  private readonly conditions: string[] = [];
  readonly params: unknown[] = [];

  /** Add `<expression> = $n` for a defined value; skip undefined (filter not set). */
  equals(expression: string, value: string | undefined): this {
    if (value !== undefined) this.conditions.push(`${expression} = ${this.param(value)}`);
    return this;
  }

  /**
   * Restrict an account id column to the principal's scope (the one policy layer, principal.ts):
   * nothing for every account, `column = ANY($n)` otherwise; and, for a team-scoped principal, `teamColumn` to its
   * teams. Without a `teamColumn` (a table that carries no team) a team-scoped principal matches no row: fail closed.
   */
  inScope(column: string, scoped: Scoped, teamColumn?: string): this {
    if (!scoped.accountScope.all) this.conditions.push(scopeCondition(column, scoped, (v) => this.param(v)));
    if (scoped.teamScope !== undefined) this.conditions.push(teamColumn === undefined ? 'FALSE' : teamCondition(teamColumn, scoped, (v) => this.param(v)));
    return this;
  }

  /** Add a raw condition built from code (never from input), e.g. a keyset predicate. */
  where(condition: string): this {
    this.conditions.push(condition);
    return this;
  }

  /** Register a bind parameter and return its placeholder (`$n`). */
  param(value: unknown): string {
    this.params.push(value);
    return `$${this.params.length}`;
  }

  /** The `WHERE ...` clause, or an empty string when there are no conditions. */
  sql(): string {
    return this.conditions.length === 0 ? '' : `WHERE ${this.conditions.join(' AND ')}`;
  }
}

/**
 * JSON text for a `jsonb` parameter with every string sanitised ({@link sanitizeText}: NUL ->
 * U+2400, lone surrogates -> U+FFFD), since jsonb refuses `\u0000` and unpaired surrogates: one
 * odd Event message must not fail a whole scan's store.
 */
export function storableJson(value: unknown): string {
  // JSON.stringify writes a NUL as `\u0000` and a lone surrogate as `\udXXX` (well-formed JSON.stringify), so text
  // without either escape needs no sanitising: stringified once without a replacer (a replacer is called for every
  // key and value, several times slower on large documents). A match may be a false alarm (an escaped backslash
  // before `u0000`): the replacer pass is then merely redone, with the same result.
  const text = JSON.stringify(value);
  if (text === undefined || !UNSTORABLE_ESCAPE.test(text)) return text;
  return JSON.stringify(value, (_key, v: unknown) => (typeof v === 'string' ? sanitizeText(v) : v));
}

/** A JSON escape of a NUL or of a surrogate code unit (JSON.stringify escapes only lone ones). */
const UNSTORABLE_ESCAPE = /\\u(?:0000|[dD][89abcdefABCDEF])/;

/** A text parameter PostgreSQL accepts ({@link sanitizeText}); null and undefined become null. */
export function storableText(value: string | null | undefined): string | null {
  return value === null || value === undefined ? null : sanitizeText(value);
}
