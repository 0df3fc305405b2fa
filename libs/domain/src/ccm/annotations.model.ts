import { CLB_ANNOTATION_MIN_VERSIONS, NLB_ANNOTATION_MIN_VERSIONS } from './annotation-versions.constants';
import { ANNOTATION_LEGACY_PREFIX, ANNOTATION_PREFIX, LB_ANNOTATION } from './ccm.constants';

/**
 * Reading CCM LB annotations the way CCM does (`Get`, pkg/controller/service/reconcile/annotation/
 * annotations.go): the key `${ANNOTATION_PREFIX}-${suffix}` wins when present (even with an empty
 * value), else the legacy `${ANNOTATION_LEGACY_PREFIX}-${suffix}`. Test: `TestGet` in annotations_test.go.
 */

/** The current and legacy keys of an annotation suffix. */
function keyPair(suffix: string): readonly [string, string] {
  return [`${ANNOTATION_PREFIX}-${suffix}`, `${ANNOTATION_LEGACY_PREFIX}-${suffix}`] as const;
}

/**
 * The key pair of every suffix the audit knows (`LB_ANNOTATION` and the minimum-version tables), built once at load
 * and never written after: the hot path (every Service, several suffixes) builds no key string. Another suffix builds
 * its pair at each call.
 */
const KEYS: ReadonlyMap<string, readonly [string, string]> = new Map(
  [...Object.values(LB_ANNOTATION), ...CLB_ANNOTATION_MIN_VERSIONS.map((r) => r.suffix), ...NLB_ANNOTATION_MIN_VERSIONS.map((r) => r.suffix)].map(
    (suffix) => [suffix, keyPair(suffix)] as const,
  ),
);

function keysOf(suffix: string): readonly [string, string] {
  return KEYS.get(suffix) ?? keyPair(suffix);
}

/** Full annotation key of an LB annotation suffix under the current prefix. */
export function lbAnnotationKey(suffix: string): string {
  return keysOf(suffix)[0];
}

/** Full annotation key of an LB annotation suffix under the legacy `alicloud-` prefix. */
export function legacyLbAnnotationKey(suffix: string): string {
  return keysOf(suffix)[1];
}

/**
 * The value of an LB annotation: current prefix first, then legacy.
 *
 * @param annotations the Service's `metadata.annotations`
 * @param suffix e.g. `id`, `backend-label`
 * @returns the value, or `undefined` when neither key is present
 */
export function getLbAnnotation(annotations: Record<string, string>, suffix: string): string | undefined {
  const [key, legacyKey] = keysOf(suffix);
  const current = annotations[key];
  if (current !== undefined) return current;
  return annotations[legacyKey];
}

/**
 * The suffix of an LB annotation key under either prefix (`...-loadbalancer-id` -> `id`).
 *
 * @returns the suffix and which prefix it used, or `undefined` for other keys
 */
export function lbAnnotationSuffixOf(key: string): { suffix: string; legacy: boolean } | undefined {
  const cur = `${ANNOTATION_PREFIX}-`;
  if (key.startsWith(cur) && key.length > cur.length) return { suffix: key.slice(cur.length), legacy: false };
  const leg = `${ANNOTATION_LEGACY_PREFIX}-`;
  if (key.startsWith(leg) && key.length > leg.length) return { suffix: key.slice(leg.length), legacy: true };
  return undefined;
}
