/**
 * The user-facing catalogue `docs/checks.md` is generated from the registry (STYLE.md F.27, H.40): this test
 * fails when the file differs from `renderCheckCatalogueMarkdown()`, and says how to regenerate it.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  CHECKS,
  DEFAULT_AUDIT_SETTINGS,
  DOCS_CHECKS_COMMAND,
  checkCatalogue,
  defaultSettingText,
  renderCheckCatalogueMarkdown,
} from '@app/checks';

const DOC = join(__dirname, '..', '..', '..', 'docs', 'checks.md');

describe('check catalogue (docs/checks.md)', () => {
  it(`docs/checks.md is the generated catalogue (regenerate with \`${DOCS_CHECKS_COMMAND}\`)`, () => {
    const actual = existsSync(DOC) ? readFileSync(DOC, 'utf8') : '';
    const expected = renderCheckCatalogueMarkdown();
    if (actual !== expected) {
      expect.fail(
        `docs/checks.md is out of date with the check registry: run \`${DOCS_CHECKS_COMMAND}\` ` +
          '(fleet-audit checks --format markdown > docs/checks.md) and commit the result.',
      );
    }
    expect(actual).toBe(expected);
  });

  it('documents every check once, under its section, with remediation and sources', () => {
    const md = renderCheckCatalogueMarkdown();
    for (const c of CHECKS) {
      expect(md.match(new RegExp(`^### ${c.id}$`, 'gm')), c.id).toHaveLength(1);
      expect(md).toContain(`[\`${c.id}\`](#${c.id.toLowerCase()})`);
    }
    expect(md).toContain('## Quotas and capacity');
    expect(md).toContain('## Service configuration');
    expect(md).not.toMatch(/<(?!!--)[a-z]/); // no raw HTML-like tags besides the header comment
  });

  it('is deterministic', () => {
    expect(renderCheckCatalogueMarkdown()).toBe(renderCheckCatalogueMarkdown());
  });

  it('lists the settings of a check with their defaults, every path resolving in the defaults', () => {
    for (const c of checkCatalogue())
      for (const s of c.settings) expect(s.default, `${c.id} ${s.path}`).not.toBe('');
    expect(defaultSettingText('quota.warningRatio')).toBe(String(DEFAULT_AUDIT_SETTINGS.quota.warningRatio));
    expect(defaultSettingText('quota.nope')).toBeUndefined();
    expect(checkCatalogue().find((c) => c.id === 'VSWITCH_IP_EXHAUSTION')?.settings).toEqual([
      { path: 'vSwitchIps.warningFreeIps', default: '32' },
      { path: 'vSwitchIps.criticalFreeIps', default: '0' },
    ]);
  });
});
