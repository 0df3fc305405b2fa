/**
 * Every coverage dataset at run time, for enumerations (API schemas, docs): the account's (`ram`), the region's
 * (`slb` for CLB, then each other load-balancer kind's dataset in `LB_KINDS` order, e.g. `nlb`, then `ecs`, `vpc`,
 * `quotas`, `quota-applications`, `cs`) and the cluster's. The type is `CoverageDataset` (snapshot.types.ts).
 */
import { KIND_DATA } from './lb-kinds';
import type { CoverageDataset } from './snapshot.types';

/** The datasets in account, region, cluster order (see the file comment). */
export const COVERAGE_DATASETS: readonly CoverageDataset[] = Object.freeze([
  'ram',
  'slb',
  ...KIND_DATA.map((d) => d.dataset),
  'ecs',
  'vpc',
  'quotas',
  'quota-applications',
  'cs',
  'cluster',
  'addons',
  'resources',
  'sysctls',
  'kubernetes',
]);
