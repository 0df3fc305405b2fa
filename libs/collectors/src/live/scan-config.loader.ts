/**
 * Loads the scan config file (`fleet-audit scan --config FILE`): YAML or JSON (JSON is YAML, so
 * one parser reads both, the product's YAML loader with its alias bound: libs/domain `loadYaml`; a
 * `.json` file is parsed as strict JSON for clearer errors), validated
 * with `scanConfigSchema`. Errors name the file, the path inside it and what was expected.
 */
import { readFileSync } from 'node:fs';
import { loadYaml, YamlLoadError } from '@app/domain';
import { closest, distance } from 'fastest-levenshtein';
import type { z } from 'zod';
import { scanConfigSchema, type ScanConfig } from './scan-config';
import { FileLocatedError, jsonPathOf } from '../json-path.util';

/** A scan config problem: which file, where in it (JSON path), and what was expected. */
export class ScanConfigError extends FileLocatedError {
  override readonly name = 'ScanConfigError';
  /** Stable code (libs/errors README). */
  readonly code = 'SCAN_CONFIG_INVALID';
}

/** The zod definition behind a schema (zod 4 keeps it in `_zod.def`). */
interface ZodDefLike {
  type: string;
  shape?: Record<string, unknown>;
  innerType?: unknown;
  in?: unknown;
  element?: unknown;
  valueType?: unknown;
  options?: unknown[];
}

function defOf(schema: unknown): ZodDefLike | undefined {
  return (schema as { _zod?: { def?: ZodDefLike } } | undefined)?._zod?.def;
}

/**
 * The keys an object schema accepts at `path` inside `schema` (through defaults, optionals, pipes,
 * arrays, records and unions); empty when the path does not lead to an object.
 */
export function knownKeysAt(schema: unknown, path: readonly PropertyKey[]): string[] {
  let def = defOf(schema);
  let i = 0;
  for (let guard = 0; def && guard < 100; guard++) {
    if (['default', 'optional', 'nullable', 'prefault', 'readonly', 'catch', 'nonoptional'].includes(def.type)) def = defOf(def.innerType);
    else if (def.type === 'pipe') def = defOf(def.in);
    else if (def.type === 'union') def = defOf(def.options?.find((o) => ['object', 'default', 'optional'].includes(defOf(o)?.type ?? '')));
    else if (i === path.length) return def.type === 'object' ? Object.keys(def.shape ?? {}) : [];
    else if (def.type === 'object') def = defOf(def.shape?.[String(path[i++])]);
    else if (def.type === 'array') {
      i++;
      def = defOf(def.element);
    } else if (def.type === 'record') {
      i++;
      def = defOf(def.valueType);
    } else return [];
  }
  return [];
}

/**
 * "did you mean" for an unknown key: the nearest valid key by Levenshtein distance, when it is close
 * enough to be a typo (at most a third of the key's length, minimum 2, or a case-only difference).
 */
export function nearestKey(key: string, valid: readonly string[]): string | undefined {
  if (valid.length === 0) return undefined;
  const ci = valid.find((v) => v.toLowerCase() === key.toLowerCase());
  if (ci) return ci;
  const best = closest(key, [...valid]);
  return distance(key, best) <= Math.max(2, Math.floor(key.length / 3)) ? best : undefined;
}

function describeIssue(issue: z.core.$ZodIssue, schema?: unknown): string {
  if (issue.code === 'invalid_type') {
    const received = (issue as { input?: unknown }).input;
    const got =
      received === undefined
        ? 'missing'
        : Array.isArray(received)
          ? 'array'
          : received === null
            ? 'null'
            : typeof received;
    const expected = issue.expected === 'int' ? 'an integer' : issue.expected;
    return `expected ${expected}, got ${received === undefined || typeof received !== 'number' ? got : String(received)}`;
  }
  if (issue.code === 'unrecognized_keys') {
    const valid = knownKeysAt(schema, issue.path);
    const hints = issue.keys.map((k) => [k, nearestKey(k, valid)] as const).filter(([, n]) => n !== undefined);
    const mean = hints.length > 0 ? `; did you mean ${hints.map(([k, n]) => `"${n}" for "${k}"`).join(', ')}?` : '';
    const list = valid.length > 0 ? `; valid keys here: ${valid.join(', ')}` : '';
    return `unknown key(s) ${issue.keys.join(', ')}${mean}${list}`;
  }
  return issue.message;
}

/**
 * Parse a YAML or JSON document (strict JSON when `file` ends in `.json`) and validate it with a zod
 * schema. Shared by the scan config and the audit settings file, so both report errors the same way.
 * @param text the file content
 * @param file the name used in errors
 * @param schema the boundary schema
 * @param whatExpected what an empty document should have been, e.g. "a scan config object (...)"
 * @throws ScanConfigError naming the file, the JSON path of the first problem and what was expected
 */
export function parseConfigDocument<T>(text: string, file: string, schema: z.ZodType<T>, whatExpected: string): T {
  let data: unknown;
  if (file.endsWith('.json')) {
    try {
      data = JSON.parse(text) as unknown;
    } catch (e) {
      throw new ScanConfigError(file, '$', `valid JSON (${(e as Error).message})`);
    }
  } else {
    try {
      data = loadYaml(text, file);
    } catch (e) {
      if (!(e instanceof YamlLoadError)) throw e;
      throw new ScanConfigError(file, `$${e.where ? ` (${e.where})` : ''}`, e.expected);
    }
  }
  if (data === null || data === undefined) throw new ScanConfigError(file, '$', whatExpected);
  const r = schema.safeParse(data, { reportInput: true });
  if (!r.success) {
    const issue = r.error.issues[0];
    throw new ScanConfigError(file, jsonPathOf(issue.path), describeIssue(issue, schema));
  }
  return r.data;
}

/**
 * Read a config file's text.
 * @throws ScanConfigError when the file cannot be read (names the errno code)
 */
export function readConfigFile(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (e) {
    throw new ScanConfigError(path, '$', `a readable file (${(e as NodeJS.ErrnoException).code ?? 'read error'})`);
  }
}

/**
 * Parse and validate a scan config from text.
 * @param text the file content
 * @param file the name used in errors
 * @throws ScanConfigError
 */
export function parseScanConfig(text: string, file: string): ScanConfig {
  return parseConfigDocument(
    text,
    file,
    scanConfigSchema,
    'a scan config object (name, alibabaCloud, credentials, accounts)',
  );
}

/**
 * Read, parse and validate a scan config file (YAML or JSON).
 * @param path the config file
 * @throws ScanConfigError naming the file, the JSON path and what was expected
 */
export function loadScanConfig(path: string): ScanConfig {
  return parseScanConfig(readConfigFile(path), path);
}
