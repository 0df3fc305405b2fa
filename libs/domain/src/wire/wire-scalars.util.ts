/**
 * The scalar Zod schemas every wire schema file builds on (`wire.schemas.ts`, `wire-nlb.schemas.ts`), declared once.
 * Internal to libs/domain (not re-exported by its index).
 */
import { z } from 'zod';

/** A required string field. */
export const str = z.string();
/** An optional string field. */
export const optStr = z.string().optional();
/**
 * A number, or a numeric string: several Alibaba APIs send counts as strings (SLB, VPC), and NLB ListListeners sends
 * `StartPort` / `EndPort` as strings.
 */
export const numLike = z.union([z.number(), z.string().regex(/^-?\d+(\.\d+)?$/, 'a number')]).transform(Number);
