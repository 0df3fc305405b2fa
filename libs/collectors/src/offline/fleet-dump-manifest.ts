/**
 * The manifest of a fleet directory written by `fleet-audit dump` (`dump.json` at its root): when the
 * crawl ended and which datasets it could not read, with the API's error code and message. The offline
 * reader uses it so that an offline scan of a dump reports the same coverage gaps as the live scan
 * (fleet-dump.ts; docs/fleet-format.md "Dumps").
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import type { CoverageEntry } from '@app/domain';

/** File name of the dump manifest at the root of a dumped fleet directory. */
export const DUMP_MANIFEST_FILE = 'dump.json';

const coverageEntrySchema = z.object({
  accountId: z.string(),
  regionId: z.string().optional(),
  clusterId: z.string().optional(),
  api: z.string(),
  status: z.enum(['ok', 'absent', 'failed']),
  errorCode: z.string().optional(),
  message: z.string().optional(),
});

/** Schema of `dump.json`. */
export const dumpManifestSchema = z.object({
  /** Manifest format version. */
  format: z.literal(1),
  /** When the crawl ended (ISO 8601). */
  dumpedAt: z.string(),
  /** The scan config's `name`. */
  fleet: z.string(),
  /** Coverage entries of the crawl that are not `ok` (failed reads, absent datasets), in crawl order. */
  notRead: z.array(coverageEntrySchema),
});

/** The manifest of a dump (`dump.json`). */
export type DumpManifest = z.infer<typeof dumpManifestSchema>;

/**
 * Read `dump.json` of a fleet directory, if any.
 * @returns the manifest, or undefined when the directory is not a dump (or the manifest is unreadable:
 *   then the reader's own coverage stands)
 */
export function readDumpManifest(root: string): DumpManifest | undefined {
  const file = join(root, DUMP_MANIFEST_FILE);
  if (!existsSync(file)) return undefined;
  try {
    const parsed = dumpManifestSchema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
    return parsed.success ? parsed.data : undefined;
  } catch {
    // An unreadable manifest is not an error of the fleet: the files themselves are the data.
    return undefined;
  }
}

/**
 * Coverage of a dumped fleet as the crawl saw it: a dataset whose files the reader finds missing (a
 * required one `failed` with ENOENT, an optional one `absent`) and that the manifest lists as not read
 * gets the crawl's status, error code and message, so the offline scan of the dump names the same gap in
 * the API's words (a failed read is prefixed "not read when dumped at <dumpedAt>: ").
 * @param coverage the reader's coverage (not changed)
 * @returns the coverage to report
 */
export function applyDumpManifest(coverage: readonly CoverageEntry[], manifest: DumpManifest): CoverageEntry[] {
  const key = (c: Pick<CoverageEntry, 'accountId' | 'regionId' | 'clusterId' | 'api'>) => `${c.accountId}/${c.regionId ?? ''}/${c.clusterId ?? ''}/${c.api}`;
  const notRead = new Map(manifest.notRead.map((c) => [key(c as CoverageEntry), c]));
  return coverage.map((c) => {
    // A file that is missing (required: `failed` ENOENT; optional: `absent`) and that the crawl named.
    const missing = (c.status === 'failed' && c.errorCode === 'ENOENT') || c.status === 'absent';
    const m = missing ? notRead.get(key(c)) : undefined;
    if (!m) return c;
    const where: CoverageEntry = { accountId: c.accountId, api: c.api, status: c.status };
    if (c.regionId !== undefined) where.regionId = c.regionId;
    if (c.clusterId !== undefined) where.clusterId = c.clusterId;
    if (m.status === 'absent') return { ...where, status: 'absent', ...(m.message !== undefined ? { message: m.message } : {}) };
    if (m.status !== 'failed') return c;
    return { ...where, status: 'failed', errorCode: m.errorCode ?? 'error', message: `not read when dumped at ${manifest.dumpedAt}: ${m.message ?? m.errorCode ?? 'unknown'}` };
  });
}
