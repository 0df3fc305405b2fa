/**
 * Text that PostgreSQL refuses (issue 14 "text that Postgres refuses"): a NUL character is not
 * allowed in `text` nor as `\u0000` in `jsonb`, and a lone UTF-16 surrogate cannot be encoded as
 * UTF-8 (PostgreSQL docs 8.3 "Character Types": "the character with code zero cannot be stored";
 * 8.14.1 "JSON Input and Output Syntax": `\u0000` is disallowed in jsonb). One such character in
 * a Service name or an Event message must not fail a whole fleet's scan, so every boundary where
 * fleet text enters (fleet directory reader, live collectors, the store) replaces them with a
 * visible marker instead.
 */

/** What a NUL character becomes: U+2400 SYMBOL FOR NULL (visible, valid everywhere). */
export const NUL_MARKER = '\u2400';

/** What a lone surrogate becomes: U+FFFD REPLACEMENT CHARACTER (as `String.prototype.toWellFormed`). */
export const BAD_SURROGATE_MARKER = '\uFFFD';

// eslint-disable-next-line no-control-regex
const NEEDS_FIX = /[\u0000\uD800-\uDFFF]/;
/** A high surrogate not followed by a low one, or a low one not preceded by a high one. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * `s` with every NUL replaced by U+2400 and every lone surrogate by U+FFFD; the same string
 * (no copy) when it has neither. Pairs of surrogates (emoji...) are kept.
 */
export function sanitizeText(s: string): string {
  if (!NEEDS_FIX.test(s)) return s;
  return s.replaceAll('\u0000', NUL_MARKER).replace(LONE_SURROGATE, BAD_SURROGATE_MARKER);
}

/** Whether `s` holds a NUL or a lone surrogate (text PostgreSQL would refuse). */
export function hasUnstorableText(s: string): boolean {
  return NEEDS_FIX.test(s) && sanitizeText(s) !== s;
}

/**
 * `value` with {@link sanitizeText} applied to every string and object key inside it (plain
 * objects and arrays, walked recursively; other values kept). Objects and arrays are changed in
 * place; the result is `value` itself unless `value` is a string.
 *
 * Each object or array is walked once even when it is reached by several paths: a YAML alias
 * (`*name`) gives the same object at every place it is used, and a chain of anchors each used
 * several times reaches one object by exponentially many paths. Walking each once keeps the time
 * linear in the number of distinct objects (changed in place, every path sees the fix).
 */
export function sanitizeDeep<T>(value: T): T {
  return sanitizeIn(value, new Set<object>());
}

function sanitizeIn<T>(value: T, seen: Set<object>): T {
  if (typeof value === 'string') return sanitizeText(value) as T;
  if (typeof value !== 'object' || value === null || seen.has(value)) return value;
  if (Array.isArray(value)) {
    seen.add(value);
    for (let i = 0; i < value.length; i += 1) {
      const v: unknown = value[i];
      if (typeof v === 'string' || (typeof v === 'object' && v !== null)) value[i] = sanitizeIn(v, seen);
    }
    return value;
  }
  if (Object.getPrototypeOf(value) === Object.prototype || Object.getPrototypeOf(value) === null) {
    seen.add(value);
    const obj = value as Record<string, unknown>;
    for (const key of Object.keys(obj)) {
      const v = obj[key];
      const fixed = typeof v === 'string' || (typeof v === 'object' && v !== null) ? sanitizeIn(v, seen) : v;
      const fixedKey = sanitizeText(key);
      if (fixedKey !== key) {
        delete obj[key];
        obj[fixedKey] = fixed;
      } else if (fixed !== v) obj[key] = fixed;
    }
  }
  return value;
}

/**
 * Text from a cluster or a cloud API made inert in Markdown (issue 23 item 9): Kubernetes event messages, names and
 * coverage messages end up in PR comments and chat, where raw `<script>` / `<img onerror>` or `[x](...)` /
 * `![pixel](...)` would be rendered. HTML's `&`, `<`, `>` become entities (GitHub, GitLab and chat renderers display
 * them as the characters); `\`, `[`, `]` (links and images) and `|` (table cells) are backslash-escaped (CommonMark
 * "Backslash escapes"); line breaks become spaces, so a value stays in its table cell or list item. Emphasis
 * characters are left alone: they cannot run code or load anything.
 * @param s untrusted text
 * @returns the text, safe inside a Markdown paragraph, list item or table cell
 */
export function escapeMarkdownText(s: string): string {
  return s
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/[\\[\]|]/g, (c) => `\\${c}`)
    .replace(/\r?\n|\r/g, ' ');
}

/**
 * `s` as a flat (sequential) string, the same value. A string built by template literals is a tree of V8 cons
 * strings (about nine 32-byte nodes for a result message): kept, it costs memory and every young-generation GC
 * copies the tree; compared with other strings, each comparison walks the tree (a vServer group name compared with
 * the description of each of its backends; issue 22 item 3). `String.prototype.trim` returns a flat string, the
 * same value when there is nothing to trim; a string with leading or trailing white space (none of the product's
 * messages or CCM names) is copied through JSON instead, so the value never changes.
 */
export function flatString(s: string): string {
  const t = s.trim();
  return t.length === s.length ? t : (JSON.parse(JSON.stringify(s)) as string);
}
