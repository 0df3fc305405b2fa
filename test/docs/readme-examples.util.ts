/**
 * The examples of README.md, read from its text (the README is the source of truth; nothing is copied here):
 * fenced `sh`/`bash` blocks are split into shell commands (backslash continuations and quotes spanning lines
 * joined, comments dropped, `&&` lists split), `graphql` blocks are GraphQL documents. A small POSIX-like word
 * splitter is enough for the README's one-line commands (quotes, `$VAR` / `${VAR}` expansion, `#` comments);
 * no shell ever runs them.
 */

/** One fenced block of the README. */
export interface FencedBlock {
  /** The info string's language (`sh`, `bash`, `graphql`, `yaml`...; '' when absent). */
  lang: string;
  /** 1-based line of the opening fence. */
  line: number;
  /** The block's text (without fences), newline-terminated lines. */
  text: string;
}

/** One word of a command: its source text and its value after quote removal and expansion. */
export interface ShellWord {
  raw: string;
  value: string;
  /** Whether any part of it was quoted (quoted words are never placeholders or optional brackets). */
  quoted: boolean;
}

/** One command of a shell block. */
export interface ShellCommand {
  /** 1-based README line it starts on. */
  line: number;
  /** The command as written (raw words joined by one space): the key of the marked-example list. */
  text: string;
  words: ShellWord[];
  /** Ended by `&` (run in the background). */
  background: boolean;
}

/** The fenced code blocks of a Markdown text (``` fences only, as the README uses). */
export function fencedBlocks(markdown: string): FencedBlock[] {
  const lines = markdown.split('\n');
  const blocks: FencedBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```\s*([\w-]*)/.exec(lines[i]);
    if (!open) continue;
    const body: string[] = [];
    let j = i + 1;
    while (j < lines.length && !/^```\s*$/.test(lines[j])) body.push(lines[j++]);
    blocks.push({ lang: open[1].toLowerCase(), line: i + 1, text: body.map((l) => `${l}\n`).join('') });
    i = j;
  }
  return blocks;
}

/**
 * Split a shell text into words and operators, expanding `$VAR`, `${VAR}` (unquoted and in double quotes) from
 * `env`; an unset variable expands to the empty string, as in a shell. `$(...)` is kept verbatim.
 * @returns the words, each operator (`&&`, `&`, `;`, `|`, newline) as a word with `op` set
 * @throws Error on an unterminated quote
 */
export function shellWords(text: string, env: Record<string, string | undefined>): Array<ShellWord & { op?: boolean }> {
  const out: Array<ShellWord & { op?: boolean }> = [];
  let raw = '';
  let value = '';
  let quoted = false;
  let inWord = false;
  const flush = () => {
    if (inWord) out.push({ raw, value, quoted });
    raw = value = '';
    quoted = inWord = false;
  };
  const expand = (i: number): [string, number] => {
    const braced = /^\$\{(\w+)\}/.exec(text.slice(i));
    const plain = /^\$(\w+)/.exec(text.slice(i));
    const paren = /^\$\([^)]*\)/.exec(text.slice(i));
    const m = braced ?? plain;
    if (m) return [env[m[1]] ?? '', i + m[0].length];
    if (paren) return [paren[0], i + paren[0].length];
    return ['$', i + 1];
  };
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (c === "'") {
      const end = text.indexOf("'", i + 1);
      if (end < 0) throw new Error(`unterminated ' in: ${text}`);
      raw += text.slice(i, end + 1);
      value += text.slice(i + 1, end);
      quoted = inWord = true;
      i = end + 1;
    } else if (c === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') {
        if (text[j] === '\\' && '"\\$`'.includes(text[j + 1] ?? '')) {
          value += text[j + 1];
          j += 2;
        } else if (text[j] === '$') {
          const [v, next] = expand(j);
          value += v;
          j = next;
        } else value += text[j++];
      }
      if (j >= text.length) throw new Error(`unterminated " in: ${text}`);
      raw += text.slice(i, j + 1);
      quoted = inWord = true;
      i = j + 1;
    } else if (c === '\\' && text[i + 1] === '\n') {
      // A line continuation (the README always puts a space before it): a word break.
      flush();
      i += 2;
    } else if (c === '\\' && i + 1 < text.length) {
      raw += text.slice(i, i + 2);
      value += text[i + 1];
      inWord = true;
      i += 2;
    } else if (c === '$') {
      const [v, next] = expand(i);
      raw += text.slice(i, next);
      value += v;
      inWord = true;
      i = next;
    } else if (c === '#' && !inWord) {
      while (i < text.length && text[i] !== '\n') i++;
    } else if (c === ' ' || c === '\t') {
      flush();
      i++;
    } else if (c === '\n' || c === ';' || c === '&' || c === '|') {
      flush();
      const op = text.startsWith('&&', i) || text.startsWith('||', i) ? text.slice(i, i + 2) : c;
      out.push({ raw: op, value: op, quoted: false, op: true });
      i += op.length;
    } else {
      raw += c;
      value += c;
      inWord = true;
      i++;
    }
  }
  flush();
  return out;
}

