import { z } from 'zod';
import { pageQueryFields } from '../common/request.schemas';

/** Query of `GET /v1/scans`. */
export const listScansQuerySchema = z.strictObject({ ...pageQueryFields });

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
