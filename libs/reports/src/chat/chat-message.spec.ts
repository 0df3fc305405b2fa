/**
 * Chat payloads (chat-message.ts) against each service's documented message format: the JSON Schemas in
 * test/fixtures/chat (written from the DingTalk, Lark / Feishu and Slack documentation; sources in its README). The
 * documented example of each format must pass its schema too, so a schema drifting from the documentation fails
 * here. Delivery (chat-delivery.ts) is exercised against a local HTTP server: each route gets its own format, a
 * DingTalk / Lark error code in an HTTP 200 answer counts as a failure, and the log never names the URL.
 */
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import Ajv from 'ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '@app/store';
import type { ReportDocument } from '../report.model';
import { deliverToChats, fleetChatSummary, parseChatRoutes, reportLink } from './chat-delivery';
import { CHAT_KINDS, chatMessage, type ChatKind, type ChatReportSummary } from './chat-message';

const FIXTURES = join(__dirname, '..', '..', '..', '..', 'test', 'fixtures', 'chat');
const FORMAT: Record<ChatKind, string> = { dingtalk: 'dingtalk-actioncard', lark: 'lark-interactive', slack: 'slack-webhook' };
const json = (name: string): unknown => JSON.parse(readFileSync(join(FIXTURES, name), 'utf8'));

const SUMMARY: ChatReportSummary = {
  title: 'Weekly ACK load balancer audit',
  period: { start: '2026-11-16T06:00:00.000Z', end: '2026-11-23T06:00:00.000Z' },
  team: 'payments',
  open: 12,
  waived: 2,
  bySeverity: { critical: 2, warning: 9, info: 1 },
  new: 3,
  resolved: 4,
  topChecks: [
    { checkId: 'CLB_BACKEND_QUOTA', open: 5 },
    { checkId: 'LB_CONFIG_DRIFT', open: 4 },
  ],
  link: 'https://audit.example.com/v1/reports/0b8f2d3e-1c1a-4a5e-9c55-7a3f9e1d2c10?format=html',
};

describe('chat messages validate against each service\'s documented format', () => {
  const ajv = new Ajv({ allErrors: true, strict: false });

  it.each(CHAT_KINDS)('%s: the documented example and our payload pass the schema', (kind) => {
    const validate = ajv.compile(json(`${FORMAT[kind]}.schema.json`) as object);
    expect(validate(json(`${FORMAT[kind]}.example.json`)), JSON.stringify(validate.errors)).toBe(true);
    const payload = chatMessage(kind, SUMMARY);
    expect(validate(payload), JSON.stringify(validate.errors)).toBe(true);
    // The link back to the report is in the message, as a button.
    expect(JSON.stringify(payload)).toContain(SUMMARY.link);
  });

  it.each(CHAT_KINDS)('%s: the schema refuses a generic JSON body (what the report webhook posts)', (kind) => {
    const validate = ajv.compile(json(`${FORMAT[kind]}.schema.json`) as object);
    expect(validate({ reportId: 'r1', link: SUMMARY.link, summary: { open: 12 }, markdown: '# report' })).toBe(false);
  });

  it('each names the team and its counts in the service\'s own markup', () => {
    const ding = chatMessage('dingtalk', SUMMARY) as { actionCard: { title: string; text: string; singleURL: string } };
    expect(ding.actionCard.title).toBe('Weekly ACK load balancer audit: team payments');
    expect(ding.actionCard.text).toContain('- **Open findings**: 12 (critical 2, warning 9, info 1); **waived**: 2');
    const lark = chatMessage('lark', SUMMARY) as { card: { header: { template: string }; elements: { text?: { content: string } }[] } };
    expect(lark.card.header.template).toBe('red');
    expect(lark.card.elements[0]!.text!.content).toContain('**Top checks**: CLB_BACKEND_QUOTA 5, LB_CONFIG_DRIFT 4');
    const slack = chatMessage('slack', SUMMARY) as { text: string; blocks: { type: string; text?: { text: string } }[] };
    expect(slack.text).toBe('Weekly ACK load balancer audit: team payments: 12 open findings (2 critical), 3 new, 4 resolved');
    expect(slack.blocks[1]!.text!.text).toContain('*New*: 3, *resolved*: 4 since the previous period');
    expect(slack.blocks[1]!.text!.text).toContain('*waived*: 2');
  });

  it('keeps Slack within its documented lengths (header 150 characters)', () => {
    const long = chatMessage('slack', { ...SUMMARY, title: 'x'.repeat(400) });
    expect(ajv.compile(json('slack-webhook.schema.json') as object)(long)).toBe(true);
  });
});

