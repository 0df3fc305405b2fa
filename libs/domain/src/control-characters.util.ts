/**
 * Control characters in text a client sends (waiver owner / reason / ticket, token names). Stored text is later
 * printed by the CLI and shown in terminals, where C0 and C1 controls are commands, not text: `ESC ] 0 ; ... BEL`
 * retitles the window, `ESC [ 2 J` clears the screen, `ESC ] 52 ; c ; ...` writes the clipboard (ECMA-48 /
 * xterm "Operating System Commands"), a bare CR overwrites the line already printed. The API refuses them where
 * they enter, naming the field; tab and line feed are accepted only where a field is free text over several
 * lines (a waiver's reason).
 *
 * Refused: C0 (U+0000-U+001F), DEL (U+007F) and C1 (U+0080-U+009F: U+009B is a one-character CSI, U+009D an OSC).
 */

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001F\u007F-\u009F]/g;

/**
 * The first control character of `s` not in `allowed`, with its position, or undefined.
 * @param s the text
 * @param allowed control characters the field accepts (e.g. `'\t\n'`), default none
 * @returns `{ index, codePoint }` (index in UTF-16 code units, from 0)
 */
export function firstControlCharacter(s: string, allowed = ''): { index: number; codePoint: number } | undefined {
  CONTROL.lastIndex = 0;
  for (let m = CONTROL.exec(s); m !== null; m = CONTROL.exec(s)) {
    if (!allowed.includes(m[0])) return { index: m.index, codePoint: m[0].charCodeAt(0) };
  }
  return undefined;
}

/**
 * Whether `s` holds a control character (C0, DEL, C1) other than those in `allowed`.
 * @param allowed control characters the field accepts (e.g. `'\t\n'`), default none
 */
export function hasControlCharacters(s: string, allowed = ''): boolean {
  return firstControlCharacter(s, allowed) !== undefined;
}

/**
 * The validation message for a text holding a refused control character, naming it and where it is:
 * `must not contain control characters (U+001B at character 4)`, plus what the field accepts.
 * @param allowed control characters the field accepts (named in the message when not empty)
 * @returns undefined when the text has none
 */
export function controlCharacterProblem(s: string, allowed = ''): string | undefined {
  const found = firstControlCharacter(s, allowed);
  if (!found) return undefined;
  const code = `U+${found.codePoint.toString(16).toUpperCase().padStart(4, '0')}`;
  const accepts = allowed === '' ? '' : `; only ${[...allowed].map((c) => (c === '\t' ? 'tab' : c === '\n' ? 'line feed' : `U+${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`)).join(' and ')} are accepted`;
  return `must not contain control characters (${code} at character ${found.index + 1}${accepts})`;
}
