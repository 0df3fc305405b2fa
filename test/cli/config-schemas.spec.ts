/**
 * The published JSON Schemas of the scan config and the audit settings (docs/schemas) are the ones
 * generated from the zod boundary schemas, and they accept the bundled examples and refuse a typo'd key.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { load as parse } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { configJsonSchemas } from '../../apps/cli/src/config-schemas';

const ROOT = join(__dirname, '..', '..');
const DIR = join(ROOT, 'docs', 'schemas');

describe('docs/schemas', () => {
  const generated = configJsonSchemas();

  it.each(Object.keys(generated))('%s is up to date (npm run docs:schemas)', (name) => {
    expect(readFileSync(join(DIR, name), 'utf8'), `docs/schemas/${name} is stale: run npm run docs:schemas`).toBe(generated[name]);
  });

  const ajv = new Ajv({ allErrors: true, strict: false });
  addFormats(ajv);
  const scan = ajv.compile(JSON.parse(generated['scan-config.schema.json']) as object);
  const settings = ajv.compile(JSON.parse(generated['audit-settings.schema.json']) as object);

  it('the scan config schema accepts the example configs and refuses unknown keys', () => {
    const examples = readdirSync(join(ROOT, 'examples', 'config')).filter((f) => f.startsWith('scan') && /\.ya?ml$/.test(f));
    expect(examples.length).toBeGreaterThan(0);
    for (const f of examples) expect(scan(parse(readFileSync(join(ROOT, 'examples', 'config', f), 'utf8'))), `${f}: ${ajv.errorsText(scan.errors)}`).toBe(true);
    expect(scan({ accounts: [{ accountId: '1', regions: ['cn-hangzhou'] }], collecter: { qpsPerAccount: 5 } })).toBe(false);
    expect(scan.errors?.[0]?.keyword).toBe('additionalProperties');
  });

  it('the audit settings schema accepts the sample fleet settings and refuses unknown keys', () => {
    const sample = parse(readFileSync(join(ROOT, 'examples', 'fleets', 'sample', 'audit-settings.yaml'), 'utf8')) as unknown;
    expect(settings(sample), ajv.errorsText(settings.errors)).toBe(true);
    expect(settings({ quota: { warning: 0.7 } })).toBe(false);
  });
});
