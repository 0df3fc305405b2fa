/**
 * Loads the scan config file (`fleet-audit scan --config FILE`): YAML or JSON (JSON is YAML, so
 * one parser reads both; a `.json` file is parsed as strict JSON for clearer errors), validated
 * with `scanConfigSchema`. Errors name the file, the path inside it and what was expected.
 */
import { readFileSync } from 'node:fs';
import { parseDocument } from 'yaml';
import type { z } from 'zod';
import { scanConfigSchema, type ScanConfig } from './scan-config';

/** A scan config problem: which file, where in it (JSON path), and what was expected. */
export class ScanConfigError extends Error {
  override readonly name = 'ScanConfigError';
  /**
   * @param file the config file path as given
   * @param jsonPath JSON path inside the file (`$.accounts[0].regions`), `$` for the whole file
   * @param expected what was expected there
   */
  constructor(
    readonly file: string,
    readonly jsonPath: string,
    readonly expected: string,
  ) {
    super(`${file}: ${jsonPath}: ${expected}`);
  }
}

function jsonPathOf(path: readonly PropertyKey[]): string {
  let out = '$';
  for (const p of path)
    out +=
      typeof p === 'number'
        ? `[${p}]`
        : /^[A-Za-z_][\w]*$/.test(String(p))
          ? `.${String(p)}`
          : `[${JSON.stringify(String(p))}]`;
  return out;
}

function describeIssue(issue: z.core.$ZodIssue): string {
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
    return `expected ${issue.expected}, got ${got}`;
  }
  if (issue.code === 'unrecognized_keys') return `unknown key(s) ${issue.keys.join(', ')}`;
  return issue.message;
}

/**
 * Parse and validate a scan config from text.
 * @param text the file content
 * @param file the name used in errors
 * @throws ScanConfigError
 */
export function parseScanConfig(text: string, file: string): ScanConfig {
  let data: unknown;
  if (file.endsWith('.json')) {
    try {
      data = JSON.parse(text) as unknown;
    } catch (e) {
      throw new ScanConfigError(file, '$', `valid JSON (${(e as Error).message})`);
    }
  } else {
    const doc = parseDocument(text);
    if (doc.errors.length > 0) {
      const err = doc.errors[0];
      const line = err.linePos?.[0]?.line;
      throw new ScanConfigError(
        file,
        line ? `$ (line ${line})` : '$',
        `valid YAML (${err.message.split('\n')[0]})`,
      );
    }
    data = doc.toJS() as unknown;
  }
  if (data === null || data === undefined)
    throw new ScanConfigError(file, '$', 'a scan config object (name, alibabaCloud, credentials, accounts)');
  const r = scanConfigSchema.safeParse(data);
  if (!r.success) {
    const issue = r.error.issues[0];
    throw new ScanConfigError(file, jsonPathOf(issue.path), describeIssue(issue));
  }
  return r.data;
}

/**
 * Read, parse and validate a scan config file (YAML or JSON).
 * @param path the config file
 * @throws ScanConfigError naming the file, the JSON path and what was expected
 */
export function loadScanConfig(path: string): ScanConfig {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new ScanConfigError(
      path,
      '$',
      `a readable file (${(e as NodeJS.ErrnoException).code ?? 'read error'})`,
    );
  }
  return parseScanConfig(text, path);
}
