import type { PipeTransform } from '@nestjs/common';
import type { z } from 'zod';
import { ApiError, type ValidationIssue } from './api.exception';

/**
 * Validate one request part (query, body, a path parameter) with a zod schema at the boundary
 * and hand the parsed, typed value to the controller. Failures become a 400 VALIDATION_FAILED
 * whose message lists every problem as `<where>.<field>: <what>`.
 */
export class ZodValidationPipe<S extends z.ZodType> implements PipeTransform<unknown, z.output<S>> {
  /**
   * @param schema the zod schema of this part
   * @param where label of the part in messages: `query`, `body`, `path.id`
   */
  constructor(
    private readonly schema: S,
    private readonly where: string,
  ) {}

  transform(value: unknown): z.output<S> {
    const result = this.schema.safeParse(value);
    if (result.success) return result.data;
    const issues: ValidationIssue[] = result.error.issues.map((i) => ({
      path: [this.where, ...i.path.map(String)].join('.'),
      message: i.message,
    }));
    const label = this.where.split('.')[0];
    throw new ApiError('VALIDATION_FAILED', `Invalid ${label}: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`, issues);
  }
}
