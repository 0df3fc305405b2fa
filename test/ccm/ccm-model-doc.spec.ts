/**
 * docs/ccm-model.md is current: it is what `renderCcmModelDoc` makes of the version table and the cases.
 * `npm run docs:ccm-model` (CCM_DOC_UPDATE=1) rewrites it.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CCM_FEATURES } from '@app/domain';
import { loadCases } from './ccm-cases';
import { renderCcmModelDoc } from './ccm-model-doc';

const DOC = join(__dirname, '..', '..', 'docs', 'ccm-model.md');

describe('docs/ccm-model.md', () => {
  const text = renderCcmModelDoc(loadCases());

  it('is current (npm run docs:ccm-model)', () => {
    if (process.env['CCM_DOC_UPDATE'] === '1') writeFileSync(DOC, text);
    expect(readFileSync(DOC, 'utf8')).toBe(text);
  });

  it('lists every row of the version table with its first version', () => {
    for (const [key, f] of Object.entries(CCM_FEATURES)) {
      expect(text).toContain(`(\`${key}\`) | ${f.sinceVersion} |`);
    }
  });
});
