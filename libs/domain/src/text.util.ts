/**
 * Text that PostgreSQL refuses: a NUL character is not
 * allowed in `text` nor as `\u0000` in `jsonb`, and a lone UTF-16 surrogate cannot be encoded as
 * UTF-8 (PostgreSQL docs 8.3 "Character Types": "the character with code zero cannot be stored";
 * 8.14.1 "JSON Input and Output Syntax": `\u0000` is disallowed in jsonb). One such character in
 * a Service name or an Event message must not fail a whole fleet's scan, so every boundary where
 * fleet text enters (fleet directory reader, live collectors, the store) replaces them with a
 * visible marker instead.
 */
import stripAnsi from 'strip-ansi';

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

// eslint-disable-next-line no-control-regex
const ANY_CONTROL = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\t]/;
/** Controls left once whole sequences are gone: C0 but tab and line feed, DEL, C1 (U+0080-U+009F). */
// eslint-disable-next-line no-control-regex
const LONE_CONTROL = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F]/g;

/**
 * Text from a cluster, a cloud API, the database or a user's file made safe to print on a terminal: nothing in it
 * can move the cursor, clear the screen, retitle the window, write the clipboard (OSC 52) or hide text.
 *
 * Whole escape sequences go first (strip-ansi: CSI `ESC [ ... final`, OSC `ESC ] ... BEL|ST`, DCS / SOS / PM / APC
 * strings and two-byte escapes, in their 7-bit and 8-bit C1 forms, as ECMA-48 defines them), so their parameters
 * leave no debris; then every control character left: C0 (U+0000-U+001F, the lone ESC of a broken sequence and
 * the carriage return that would let text overwrite its line included), DEL and C1 (U+0080-U+009F). A tab becomes
 * a space (table widths count characters). Line feeds stay when `keepNewlines` (a table cell's lines), else they
 * become spaces (a value printed inside one line must not start a line of its own).
 * @param s untrusted text
 * @param keepNewlines whether `\n` is layout here (default true)
 * @returns the text without control characters; `s` itself when it has none
 */
export function terminalText(s: string, keepNewlines = true): string {
  if (!ANY_CONTROL.test(s) && (keepNewlines || !s.includes('\n'))) return s;
  const out = stripAnsi(s).replace(/\t/g, ' ').replace(LONE_CONTROL, '');
  return keepNewlines ? out : out.replace(/\n/g, ' ');
}

/**
 * Text from a cluster or a cloud API made inert in Markdown: Kubernetes event messages, names and coverage messages
 * end up in PR comments and chat, where raw `<script>` / `<img onerror>`, links and images (`[x](...)`,
 * `![pixel](...)`, `<http://...>` and GFM's bare `http://` / `www.` / e-mail autolinks) or emphasis (`**`, `_x_`,
 * `~~`) would be rendered. Control characters go first ({@link terminalText}: a report printed on a terminal). HTML's
 * `&`, `<`, `>` become entities (GitHub, GitLab and chat renderers display them as the characters); `\`, `[`, `]`,
 * `|` (table cells), `*`, `~`, `@`, and `_` where it can open or close emphasis (not between two letters or digits,
 * so `CLB_BACKEND_QUOTA` stays readable as text) are backslash-escaped (CommonMark "Backslash escapes": any ASCII
 * punctuation), and so are the `:` of `scheme://` and the `.` of `www.`, which GFM's autolink extension needs
 * unescaped (GFM spec "Autolinks (extension)"); line breaks become spaces, so a value stays in its table cell or list
 * item.
 * @param s untrusted text
 * @returns the text, safe inside a Markdown paragraph, list item or table cell
 */
export function escapeMarkdownText(s: string): string {
  return terminalText(s, false)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/[\\[\]|*~@]/g, (c) => `\\${c}`)
    .replace(/_/g, (c, i: number, all: string) => (/[\p{L}\p{N}]/u.test(all[i - 1] ?? '') && /[\p{L}\p{N}]/u.test(all[i + 1] ?? '') ? c : `\\${c}`))
    .replace(/\b([A-Za-z][A-Za-z0-9+.-]*):\/\//g, '$1\\://')
    .replace(/\b(www)\./gi, '$1\\.');
}

/** First characters that make a spreadsheet read a cell as a formula (OWASP "CSV Injection"). */
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * One RFC 4180 CSV field, guarded against formula injection: the one CSV cell writer of every CSV the product
 * writes (`scan --format csv`, the weekly report's CSV). Text starting with `=`, `+`, `-`, `@`, tab or carriage
 * return (before or after its control characters go) gets a leading `'` and is quoted, as OWASP's "CSV Injection"
 * page prescribes, so Excel, LibreOffice and Google Sheets show it as text and never evaluate it (`-2+3+cmd|' /C
 * calc'!A0`). Text loses its escape sequences and control characters but line feeds ({@link terminalText}: a CSV
 * printed on a terminal stays inert); a field with a comma, quote or line break is quoted, quotes doubled.
 * Numbers and booleans are written as they are (a number is never a formula: `-5` stays a number).
 * @param v the value; null and undefined give an empty field
 * @returns the field, ready to join with commas
 */
export function csvField(v: string | number | boolean | null | undefined): string {
  if (v === null || v === undefined) return '';
  if (typeof v !== 'string') return String(v);
  const text = terminalText(v);
  if (FORMULA_START.test(v) || FORMULA_START.test(text)) return `"'${text.replace(/"/g, '""')}"`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/**
 * `s` as a flat (sequential) string, the same value. A string built by template literals is a tree of V8 cons
 * strings (about nine 32-byte nodes for a result message): kept, it costs memory and every young-generation GC
 * copies the tree; compared with other strings, each comparison walks the tree (a vServer group name compared with
 * the description of each of its backends). `String.prototype.trim` returns a flat string, the
 * same value when there is nothing to trim; a string with leading or trailing white space (none of the product's
 * messages or CCM names) is copied through JSON instead, so the value never changes.
 */
export function flatString(s: string): string {
  const t = s.trim();
  return t.length === s.length ? t : (JSON.parse(JSON.stringify(s)) as string);
}
