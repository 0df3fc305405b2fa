/**
 * The one YAML loader of every file a user or a cloud dump gives the product: fleet directory files, scan configs,
 * audit settings, waivers files and what-if scenarios (files and API bodies).
 *
 * YAML aliases (`*name`) share one value between several places. A chain of anchors each aliasing the previous one
 * several times ("billion laughs") is a few hundred bytes of text and an exponential number of nodes once expanded:
 * every walker of the loaded value (schema validation, sanitising, mapping) would then take exponential time. The
 * loader lets the `yaml` package refuse such a document (`maxAliasCount`: an anchor's uses times the aliases nested
 * in it may not exceed {@link MAX_YAML_ALIAS_COUNT}; yaml docs, "Options" -> ToJS options), so what a caller gets
 * expands to at most that many times the text it was read from.
 *
 * The schema is YAML 1.2 core (no timestamps or binary turned into objects, no `<<` merge keys); a repeated key
 * is an error.
 */
import { LineCounter, parseAllDocuments, visit, type Document } from 'yaml';

/**
 * Largest alias expansion a document may have, in the `yaml` package's measure (`maxAliasCount`: for each anchor,
 * its alias uses times the alias nodes nested in it). 100 is the package's own default, far above what hand-written
 * configs use (a few shared blocks) and what `kubectl` or the cloud CLIs print (no aliases at all).
 */
export const MAX_YAML_ALIAS_COUNT = 100;

const ALIAS_MEASURE = 'uses of an anchor times the aliases nested in it';

/**
 * A YAML text that cannot be loaded: what was read, where in it, and why. The message has the shape of the
 * product's file errors (`<source>: $ (document 2, line 7): <expected>`, one line, no source snippet).
 */
export class YamlLoadError extends Error {
  override readonly name = 'YamlLoadError';
  /** `document 2, line 7`, `line 7`, `document 2`, or empty when nothing is known. */
  readonly where: string;
  /** What the text should have been there, e.g. `valid YAML (Map keys must be unique)` (one line). */
  readonly expected: string;

  /**
   * @param source what was read, as errors name it (a file path, `request body`)
   * @param reason why it cannot be loaded, in the parser's words or the alias bound's (one line)
   * @param aliases whether the reason is the alias bound (else a syntax or structure error)
   * @param line 1-based line of the problem, when known
   * @param column 1-based column of the problem, when known
   * @param document 1-based document of a multi-document text, when the text has several
   */
  constructor(
    readonly source: string,
    readonly reason: string,
    readonly aliases: boolean,
    readonly line?: number,
    readonly column?: number,
    readonly document?: number,
  ) {
    const where = [document === undefined ? '' : `document ${document}`, line === undefined ? '' : `line ${line}`].filter(Boolean).join(', ');
    const expected = aliases ? `YAML whose aliases (*name) expand at most ${MAX_YAML_ALIAS_COUNT} times (${ALIAS_MEASURE})` : `valid YAML (${reason})`;
    super(`${source}: $${where ? ` (${where})` : ''}: ${expected}`);
    this.where = where;
    this.expected = expected;
  }
}

const ALIAS_REASON = `aliases (*name) expand more than ${MAX_YAML_ALIAS_COUNT} times (${ALIAS_MEASURE})`;

/** The 1-based line and column of the first alias node of `doc`, if any (where a user looks for an alias problem). */
function firstAliasAt(doc: Document, lc: LineCounter): { line: number; col: number } | undefined {
  let at: { line: number; col: number } | undefined;
  visit(doc, {
    Alias(_key, node) {
      if (node.range) at = lc.linePos(node.range[0]);
      return visit.BREAK;
    },
  });
  return at;
}

/**
 * Every document of a YAML text (a `---`-separated stream; JSON is YAML) as plain data (objects, arrays, strings,
 * numbers, booleans, null), empty ones included as `null`.
 * @param text the text
 * @param source what to name in errors (a file path, `request body`)
 * @throws YamlLoadError naming `source`, the document (when there are several), the line and the parser's reason,
 *   for a syntax error, a repeated key, an unresolved alias or aliases expanding past {@link MAX_YAML_ALIAS_COUNT}
 */
export function loadYamlDocuments(text: string, source: string): unknown[] {
  const lc = new LineCounter();
  const docs = parseAllDocuments(text, { lineCounter: lc, prettyErrors: false });
  // An empty stream (only comments or nothing) is an array-like `EmptyStream` with no documents.
  const list: Document[] = Array.isArray(docs) ? docs : [];
  const several = list.length > 1;
  return list.map((doc, i) => {
    const document = several ? i + 1 : undefined;
    const err = doc.errors[0];
    if (err) {
      const at = err.linePos?.[0] ?? lc.linePos(err.pos[0]);
      throw new YamlLoadError(source, err.message.split('\n')[0]!.trim(), false, at.line, at.col, document);
    }
    let value: unknown;
    try {
      value = doc.toJS({ maxAliasCount: MAX_YAML_ALIAS_COUNT });
    } catch (e) {
      // yaml throws a ReferenceError without a position for an excessive or unresolved alias: point at the aliases.
      const message = e instanceof Error ? e.message.split('\n')[0]!.trim() : String(e);
      const aliases = /excessive alias/i.test(message);
      const at = firstAliasAt(doc, lc);
      throw new YamlLoadError(source, aliases ? ALIAS_REASON : message, aliases, at?.line, at?.col, document);
    }
    return value ?? null;
  });
}

/**
 * The one document of a YAML (or JSON) text.
 * @param text the text
 * @param source what to name in errors (a file path, `request body`)
 * @returns the document as plain data; `null` when the text holds no document or an empty one
 * @throws YamlLoadError as {@link loadYamlDocuments}, and for a text of several documents
 */
export function loadYaml(text: string, source: string): unknown {
  const docs = loadYamlDocuments(text, source);
  if (docs.length > 1) throw new YamlLoadError(source, `one document expected, got ${docs.length} (separated by ---)`, false);
  return docs[0] ?? null;
}
