/**
 * CCM version strings: parsing and ordering.
 *
 * CCM is built with `TAG ?= $(shell git describe --tags)` (CCM `Makefile`, `version/version.go`), so a
 * version is a git-describe string:
 *  - old ACK images: `v1.9.3.<n>-g<hash>-aliyun` (e.g. `v1.9.3.276-g372aa98-aliyun`, seeds 000/001),
 *    where `<n>` counts commits after `v1.9.3`; one doc spells it `v1.9.3-164-g2105d2e-aliyun`;
 *  - releases: `v2.<minor>.<patch>` (e.g. `v2.11.2`, seed 000);
 *  - dev builds: `v2.12.1-3-gabc1234` (3 commits after v2.12.1).
 * Research: CCM notes 4 (docs/sources.md#ccm-4).
 */

/** A parsed CCM version. `build` orders builds of one release (`v1.9.3.N` by N; `-N-g` dev commits). */
export interface CcmVersion {
  /** The text as given (trimmed). */
  raw: string;
  major: number;
  minor: number;
  patch: number;
  /**
   * Commits after the `major.minor.patch` tag: the 4th dotted number (`v1.9.3.276`) or the git-describe
   * count (`v2.12.1-3-g...`, `v1.9.3-164-g...`); 0 for a release.
   */
  build: number;
  /** Abbreviated commit hash after `-g`, when present. */
  commit?: string;
  /** Trailing suffix such as `aliyun`, when present. */
  suffix?: string;
}

const VERSION_RE =
  /^v?(\d+)\.(\d+)\.(\d+)(?:\.(\d+))?(?:-(\d+))?(?:-g([0-9a-fA-F]+))?(?:-([A-Za-z][A-Za-z0-9.]*))?$/;

/**
 * Parses a CCM version string.
 *
 * @param text e.g. `v1.9.3.276-g372aa98-aliyun`, `v2.11.2`, `v2.12.1-3-gabc`; a leading `v` is optional
 * @returns the parsed version (frozen), or `undefined` when the text is not a CCM version (never throws). Comparing
 *   two version texts does not need it: `compareCcmVersionTexts` / `ccmVersionAtLeast` allocate nothing.
 */
export function parseCcmVersion(text: string | undefined | null): Readonly<CcmVersion> | undefined {
  if (typeof text !== 'string') return undefined;
  const raw = text.trim();
  const m = VERSION_RE.exec(raw);
  if (!m) return undefined;
  const dotted = m[4] !== undefined ? Number(m[4]) : undefined;
  const describeCount = m[5] !== undefined ? Number(m[5]) : undefined;
  // `v1.9.3.164-5-g...` cannot come out of git describe; treat the dotted build as authoritative.
  const build = dotted ?? describeCount ?? 0;
  return Object.freeze({
    raw,
    major: Number(m[1]),
    minor: Number(m[2]),
    patch: Number(m[3]),
    build,
    ...(m[6] !== undefined ? { commit: m[6].toLowerCase() } : {}),
    ...(m[7] !== undefined ? { suffix: m[7] } : {}),
  });
}

/**
 * Orders two parsed versions by (major, minor, patch, build); commit hash and suffix are ignored.
 *
 * @returns a negative number when `a` is older than `b`, 0 when equal, positive when newer
 */
export function compareCcmVersions(a: CcmVersion, b: CcmVersion): number {
  return a.major - b.major || a.minor - b.minor || a.patch - b.patch || a.build - b.build;
}

/**
 * Orders two version texts as `compareCcmVersions` orders their parses, without parsing into objects: the checks ask
 * it several times per Service (about 1.3M times on a 5,000-cluster fleet). The common texts (no surrounding blanks,
 * parts small enough to pack: `orderKey`) are compared as one number each; any other text goes through
 * `parseCcmVersion`, so the answer is the same for every text.
 *
 * @returns a negative number when `a` is older than `b`, 0 when equal, positive when newer; `undefined` when either
 *   text does not parse
 */
export function compareCcmVersionTexts(a: string | undefined | null, b: string | undefined | null): number | undefined {
  if (typeof a !== 'string' || typeof b !== 'string') return undefined;
  const ka = orderKey(a);
  const kb = orderKey(b);
  if (ka === ka && kb === kb) return ka - kb; // neither NaN
  const pa = parseCcmVersion(a);
  const pb = parseCcmVersion(b);
  return pa && pb ? compareCcmVersions(pa, pb) : undefined;
}

/**
 * Whether `installed` is at least `minimum` (`compareCcmVersionTexts`).
 *
 * @param installed version text (e.g. the `cloud-controller-manager` add-on version)
 * @param minimum version text from a documented requirement
 * @returns `undefined` when either string does not parse
 */
export function ccmVersionAtLeast(installed: string | undefined, minimum: string): boolean | undefined {
  const c = compareCcmVersionTexts(installed, minimum);
  return c === undefined ? undefined : c >= 0;
}