describe('REPORT_CHAT_WEBHOOKS', () => {
  it('parses routes and names the problem without echoing URLs', () => {
    expect(parseChatRoutes('[{"kind":"slack","url":"https://hooks.slack.com/services/T/B/x","team":"payments"},{"kind":"lark","url":"https://open.feishu.cn/open-apis/bot/v2/hook/abc"}]')).toEqual([
      { kind: 'slack', url: 'https://hooks.slack.com/services/T/B/x', team: 'payments' },
      { kind: 'lark', url: 'https://open.feishu.cn/open-apis/bot/v2/hook/abc' },
    ]);
    expect(() => parseChatRoutes('{')).toThrow(/^REPORT_CHAT_WEBHOOKS: not JSON/);
    expect(() => parseChatRoutes('[{"kind":"teams","url":"https://secret.example/x"}]')).toThrow(/^REPORT_CHAT_WEBHOOKS: 0\.kind: /);
    let message = '';
    try {
      parseChatRoutes('[{"kind":"slack","url":"https://secret.example/x","team":"bad team"}]');
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toMatch(/^REPORT_CHAT_WEBHOOKS: 0\.team: a team name/);
    expect(message).not.toContain('secret.example');
  });
});

describe('deliverToChats', () => {
  let server: Server;
  let base = '';
  const received: { path: string; body: unknown }[] = [];
  beforeAll(async () => {
    server = createServer((req: IncomingMessage, res) => {
      let text = '';
      req.on('data', (c: Buffer) => (text += c.toString('utf8')));
      req.on('end', () => {
        received.push({ path: req.url ?? '', body: JSON.parse(text) });
        res.setHeader('content-type', 'application/json');
        // DingTalk's answer to a refused message: HTTP 200 with a non-zero errcode.
        res.end(req.url === '/refuse' ? JSON.stringify({ errcode: 310000, errmsg: 'keywords not in content' }) : JSON.stringify({ errcode: 0, code: 0 }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('posts each route its own format with the link back to the report; an error code in a 200 is a failure', async () => {
    const doc = {
      title: 'Weekly audit',
      period: SUMMARY.period,
      summary: {
        open: 3,
        bySeverity: { critical: { open: 1, waived: 0 }, warning: { open: 2, waived: 0 }, info: { open: 0, waived: 0 } },
        byCheck: [{ checkId: 'CLB_BACKEND_QUOTA', open: 3, waived: 0, critical: 1, warning: 2, info: 0 }],
        changes: { new: 1, resolved: 0, persisting: 2, severityChanged: 0, waived: 0, waiverExpired: 0 },
      },
    } as unknown as ReportDocument;
    const logs: string[] = [];
    const routes = [
      { kind: 'dingtalk' as const, url: `${base}/ding` },
      { kind: 'lark' as const, url: `${base}/lark` },
      { kind: 'slack' as const, url: `${base}/slack` },
      { kind: 'dingtalk' as const, url: `${base}/refuse` },
    ];
    const out = await deliverToChats({} as Store, 'r-1', doc, routes, { linkBase: 'https://audit.example.com/', maxAttempts: 1 }, (m) => logs.push(m));
    expect(out).toEqual(['delivered', 'delivered', 'delivered', 'failed']);
    const ajv = new Ajv({ strict: false });
    const link = reportLink('https://audit.example.com/', 'r-1');
    expect(link).toBe('https://audit.example.com/v1/reports/r-1?format=html');
    for (const [path, kind] of [['/ding', 'dingtalk'], ['/lark', 'lark'], ['/slack', 'slack']] as const) {
      const body = received.find((r) => r.path === path)!.body;
      expect(ajv.compile(json(`${FORMAT[kind]}.schema.json`) as object)(body), path).toBe(true);
      expect(JSON.stringify(body)).toContain(link);
    }
    expect(fleetChatSummary(doc, link)).toMatchObject({ team: null, open: 3, bySeverity: { critical: 1, warning: 2, info: 0 }, new: 1, topChecks: [{ checkId: 'CLB_BACKEND_QUOTA', open: 3 }] });
    expect(logs).toEqual(['weekly report r-1: dingtalk delivery failed after 1 attempt(s): dingtalk refused the message: 310000 keywords not in content']);
  });
});
