import { FINDING_CHANGES, type FindingChange } from '@app/store';
import { z } from 'zod';
import { cursorPageQueryFields, deprecatedOffsetField, idFilter, listPageQueryFields, afterOrOffset, scanIdSchema } from '../common/request.schemas';

/** Query of `GET /v1/scans`: `limit` + `after` (keyset on start time and id); `offset` deprecated. */
export const listScansQuerySchema = afterOrOffset(z.strictObject({ ...listPageQueryFields, offset: deprecatedOffsetField }));

/** Parsed query of `GET /v1/scans`. */
export type ListScansQuery = z.output<typeof listScansQuerySchema>;

/** Body of `POST /v1/scans` (optional: an empty body launches the default source). */
export const launchScanBodySchema = z
  .strictObject({
    source: z
      .string()
      .min(1, 'must not be empty')
      .max(100, 'must be at most 100 characters')
      .optional()
      .describe('Name of a configured scan source; default: the first configured source'),
  })
  .optional()
  .default({});

/** Parsed body of `POST /v1/scans`. */
export type LaunchScanBody = z.output<typeof launchScanBodySchema>;

/** Query of `GET /v1/scans/{id}/diff`: the baseline scan, filters (each side) and keyset paging. */
export const scanDiffQuerySchema = z.strictObject({
  against: scanIdSchema
    .optional()
    .describe('Baseline scan id (uuid), older or newer: the diff says how scan {id} differs from it; default: the previous succeeded scan of the same fleet'),
  change: z
    .enum(FINDING_CHANGES as [FindingChange, ...FindingChange[]], `must be one of ${FINDING_CHANGES.join(', ')}`)
    .optional()
    .describe('Only items of this change (counts always cover every change)'),
  checkId: idFilter('Only findings of this check id (both scans)'),
  accountId: idFilter('Only findings in this Alibaba Cloud account (both scans)'),
  clusterId: idFilter('Only findings in this ACK cluster (both scans)'),
  ...cursorPageQueryFields,
});

/** Parsed query of `GET /v1/scans/{id}/diff`. */
export type ScanDiffQueryParams = z.output<typeof scanDiffQuerySchema>;
