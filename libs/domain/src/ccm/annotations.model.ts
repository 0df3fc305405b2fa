import { ANNOTATION_LEGACY_PREFIX, ANNOTATION_PREFIX } from './ccm.constants';

/**
 * Reading CCM LB annotations the way CCM does (`Get`, pkg/controller/service/reconcile/annotation/
 * annotations.go): the key `${ANNOTATION_PREFIX}-${suffix}` wins when present (even with an empty
 * value), else the legacy `${ANNOTATION_LEGACY_PREFIX}-${suffix}`. Test: `TestGet` in annotations_test.go.
 */

const KEYS = new Map<string, readonly [string, string]>();

function keysOf(suffix: string): readonly [string, string] {
  let k = KEYS.get(suffix);
  if (!k) {
    // Hot path (every Service, several suffixes): build each key string once.
    k = [`${ANNOTATION_PREFIX}-${suffix}`, `${ANNOTATION_LEGACY_PREFIX}-${suffix}`] as const;
    if (KEYS.size < 1000) KEYS.set(suffix, k);
  }
  return k;
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
