/**
 * The waivers file of offline scans and CI (`fleet-audit scan --waivers FILE`, `fleet-audit report
 * --waivers FILE`): YAML or JSON, strict (unknown keys are errors, with the JSON path), e.g.
 *
 * ```yaml
 * waivers:
 *   - checkId: CLB_BACKEND_QUOTA
 *     accountId: "1234567890123456"
 *     clusterId: c-prod-1          # optional, like regionId
 *     resource: "lb-bp1*"          # exact id or glob (*, ?)
 *     owner: team-network
 *     reason: NLB migration planned for Q3
 *     category: accepted-risk      # accepted-risk | mitigated | false-positive
 *     ticket: NET-42               # optional
 *     expiresAt: 2026-09-30        # required in a file; at most 180 days from now; past = expired
 * ```
 *
 * The same rules as stored waivers (libs/domain waiver.schemas.ts), except that an expiry in the past
 * is allowed: such a waiver no longer applies and its findings show as "waiver expired".
 */
import { MAX_WAIVER_DAYS, DAY_MS, waiverFields, waiverInputSchema, type Waiver } from '@app/domain';
import { ScanConfigError, parseConfigDocument, readConfigFile } from '@app/collectors';
import { unknownCheckIdReason } from '@app/checks';
import { z } from 'zod';

const fileSchema = z.strictObject({
  waivers: z.array(waiverInputSchema.required({ expiresAt: true })),
});

/**
 * Parse and validate a waivers file.
 * @param now the clock (expiry bound: at most 180 days after it)
 * @returns the waivers, with ids `<file>#<index>` and createdBy `file`
 * @throws ScanConfigError naming the file, the JSON path and what was expected (also for a check id that is
 *   not in the catalogue, with the nearest one)
 */
export function parseWaiversFile(text: string, file: string, now: Date): Waiver[] {
  const doc = parseConfigDocument(text, file, fileSchema, 'a waivers file: { waivers: [ {checkId, accountId, resource, owner, reason, category, expiresAt}, ... ] }');
  return doc.waivers.map((w, i) => {
    // A waiver of a check that does not exist would match nothing.
    const unknown = unknownCheckIdReason(w.checkId);
    if (unknown) throw new ScanConfigError(file, `$.waivers[${i}].checkId`, `a check id of the catalogue (${unknown})`);
    const expires = new Date(w.expiresAt.length === 10 ? `${w.expiresAt}T00:00:00Z` : w.expiresAt);
    if (expires.getTime() > now.getTime() + MAX_WAIVER_DAYS * DAY_MS)
      throw new ScanConfigError(file, `$.waivers[${i}].expiresAt`, `an expiry at most ${MAX_WAIVER_DAYS} days from now (${now.toISOString()})`);
    return {
      id: `${file}#${i}`,
      ...waiverFields(w),
      createdBy: 'file',
      createdAt: now.toISOString(),
      expiresAt: expires.toISOString(),
    };
  });
}

/**
 * Read, parse and validate a waivers file.
 * @throws ScanConfigError when unreadable or invalid
 */
export function loadWaiversFile(path: string, now: Date = new Date()): Waiver[] {
  return parseWaiversFile(readConfigFile(path), path, now);
}
