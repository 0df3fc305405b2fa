/**
 * Markdown outputs carry no live HTML or links from cluster-sourced text. `scan --format markdown`
 * (CLI renderer), `report --format md` and the webhook's `markdown` (libs/reports mdCell) escape through libs/domain
 * escapeMarkdownText: a Kubernetes event message holding `<script>`, `<img onerror>` or `[x](javascript:...)` /
 * `![pixel](...)` arrives as inert text.
 */
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runScan, type ScanOutcome } from '@app/audit';
import { escapeMarkdownText } from '@app/domain';
import { renderMarkdown } from '../../apps/cli/src/output/report-formats.renderer';
import { mdCell } from '../../libs/reports/src/render/text.util';

const SAMPLE = join(__dirname, '..', '..', 'examples', 'fleets', 'sample');
const HOSTILE = [
  '<script>alert(1)</script>',
  '<img src=x onerror=alert(1)>',
  '[click](javascript:alert(1))',
  '![pixel](https://tracker.example/p.gif)',
  'a|b\nc',
  // Cloud names: emphasis, an autolink, bare GFM autolinks (URL, www., e-mail), strikethrough, a terminal escape.
  '**urgent** rotate _now_ at <http://evil.example/login>',
  'see https://evil.example/x or www.evil.example or ops@evil.example ~~ok~~',
  'clb\u001b]0;pwned\u0007\u009b2J',
];

/**
 * What of Markdown text would render live: HTML, a link or image, an autolink (`<scheme:...>`, bare `scheme://`,
 * `www.`, e-mail), emphasis or strikethrough, or a control character (an escape sequence on a terminal).
 */
function live(md: string): string[] {
  return [
    /<script/i,
    /<img/i,
    /(?<!\\)\[[^\]]*(?<!\\)\]\(/,
    /<[a-z][a-z0-9+.-]*:/i,
    /\b[a-z][a-z0-9+.-]*:\/\//i,
    /(?<!\\)\bwww\./i,
    /[\w.]+(?<!\\)@[\w-]+\./,
    /(?<!\\)\*\*/,
    /(?<![\\\w])_\w/,
    /(?<!\\)~~/,
    // eslint-disable-next-line no-control-regex
    /[\u0000-\u0009\u000B-\u001F\u007F-\u009F]/,
  ]
    .filter((re) => re.test(md))
    .map(String);
}

let outcome: ScanOutcome;
beforeAll(async () => {
  outcome = await runScan({ source: { kind: 'offline', fleetDir: SAMPLE }, now: new Date('2026-11-23T10:00:00Z') });
});

describe('Markdown outputs escape cluster-sourced text', () => {
  it('escapeMarkdownText makes each hostile text inert and keeps it readable', () => {
    for (const h of HOSTILE) expect(live(escapeMarkdownText(h)), h).toEqual([]);
    expect(escapeMarkdownText('<b>&')).toBe('&lt;b&gt;&amp;');
    expect(escapeMarkdownText('a|b\nc')).toBe('a\\|b c');
    expect(escapeMarkdownText('**x** at http://e.example')).toBe('\\*\\*x\\*\\* at http\\://e.example');
    // Intraword underscores cannot make emphasis (CommonMark): check ids and names stay as they are.
    expect(escapeMarkdownText('CLB_BACKEND_QUOTA _x_')).toBe('CLB_BACKEND_QUOTA \\_x\\_');
  });

  it('scan --format markdown: findings and coverage gaps', () => {
    const f = outcome.findings[0];
    const hostileFindings = HOSTILE.map((m) => ({ ...f, message: m, remediation: m }));
    const hostileOutcome: ScanOutcome = {
      ...outcome,
      scan: { ...outcome.scan, fleetName: '<img src=x onerror=alert(1)>', coverage: [...outcome.scan.coverage, { ...outcome.scan.coverage[0], status: 'failed', errorCode: 'Event', message: HOSTILE.join(' ') }] },
    };
    const md = renderMarkdown(hostileOutcome, hostileFindings);
    expect(live(md)).toEqual([]);
    expect(md).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
  });

  it('report --format md and the webhook markdown: every table cell', () => {
    for (const h of HOSTILE) expect(live(`| ${mdCell(h)} |`), h).toEqual([]);
  });
});
