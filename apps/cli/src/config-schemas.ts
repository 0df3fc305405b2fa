/**
 * JSON Schemas of the two config files, generated from their zod boundary schemas (zod 4
 * `z.toJSONSchema`, draft-07, input side: defaults are optional), for editor completion and CI
 * validation:
 * - docs/schemas/scan-config.schema.json: `fleet-audit scan --config FILE` (libs/collectors scan-config.ts);
 * - docs/schemas/audit-settings.schema.json: `--settings FILE` (libs/checks audit-settings.schema.ts).
 *
 * `npm run docs:schemas` rewrites them; test/cli/config-schemas.spec.ts fails when they are stale.
 * Use in YAML: `# yaml-language-server: $schema=../docs/schemas/scan-config.schema.json`.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { partialAuditSettingsSchema } from '@app/checks';
import { scanConfigSchema } from '@app/collectors';

/** File name (under docs/schemas) -> schema text. */
export function configJsonSchemas(): Record<string, string> {
  const gen = (schema: z.ZodType, id: string, title: string, description: string) => {
    const json = z.toJSONSchema(schema, { io: 'input', target: 'draft-7', unrepresentable: 'any' }) as Record<string, unknown>;
    return `${JSON.stringify({ ...json, $id: id, title, description }, null, 2)}\n`;
  };
  return {
    'scan-config.schema.json': gen(
      scanConfigSchema,
      'https://ack-fleet-audit.dev/schemas/scan-config.schema.json',
      'fleet-audit scan config',
      'fleet-audit scan --config FILE: accounts and regions to read, the Alibaba Cloud endpoint, credentials source, collector pacing. Unknown keys are refused.',
    ),
    'audit-settings.schema.json': gen(
      partialAuditSettingsSchema,
      'https://ack-fleet-audit.dev/schemas/audit-settings.schema.json',
      'fleet-audit audit settings',
      'fleet-audit --settings FILE: check thresholds and per-check enabled/severity (docs/checks.md). Unknown keys are refused.',
    ),
  };
}

/** Write the schemas into `dir` (default: docs/schemas of the repository). */
export function writeConfigJsonSchemas(dir: string): void {
  for (const [name, text] of Object.entries(configJsonSchemas())) writeFileSync(join(dir, name), text);
}

if (require.main === module) writeConfigJsonSchemas(process.argv[2] ?? join(process.cwd(), 'docs', 'schemas'));
