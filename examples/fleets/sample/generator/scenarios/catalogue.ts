/**
 * The additions made for the whole check catalogue (docs/checks.md): drawn from their own PRNG stream so
 * that every id of the four original clusters stayed as it was (only emitter-level values after them
 * shifted when they were added).
 */
import type { SampleFleet } from '../model';
import { arena } from './arena';
import { batchLegacy } from './batch-legacy';
import { lateAdditions } from './late-additions';
import { storefrontCatalogue } from './storefront-catalogue';

/** Seed of the catalogue additions' PRNG stream. */
export const CATALOGUE_SEED = 0x20270101;

/** Adds storefront's catalogue Services, the clusters arena and batch-legacy, and the late additions, in that order. */
export function catalogueAdditions(f: SampleFleet): void {
  f.random.withStream(CATALOGUE_SEED, () => {
    const statusSvc = storefrontCatalogue(f);
    arena(f, statusSvc);
    batchLegacy(f);
    lateAdditions(f);
  });
}
