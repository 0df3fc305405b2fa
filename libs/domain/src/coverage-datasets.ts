/**
 * Every coverage dataset at run time, for enumerations (API schemas, docs): the account's (`ram`), the region's
 * (`slb` for CLB, then each other load-balancer kind's dataset in `LB_KINDS` order, e.g. `nlb`, then `ecs`, `vpc`,
 * `quotas`, `quota-applications`, `cs`) and the cluster's. The type is `CoverageDataset` (snapshot.types.ts).
 */
import { KIND_DATA } from './lb-kinds';
import type { CoverageDataset } from './snapshot.types';

/** Datasets of an account target (ram). */
export const ACCOUNT_DATASETS: readonly CoverageDataset[] = Object.freeze(['ram']);

/** Datasets of a region target: CLB (`slb`), each other load-balancer kind's (`KIND_DATA`, e.g. `nlb`), then the rest. */
export const REGION_DATASETS: readonly CoverageDataset[] = Object.freeze([
  'slb',
  ...KIND_DATA.map((d) => d.dataset),
  'ecs',
  'vpc',
  'quotas',
  'quota-applications',
  'cs',
]);

/** The datasets in account, region, cluster order (see the file comment). */
export const COVERAGE_DATASETS: readonly CoverageDataset[] = Object.freeze([
  ...ACCOUNT_DATASETS,
  ...REGION_DATASETS,
  'cluster',
  'addons',
  'resources',
  'sysctls',
  'kubernetes',
]);
