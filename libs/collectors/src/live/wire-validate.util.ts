/**
 * Validation of API responses at the boundary with the zod wire schemas of `@app/domain`: a
 * truncated or malformed response becomes a CollectError `InvalidResponse` naming the API, the
 * target and the JSON path, so the scan records a `failed` coverage entry instead of crashing or
 * carrying bad data into the checks.
 */
import type { z } from 'zod';
import { jsonPathOf } from '../json-path.util';
import { CollectError } from './collect-error.util';

/**
 * Parse `data` with `schema`.
 * @param api the API action (`DescribeInstances`)
 * @param target what was read (`123/cn-hangzhou`)
 * @param basePath JSON path prefix of `data` inside the response (e.g. `['Instances', 'Instance', 3]`)
 * @throws CollectError `InvalidResponse` with the first issue's path and message
 */
export function validateWire<S extends z.ZodType>(
  schema: S,
  data: unknown,
  api: string,
  target: string,
  basePath: readonly PropertyKey[] = [],
): z.output<S> {
  const r = schema.safeParse(data);
  if (r.success) return r.data;
  const issue = r.error.issues[0];
  throw new CollectError(
    'InvalidResponse',
    `${api} ${target}: malformed response at ${jsonPathOf([...basePath, ...issue.path])}: ${issue.message}`,
  );
}

/** Read `o[k1][k2]...`, undefined when any step is missing or not an object. */
export function dig(o: unknown, ...keys: string[]): unknown {
  let cur: unknown = o;
  for (const k of keys) {
    if (typeof cur !== 'object' || cur === null || Array.isArray(cur)) return undefined;
    cur = (cur as Record<string, unknown>)[k];
  }
  return cur;
}

/**
 * The list at `o[k1][k2]...`: an array as is, a missing value as `[]` (APIs omit empty lists),
 * anything else a CollectError `InvalidResponse`.
 */
export function listAt(o: unknown, api: string, target: string, ...keys: string[]): unknown[] {
  const v = dig(o, ...keys);
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v))
    throw new CollectError(
      'InvalidResponse',
      `${api} ${target}: malformed response at ${jsonPathOf(keys)}: expected an array`,
    );
  return v;
}

/** A number at `o[k1]...` (numeric strings accepted), undefined when absent. */
export function numberAt(o: unknown, ...keys: string[]): number | undefined {
  const v = dig(o, ...keys);
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (typeof v === 'string' && /^\d+$/.test(v)) return Number(v);
  return undefined;
}

/** A string at `o[k1]...`, undefined when absent or not a string. */
export function stringAt(o: unknown, ...keys: string[]): string | undefined {
  const v = dig(o, ...keys);
  return typeof v === 'string' ? v : undefined;
}
