/**
 * The AdmissionReview `admission.k8s.io/v1` envelope a kube-apiserver sends a validating webhook, validated at the
 * API's boundary, and the review it expects back. Shapes: kubernetes/api `admission/v1/types.go` (AdmissionReview,
 * AdmissionRequest, AdmissionResponse); the apiserver refuses an answer of another group/version or another uid
 * (apiserver `pkg/admission/plugin/webhook/request/admissionreview.go`), which then counts as a webhook failure.
 */
import { z } from 'zod';

/** Group/version of every review this API reads and answers (the only one the Helm chart registers). */
export const ADMISSION_API_VERSION = 'admission.k8s.io/v1';

/** `GroupVersionKind` / `GroupVersionResource` of a request (apimachinery `metav1`). */
const groupVersion = z.looseObject({ group: z.string().max(253), version: z.string().max(63) });

/**
 * `AdmissionRequest`: only what the judgement reads is typed, the rest kept loose (the apiserver adds fields across
 * versions). `object` and `oldObject` are any Kubernetes object (the kind is read from them); null on DELETE / CREATE.
 */
export const admissionRequestSchema = z.looseObject({
  uid: z.string().min(1).max(128),
  kind: groupVersion.extend({ kind: z.string().max(253) }),
  resource: groupVersion.extend({ resource: z.string().max(253) }),
  subResource: z.string().max(253).nullish(),
  name: z.string().max(253).nullish(),
  namespace: z.string().max(253).nullish(),
  operation: z.enum(['CREATE', 'UPDATE', 'DELETE', 'CONNECT']),
  object: z.record(z.string(), z.unknown()).nullish(),
  oldObject: z.record(z.string(), z.unknown()).nullish(),
  dryRun: z.boolean().nullish(),
});

/** The review the apiserver posts: `{apiVersion: admission.k8s.io/v1, kind: AdmissionReview, request}`. */
export const admissionReviewSchema = z.looseObject({
  apiVersion: z.literal(ADMISSION_API_VERSION, { error: `expected "${ADMISSION_API_VERSION}" (the chart registers admissionReviewVersions [v1])` }),
  kind: z.literal('AdmissionReview'),
  request: admissionRequestSchema,
});

/** A validated review request. */
export type AdmissionRequest = z.infer<typeof admissionRequestSchema>;

/** `metav1.Status` of a denial: the apiserver shows `message` after `admission webhook "<name>" denied the request: `. */
export interface AdmissionStatus {
  code: number;
  reason: string;
  message: string;
}

/** `AdmissionResponse` of a validating webhook (never `patch`: the apiserver treats a validating patch as a failure). */
export interface AdmissionResponse {
  uid: string;
  allowed: boolean;
  /** Present only when the review is denied. */
  status?: AdmissionStatus;
  /** One finding per warning, single line, at most MAX_WARNING_RUNES each (kubectl prints each as `Warning: <text>`). */
  warnings?: string[];
}

/** The answer: the same group/version as the request, `response.uid` = `request.uid`. */
export interface AdmissionReviewAnswer {
  apiVersion: typeof ADMISSION_API_VERSION;
  kind: 'AdmissionReview';
  response: AdmissionResponse;
}
