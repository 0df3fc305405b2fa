/**
 * The one YAML loader of every file a user or a cloud dump gives the product: fleet directory files, scan configs,
 * audit settings, waivers files, what-if scenarios (files and API bodies) and manifests given to `plan`.
 *
 * It is js-yaml's (the parser `@kubernetes/client-node` itself uses): its event parser and constructor, which read a
 * `kubectl get -o yaml` dump several times faster than a parser that builds a concrete syntax tree first.
 *
 * YAML aliases (`*name`) share one value between several places. A chain of anchors each aliasing the previous one
 * several times ("billion laughs") is a few hundred bytes of text and an exponential number of nodes once expanded:
 * every walker of the loaded value (schema validation, sanitising, mapping) would then take exponential time.
 * Before constructing a document the loader measures, on the parser's events, how many nodes the document would
 * have with every alias replaced by its anchor's value, in time linear in the text; a document over
 * {@link MAX_YAML_EXPANDED_NODES} nodes and over {@link MAX_YAML_EXPANSION} times the nodes written is refused.
 * So what a caller gets expands to at most that many times the text it was read from.
 *
 * The schema is YAML 1.2 core (js-yaml's `CORE_SCHEMA`: no timestamps or binary turned into objects, no `<<` merge
 * keys, no custom tags); a repeated key is an error; collections nest at most 100 deep (js-yaml's `maxDepth`).
 */
import { constructFromEvents, dump, EVENT_ID, parseEvents, YAMLException, type Event } from 'js-yaml';

/**
 * Nodes (scalars, sequences, mappings; keys included) a document may expand to whatever its size: aliases in a
 * hand-written config (a block shared a few times) stay far below it.
 */
export const MAX_YAML_EXPANDED_NODES = 10_000;

/**
 * Largest ratio, above {@link MAX_YAML_EXPANDED_NODES}, of a document's nodes once its aliases are expanded to the
 * nodes written (each alias counting as one): `kubectl` and the cloud CLIs write no aliases (ratio 1).
 */
export const MAX_YAML_EXPANSION = 10;

const ALIAS_BOUND = `${MAX_YAML_EXPANDED_NODES.toLocaleString('en-US')} nodes or ${MAX_YAML_EXPANSION} times the nodes written`;

/**
 * A YAML text that cannot be loaded: what was read, where in it, and why. The message has the shape of the
 * product's file errors (`<source>: $ (document 2, line 7): <expected>`, one line, no source snippet).
 */
export class YamlLoadError extends Error {
  override readonly name = 'YamlLoadError';
  /** `document 2, line 7`, `line 7`, `document 2`, or empty when nothing is known. */
  readonly where: string;
  /** What the text should have been there, e.g. `valid YAML (duplicated mapping key)` (one line). */
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
    const expected = aliases ? `YAML whose aliases (*name) expand it to at most ${ALIAS_BOUND}` : `valid YAML (${reason})`;
    super(`${source}: $${where ? ` (${where})` : ''}: ${expected}`);
    this.where = where;
    this.expected = expected;
  }
}

/** 1-based line and column of a 0-based offset of `text`. */
function lineColumnOf(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) {
    line += 1;
    lineStart = i + 1;
  }
  return { line, column: offset - lineStart + 1 };
}

/** A line that starts a document (`---` followed by a space, a line break or the end). */
const DOCUMENT_MARKER = /^---(?=[ \t\r\n]|$)/gm;

/**
 * The 1-based document of a stream that holds the 0-based `offset`, and the number of documents, read from the
 * document markers (`---` at the start of a line) and whether anything but comments and directives precedes the
 * first one: the events are not at hand when the parser fails.
 */
function documentOf(text: string, offset: number): { document: number; documents: number } {
  const starts = [...text.matchAll(DOCUMENT_MARKER)].map((m) => m.index);
  const head = text.slice(0, starts[0] ?? text.length);
  const bare = head.split('\n').some((l) => l.trim() !== '' && !l.trimStart().startsWith('#') && !l.startsWith('%')) ? 1 : 0;
  const before = starts.filter((s) => s <= offset).length;
  return { document: Math.max(1, before + bare), documents: Math.max(1, starts.length + bare) };
}

/**
 * Throws when a document of the event stream expands past the alias bound: a single pass that gives every
 * anchored node its expanded size (itself plus its children, an alias counting as its anchor's size) and sums
 * each document. Linear in the events; sizes are doubles, so an exponential expansion saturates, never wraps.
 * @throws YamlLoadError (aliases) at the first alias of the offending document
 */