/**
 * The commands of a shell block: lines joined across backslash continuations and quotes left open, split on
 * `&&`, `;` and newlines; a trailing `&` marks the command as backgrounded. A `|` between words that are not
 * separated by spaces (`csv|markdown|html`) stays in the word: README's notation for alternatives.
 */
export function shellCommands(block: FencedBlock, env: Record<string, string | undefined>): ShellCommand[] {
  // Alternatives (`a|b`) are part of a word in the README's notation: protect them from the operator split.
  const ALT = '\u0001';
  const text = block.text.replace(/(\S)\|(?=\S)/g, `$1${ALT}`);
  const words = shellWords(text, env);
  const commands: ShellCommand[] = [];
  let current: ShellWord[] = [];
  let consumed = 0;
  let startLine = block.line + 1;
  const lineOf = (offset: number) => block.line + 1 + (text.slice(0, offset).match(/\n/g)?.length ?? 0);
  const end = (background: boolean) => {
    if (current.length > 0) {
      commands.push({
        line: startLine,
        text: current.map((w) => w.raw.replaceAll(ALT, '|')).join(' '),
        words: current.map((w) => ({ raw: w.raw.replaceAll(ALT, '|'), value: w.value.replaceAll(ALT, '|'), quoted: w.quoted })),
        background,
      });
    }
    current = [];
  };
  for (const w of words) {
    if (current.length === 0 && !w.op) startLine = lineOf(text.indexOf(w.raw, consumed));
    if (!w.op) consumed = Math.max(consumed, text.indexOf(w.raw, consumed) + w.raw.length);
    if (w.op) end(w.value === '&');
    else current.push(w);
  }
  end(false);
  return commands;
}

/**
 * Expand README's notations in a command's words: an optional part in brackets (`[--check ID]`) is left out;
 * a word with alternatives (`csv|markdown|html`, unquoted) gives one command per alternative.
 */
export function expandNotation(words: ShellWord[]): string[][] {
  const kept: ShellWord[] = [];
  let depth = 0;
  for (const w of words) {
    if (!w.quoted && w.raw.startsWith('[')) depth++;
    if (depth === 0) kept.push(w);
    if (!w.quoted && w.raw.endsWith(']')) depth = Math.max(0, depth - 1);
  }
  let variants: string[][] = [[]];
  for (const w of kept) {
    const alternatives = !w.quoted && w.value.includes('|') ? w.value.split('|') : [w.value];
    variants = variants.flatMap((v) => alternatives.map((a) => [...v, a]));
  }
  return variants;
}

/** A curl command line as a fetch request. */
export interface CurlRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  body?: string;
}

/**
 * The request of a `curl` command (words after `curl`): `-H`/`--header`, `-d`/`--data`/`--data-raw`,
 * `-X`/`--request`; `-s`, `-S`, `-f`, `-i` change nothing for the request.
 * @throws Error on an option it does not know (add it here when the README starts using it)
 */
export function parseCurl(args: string[]): CurlRequest {
  const headers: Record<string, string> = {};
  let url: string | undefined;
  let method: string | undefined;
  let body: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '-H' || a === '--header') {
      const h = args[++i];
      const colon = h.indexOf(':');
      headers[h.slice(0, colon).trim().toLowerCase()] = h.slice(colon + 1).trim();
    } else if (a === '-d' || a === '--data' || a === '--data-raw') body = args[++i];
    else if (a === '-X' || a === '--request') method = args[++i];
    else if (['-s', '-S', '-sS', '-f', '-i', '--silent', '--fail'].includes(a)) continue;
    else if (/^https?:\/\//.test(a)) url = a;
    else throw new Error(`curl option ${a} is not understood by test/docs/readme-examples.util.ts parseCurl`);
  }
  if (!url) throw new Error(`curl without a URL: ${args.join(' ')}`);
  if (body !== undefined && !headers['content-type']) headers['content-type'] = 'application/x-www-form-urlencoded';
  return { url, method: method ?? (body !== undefined ? 'POST' : 'GET'), headers, ...(body !== undefined ? { body } : {}) };
}