/**
 * A function that answers as `ccmVersionAtLeast` does (`true` / `false`, `undefined` when either text does not parse):
 * `ccmVersionAtLeast` itself, or a caller's memo of it (libs/checks `FleetIndex.ccmAtLeast`, per version text and
 * minimum) handed to a model asked once per Service.
 */
export type CcmVersionAtLeast = (installed: string | undefined, minimum: string) => boolean | undefined;

/** Bit widths of the parts `orderKey` packs into one number (8 + 12 + 12 + 21 = 53 bits, exact in a double). */
const MINOR_SPAN = 2 ** 12;
const PATCH_SPAN = 2 ** 12;
const BUILD_SPAN = 2 ** 21;
const MAJOR_SPAN = 2 ** 8;

/**
 * The order of a version text as one number, (major, minor, patch, build) packed so that numbers order as
 * `compareCcmVersions` orders the parses; `NaN` when the text is not one of the forms read here or a part does not
 * fit its bits (the caller then parses it). Reads, without backtracking, the forms `VERSION_RE` accepts on a text with
 * nothing to trim: `v?M.m.p`, an optional `.build`, then optionally `-count`, `-g<hex>` and `-<suffix>` in that order.
 * Whatever it accepts, `VERSION_RE` accepts with the same numbers (the numbers are fixed by the text before the first
 * `-`, and by a `-<digits>` right after it); it may refuse a text the regex accepts by backtracking (`-gabc.1`, a
 * suffix that starts like a hash), which then goes to `parseCcmVersion`. Allocates nothing.
 */
function orderKey(text: string): number {
  const n = text.length;
  if (n === 0 || !printable(text.charCodeAt(0)) || !printable(text.charCodeAt(n - 1))) return NaN;
  let i = text.charCodeAt(0) === 118 /* v */ ? 1 : 0;
  let j = digitsEnd(text, i);
  const major = partOf(text, i, j);
  if (text.charCodeAt(j) !== 46 /* . */) return NaN;
  i = j + 1;
  j = digitsEnd(text, i);
  const minor = partOf(text, i, j);
  if (text.charCodeAt(j) !== 46) return NaN;
  i = j + 1;
  j = digitsEnd(text, i);
  const patch = partOf(text, i, j);
  i = j;
  let build = 0;
  let dotted = false;
  if (i < n && text.charCodeAt(i) === 46) {
    j = digitsEnd(text, i + 1);
    build = partOf(text, i + 1, j);
    dotted = true;
    i = j;
  }
  if (i < n && text.charCodeAt(i) === 45 /* - */ && isDigit(text.charCodeAt(i + 1))) {
    j = digitsEnd(text, i + 1);
    const count = partOf(text, i + 1, j);
    if (!dotted) build = count; // `v1.9.3.164-5-g...`: the dotted build is authoritative (parseCcmVersion)
    i = j;
  }
  if (i < n && text.charCodeAt(i) === 45 && text.charCodeAt(i + 1) === 103 /* g */ && isHex(text.charCodeAt(i + 2))) {
    j = i + 3;
    while (j < n && isHex(text.charCodeAt(j))) j++;
    if (j < n && text.charCodeAt(j) !== 45) return NaN;
    i = j;
  }
  if (i < n) {
    if (text.charCodeAt(i) !== 45 || !isLetter(text.charCodeAt(i + 1))) return NaN;
    for (i += 2; i < n; i++) {
      const c = text.charCodeAt(i);
      if (!isLetter(c) && !isDigit(c) && c !== 46) return NaN;
    }
  }
  if (!(major < MAJOR_SPAN && minor < MINOR_SPAN && patch < PATCH_SPAN && build < BUILD_SPAN)) return NaN;
  return ((major * MINOR_SPAN + minor) * PATCH_SPAN + patch) * BUILD_SPAN + build;
}

/** A code unit `String.prototype.trim` never removes and the version forms may end with (printable ASCII). */
function printable(c: number): boolean {
  return c > 32 && c < 127;
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

function isHex(c: number): boolean {
  return isDigit(c) || (c >= 97 && c <= 102) || (c >= 65 && c <= 70);
}

function isLetter(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90);
}

/** The end of the run of digits starting at `from` (`from` itself when there is none). */
function digitsEnd(text: string, from: number): number {
  let j = from;
  while (j < text.length && isDigit(text.charCodeAt(j))) j++;
  return j;
}

/** The number written by the digits `text[from, to)`; NaN without digits or with more than 9 (too large to pack). */
function partOf(text: string, from: number, to: number): number {
  if (to === from || to - from > 9) return NaN;
  let v = 0;
  for (let k = from; k < to; k++) v = v * 10 + (text.charCodeAt(k) - 48);
  return v;
}

/**
 * The newer of two version strings (unparseable ones lose; if both fail, `undefined`).
 */
export function newerCcmVersion(a: string | undefined, b: string | undefined): string | undefined {
  // Per cluster, not per Service: the parses give the trimmed texts it answers with.
  const pa = parseCcmVersion(a);
  const pb = parseCcmVersion(b);
  if (pa && pb) return compareCcmVersions(pa, pb) >= 0 ? pa.raw : pb.raw;
  return pa?.raw ?? pb?.raw;
}
