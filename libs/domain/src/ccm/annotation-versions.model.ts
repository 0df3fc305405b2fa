import type { LoadBalancerKindId } from '../lb-kinds/kind-id';
import { ANNOTATION_BACKEND_TYPE } from './ccm.constants';
import { lbAnnotationSuffixOf } from './annotations.model';
import {
  BACKEND_TYPE_MIN_VERSION,
  CLB_ANNOTATION_MIN_VERSIONS,
  NLB_ANNOTATION_MIN_VERSIONS,
  NLB_MIN_VERSION,
  type AnnotationMinimumVersion,
} from './annotation-versions.constants';
import { ccmVersionAtLeast, type CcmVersionAtLeast } from './version.model';

/** The minimum-version rows by suffix, built once at load (read-only). */
const CLB_BY_SUFFIX: ReadonlyMap<string, AnnotationMinimumVersion> = new Map(CLB_ANNOTATION_MIN_VERSIONS.map((r) => [r.suffix, r]));
const NLB_BY_SUFFIX: ReadonlyMap<string, AnnotationMinimumVersion> = new Map(NLB_ANNOTATION_MIN_VERSIONS.map((r) => [r.suffix, r]));

/** An annotation on a Service that the installed CCM does not support. */
export interface UnsupportedAnnotation {
  /** The annotation key as written on the Service. */
  key: string;
  minimumVersion: string;
  source: string;
}

/**
 * The minimum CCM version of one annotation key for the given controller, or `undefined` for keys the
 * tables do not list (unknown or unversioned keys are not judged).
 * NLB: any LB annotation needs at least v2.5.0 (the NLB controller's minimum), newer ones as listed.
 */
export function annotationMinimumVersion(
  key: string,
  controller: LoadBalancerKindId,
): AnnotationMinimumVersion | undefined {
  if (key === ANNOTATION_BACKEND_TYPE) return controller === 'clb' ? BACKEND_TYPE_MIN_VERSION : undefined;
  const parsed = lbAnnotationSuffixOf(key);
  if (!parsed) return undefined;
  if (controller === 'clb') return CLB_BY_SUFFIX.get(parsed.suffix);
  return (
    NLB_BY_SUFFIX.get(parsed.suffix) ?? {
      suffix: parsed.suffix,
      minimumVersion: NLB_MIN_VERSION,
      source: 'ACK doc "Configure NLB using annotations": NLB requires CCM v2.5.0 or later',
    }
  );
}

/**
 * The Service's annotations whose documented minimum CCM version is newer than the installed one.
 *
 * @param annotations the Service's annotations
 * @param installedVersion the CCM version (add-on version)
 * @param controller `clb` for Services the CLB controller takes, `nlb` for NLB Services
 * @param atLeast how the installed version is compared with a minimum: `ccmVersionAtLeast` (the texts compared without
 *   parsing them into objects), or a memo of it (an audit asks per Service)
 * @returns the unsupported annotations sorted by key, or `undefined` when the version does not parse
 */
export function unsupportedAnnotations(
  annotations: Record<string, string>,
  installedVersion: string,
  controller: LoadBalancerKindId,
  atLeast: CcmVersionAtLeast = ccmVersionAtLeast,
): UnsupportedAnnotation[] | undefined {
  // A version is at least itself exactly when it parses.
  if (atLeast(installedVersion, installedVersion) === undefined) return undefined;
  const out: UnsupportedAnnotation[] = [];
  for (const key of Object.keys(annotations).sort()) {
    const row = annotationMinimumVersion(key, controller);
    if (!row) continue;
    if (atLeast(installedVersion, row.minimumVersion) === false) {
      out.push({ key, minimumVersion: row.minimumVersion, source: row.source });
    }
  }
  return out;
}
