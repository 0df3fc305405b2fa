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
 * @returns the parsed version (frozen, shared by every caller that parses the same text), or `undefined` when the
 *   text is not a CCM version (never throws)
 */
export function parseCcmVersion(text: string | undefined | null): CcmVersion | undefined {
  if (typeof text !== 'string') return undefined;
  // A fleet has a handful of CCM versions and the checks parse them once per Service: memoised.
  if (parsedVersions.has(text)) return parsedVersions.get(text);
  const parsed = parseUncached(text);
  if (parsedVersions.size >= PARSED_VERSIONS_MAX) parsedVersions.clear();
  parsedVersions.set(text, parsed);
  return parsed;
}

/** Parsed versions by their text (frozen: every caller shares them), at most `PARSED_VERSIONS_MAX` kept. */
const parsedVersions = new Map<string, Readonly<CcmVersion> | undefined>();
const PARSED_VERSIONS_MAX = 1024;

function parseUncached(text: string): Readonly<CcmVersion> | undefined {
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
 * Whether `installed` is at least `minimum`.
 *
 * @param installed version text (e.g. the `cloud-controller-manager` add-on version)
 * @param minimum version text from a documented requirement
 * @returns `undefined` when either string does not parse
 */
export function ccmVersionAtLeast(installed: string | undefined, minimum: string): boolean | undefined {
  const a = parseCcmVersion(installed);
  const b = parseCcmVersion(minimum);
  if (!a || !b) return undefined;
  return compareCcmVersions(a, b) >= 0;
}

/**
 * The newer of two version strings (unparseable ones lose; if both fail, `undefined`).
 */
export function newerCcmVersion(a: string | undefined, b: string | undefined): string | undefined {
  const pa = parseCcmVersion(a);
  const pb = parseCcmVersion(b);
  if (pa && pb) return compareCcmVersions(pa, pb) >= 0 ? pa.raw : pb.raw;
  return pa?.raw ?? pb?.raw;
}
