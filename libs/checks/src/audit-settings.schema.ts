import { z } from 'zod';
import { TEAM_NAME } from '@app/domain';
import type { PartialAuditSettings } from './audit-settings.types';

const ratio = z.number().gt(0).max(1);
const count = z.number().int().min(0);
const severity = z.enum(['info', 'warning', 'critical']);

/**
 * Boundary schema of a settings file (`fleet-audit scan --settings FILE`, the API and worker options):
 * the shape of `PartialAuditSettings`, strict (an unknown key is an error, so a typo such as
 * `ccmscale` is never silently ignored). Value ranges are checked again, with cross-field rules
 * (warning <= critical, known check ids), by `resolveAuditSettings`.
 */
export const partialAuditSettingsSchema = z
  .object({
    quota: z.object({ warningRatio: ratio, criticalRatio: ratio }).partial().strict().optional(),
    clusterModeBlowup: z
      .object({ minFactor: z.number().min(1), minExtraBackends: count })
      .partial()
      .strict()
      .optional(),
    vSwitchIps: z.object({ warningFreeIps: count, criticalFreeIps: count }).partial().strict().optional(),
    ccmScale: z
      .object({ maxLoadBalancerServices: count.min(1), maxBackends: count.min(1) })
      .partial()
      .strict()
      .optional(),
    servicePending: z.object({ graceSeconds: count }).partial().strict().optional(),
    ccm: z.object({ ramTargetVersion: z.string().min(1) }).partial().strict().optional(),
    owners: z
      .object({
        /** An ACK tag key (1-128 characters, Alibaba Cloud's tag key length). */
        tagKey: z.string().min(1).max(128),
        clusters: z.record(z.string().min(1), z.string().regex(TEAM_NAME, 'a team name: a letter or digit, then up to 62 letters, digits, ".", "_" or "-"')),
      })
      .partial()
      .strict()
      .optional(),
    checks: z
      .record(
        z.string().regex(/^[A-Z][A-Z0-9_]*$/, 'a check id such as CLB_BACKEND_QUOTA'),
        z.object({ enabled: z.boolean(), severity }).partial().strict(),
      )
      .optional(),
  })
  .strict() satisfies z.ZodType<PartialAuditSettings>;
