/**
 * Wildcard globs (`*` any run of characters, `?` one character) matched without regular expressions.
 *
 * A glob compiled to a JavaScript RegExp (`*` -> `.*`) runs on a backtracking engine: a pattern of k stars
 * tried against an id that does not match costs about n^k steps (twelve stars and a 40-character id never
 * end). Libraries do not avoid this: picomatch 4 compiles `*a*a*a*a*a*a*a*a*b` to a lazy `[^/]*?` chain that
 * takes over a second on 40 characters, and its `*` stops at `/`, while ours crosses it (Kubernetes ids are
 * `namespace/name`). The matcher here is the iterative two-pointer wildcard match: it remembers only the
 * last `*` seen and, on a mismatch, retries from the character after the one that star last took, so it
 * never revisits an earlier star. Its cost is at most (pattern length + 1) x (text length + 1) character
 * comparisons whatever the pattern, and linear in the text for a pattern without stars.
 */

/** How a glob is read. */
export interface GlobOptions {
  /** `?` matches any one character (default true); false: `?` is a literal character. */
  singleCharacterWildcard?: boolean;
  /** Compare case-insensitively (default false), as RAM action names are compared. */
  caseInsensitive?: boolean;
}

/**
 * Whether `text` matches the glob `pattern` as a whole: `*` matches any run of characters (none included,
 * `/` included), `?` exactly one UTF-16 code unit (unless `singleCharacterWildcard` is false); every other
 * character matches itself.
 * @param pattern the glob
 * @param text the id or name tested
 * @returns true when the whole text matches
 */
export function globMatches(pattern: string, text: string, options: GlobOptions = {}): boolean {
  const single = options.singleCharacterWildcard !== false;
  const p = options.caseInsensitive ? pattern.toLowerCase() : pattern;
  const t = options.caseInsensitive ? text.toLowerCase() : text;
  let pi = 0;
  let ti = 0;
  // Position in the pattern just after the last star, and the text position that star's run ends at.
  let afterStar = -1;
  let starEnd = 0;
  while (ti < t.length) {
    const c = pi < p.length ? p[pi] : undefined;
    if (c === '*') {
      afterStar = ++pi;
      starEnd = ti;
    } else if (c !== undefined && (c === t[ti] || (single && c === '?'))) {
      pi++;
      ti++;
    } else if (afterStar >= 0) {
      // The last star takes one more character; the pattern after it is tried again from there.
      pi = afterStar;
      ti = ++starEnd;
    } else {
      return false;
    }
  }
  while (pi < p.length && p[pi] === '*') pi++;
  return pi === p.length;
}

/** Whether `pattern` holds a wildcard (`*`, or `?` unless `singleCharacterWildcard` is false). */
export function hasGlobWildcard(pattern: string, options: GlobOptions = {}): boolean {
  return pattern.includes('*') || (options.singleCharacterWildcard !== false && pattern.includes('?'));
}

/**
 * Wildcard characters of a glob: every `*` and `?` (what {@link MAX_GLOB_WILDCARDS} bounds).
 * @returns the count
 */
export function globWildcardCount(pattern: string): number {
  let n = 0;
  for (const c of pattern) if (c === '*' || c === '?') n++;
  return n;
}

/**
 * Most wildcard characters (`*`, `?`) a stored glob may hold (waiver resources). The matcher is safe for any
 * pattern; the bound keeps every stored pattern readable and each match cheap (an id is compared at most
 * `wildcards + 1` segments deep), and refuses at the boundary what no resource id needs: `lb-bp1*`,
 * `storefront/*`, `*-canary-*`, `i-2ze????` all fit.
 */
export const MAX_GLOB_WILDCARDS = 10;

/**
 * A predicate over ids for one glob: plain equality when the pattern holds no wildcard, else
 * {@link globMatches} (linear per id for a fixed pattern).
 * @param pattern the glob (or an exact id)
 */
export function compileGlob(pattern: string, options: GlobOptions = {}): (text: string) => boolean {
  if (!hasGlobWildcard(pattern, options)) {
    if (!options.caseInsensitive) return (text) => text === pattern;
    const lower = pattern.toLowerCase();
    return (text) => text.toLowerCase() === lower;
  }
  return (text) => globMatches(pattern, text, options);
}