function checkAliasExpansion(events: Event[], text: string, source: string): void {
  const several = events.filter((e) => e.type === EVENT_ID.DOCUMENT).length > 1;
  let document = 0;
  let written = 0;
  let firstAlias = -1;
  let anchors = new Map<string, number>();
  /** Expanded sizes of the open collections (the document's root frame first) and their anchors. */
  const sizes: number[] = [];
  const anchorOf: (string | undefined)[] = [];
  for (const e of events) {
    switch (e.type) {
      case EVENT_ID.DOCUMENT:
        document += 1;
        written = 0;
        firstAlias = -1;
        anchors = new Map();
        sizes.length = 0;
        anchorOf.length = 0;
        sizes.push(0);
        anchorOf.push(undefined);
        break;
      case EVENT_ID.SEQUENCE:
      case EVENT_ID.MAPPING:
        written += 1;
        sizes.push(1);
        anchorOf.push(e.anchorStart >= 0 ? text.slice(e.anchorStart, e.anchorEnd) : undefined);
        break;
      case EVENT_ID.SCALAR:
        written += 1;
        if (e.anchorStart >= 0) anchors.set(text.slice(e.anchorStart, e.anchorEnd), 1);
        sizes[sizes.length - 1]! += 1;
        break;
      case EVENT_ID.ALIAS:
        written += 1;
        if (firstAlias < 0) firstAlias = e.anchorStart - 1;
        sizes[sizes.length - 1]! += anchors.get(text.slice(e.anchorStart, e.anchorEnd)) ?? 1;
        break;
      case EVENT_ID.POP: {
        const size = sizes.pop()!;
        const anchor = anchorOf.pop();
        if (sizes.length > 0) {
          if (anchor !== undefined) anchors.set(anchor, size);
          sizes[sizes.length - 1]! += size;
        } else if (size > MAX_YAML_EXPANDED_NODES && size > MAX_YAML_EXPANSION * written) {
          const at = lineColumnOf(text, firstAlias);
          throw new YamlLoadError(source, `aliases (*name) expand it past ${ALIAS_BOUND}`, true, at.line, at.column, several ? document : undefined);
        }
        break;
      }
    }
  }
}

/** The parser's reason of a js-yaml error, one line, without the position and source snippet it appends. */
function reasonOf(e: YAMLException): string {
  return (e.reason || e.message).split('\n')[0]!.trim();
}

/**
 * Every document of a YAML text (a `---`-separated stream; JSON is YAML) as plain data (objects, arrays, strings,
 * numbers, booleans, null), empty ones included as `null`.
 * @param text the text
 * @param source what to name in errors (a file path, `request body`)
 * @throws YamlLoadError naming `source`, the document (when there are several), the line and the parser's reason,
 *   for a syntax error, a repeated key, an unresolved alias, an unknown tag, nesting over 100 levels, or aliases
 *   expanding past {@link MAX_YAML_EXPANDED_NODES} nodes and {@link MAX_YAML_EXPANSION} times the nodes written
 */
export function loadYamlDocuments(text: string, source: string): unknown[] {
  try {
    const events = parseEvents(text, {});
    if (events.some((e) => e.type === EVENT_ID.ALIAS)) checkAliasExpansion(events, text, source);
    return constructFromEvents(events, { source: text }).map((v) => v ?? null);
  } catch (e) {
    if (e instanceof YamlLoadError) throw e;
    if (e instanceof YAMLException) {
      const offset = e.mark?.position;
      if (offset === undefined || offset < 0) throw new YamlLoadError(source, reasonOf(e), false);
      const { line, column } = lineColumnOf(text, offset);
      const { document, documents } = documentOf(text, offset);
      throw new YamlLoadError(source, reasonOf(e), false, line, column, documents > 1 ? document : undefined);
    }
    // js-yaml documents that any error may escape it (its README: "All exceptions MUST be caught").
    throw new YamlLoadError(source, e instanceof Error ? e.message.split('\n')[0]!.trim() : String(e), false);
  }
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

/**
 * A value as one YAML document, as the product writes YAML (fleet directory files, kubeconfigs, RBAC manifests):
 * block style, two-space indents, double quotes where a string needs them, no line folding (a long annotation value
 * stays on its line), no anchors (an object used twice is written twice, as `kubectl` writes). Keys keep their
 * insertion order.
 * @param value plain data (objects, arrays, strings, numbers, booleans, null); `undefined` members are left out
 * @returns the YAML text, ending with a line break
 * @throws YAMLException for a value YAML cannot hold (a function, a symbol)
 */
export function dumpYaml(value: unknown): string {
  return dump(value, { lineWidth: -1, noRefs: true, quoteStyle: 'double' });
}
