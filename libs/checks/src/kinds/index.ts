/**
 * The checks that a load-balancer kind keeps in its own folder of libs/checks (`kinds/<kind>/`: its rules, their
 * fixtures in `kinds/<kind>/fixtures/<CHECK_ID>/`, its specs), so that a new kind adds its checks with one line here
 * (`...<KIND>_CHECKS`, in `LB_KINDS` order) instead of editing the registry, the fixture folder and the specs that
 * enumerate checks. The registry (check.registry.ts) places each in its category's section of the catalogue, after
 * the checks that section lists; the fixture spec and the golden digests find the fixtures by walking the folders.
 * The CLB and NLB checks predate the folders and stay in rules/ (their ids, order and fixtures are public: the
 * catalogue, docs/checks.md and the golden digests name them).
 */
import type { CheckDefinition } from '../check.types';

/** The checks of the kind folders, in `LB_KINDS` order, each kind's in its own order (see the file comment). */
export const KIND_CHECKS: readonly CheckDefinition[] = Object.freeze<CheckDefinition[]>([]);
