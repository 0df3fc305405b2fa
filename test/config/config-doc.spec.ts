/**
 * README.md's configuration table is current: it is what `renderConfigTable` makes of the
 * declaration (libs/config/src/env.declaration.ts). `npm run docs:config` (CONFIG_DOC_UPDATE=1)
 * rewrites it.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ENV_VARS, renderConfigTable, withConfigTable } from '@app/config';

const README = join(__dirname, '..', '..', 'README.md');

describe('README.md configuration table', () => {
  it('is current (npm run docs:config)', () => {
    const readme = readFileSync(README, 'utf8');
    const updated = withConfigTable(readme);
    if (process.env['CONFIG_DOC_UPDATE'] === '1' && updated !== readme) writeFileSync(README, updated);
    expect(readFileSync(README, 'utf8')).toBe(updated);
  });

  it('lists every declared variable once, with its default and secrecy', () => {
    const table = renderConfigTable();
    for (const [name, spec] of Object.entries(ENV_VARS)) {
      const rows = table.split('\n').filter((l) => l.startsWith(`| \`${name}\` |`));
      expect(rows, name).toHaveLength(1);
      expect(rows[0]).toContain(`| ${spec.secret ? 'yes' : 'no'} |`);
      if ('default' in spec && spec.default !== undefined) expect(rows[0]).toContain(`\`${spec.default}\``);
    }
  });
});
