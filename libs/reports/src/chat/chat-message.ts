/**
 * The weekly report as a chat message, in each service's own format, so DingTalk, Lark (Feishu) and Slack render it
 * (a generic JSON body shows as nothing, or as raw text). One summary (`ChatReportSummary`: the fleet's, or one
 * team's) becomes:
 * - DingTalk custom robot: an `actionCard` message (`msgtype: actionCard`, `actionCard: {title, text, singleTitle,
 *   singleURL}`: Markdown text and one button opening the report). DingTalk Open Platform, "Custom robot" message
 *   types, https://open.dingtalk.com/document/orgapp/custom-robot-access (text, link, markdown, ActionCard, FeedCard).
 * - Lark / Feishu custom bot: an `interactive` message (`msg_type: interactive`, `card: {header: {title, template},
 *   elements: [div with lark_md text, action with a button whose url opens the report]}`). Feishu Open Platform,
 *   "Custom bot usage guide", https://open.feishu.cn/document/client-docs/bot-v3/add-custom-bot (Lark:
 *   open.larksuite.com, the same body).
 * - Slack incoming webhook: Block Kit (`text` as the notification fallback, `blocks: [header (plain_text, at most 150
 *   characters), section (mrkdwn, at most 3,000), actions (a button with `url`)]`). Slack API, "Sending messages using
 *   incoming webhooks", https://api.slack.com/messaging/webhooks, and "Reference: blocks",
 *   https://api.slack.com/reference/block-kit/blocks.
 * test/fixtures/chat holds the JSON Schema of each documented format (with its source note) that the payloads are
 * validated against (chat-message.spec.ts). Pure functions: no I/O.
 */
import type { Severity } from '@app/domain';

/** The three chat services a report can be delivered to. */
export const CHAT_KINDS = ['dingtalk', 'lark', 'slack'] as const;
/** One chat service. */
export type ChatKind = (typeof CHAT_KINDS)[number];

/** What a chat message says about one report: the fleet's, or one team's part of it. */
export interface ChatReportSummary {
  /** The report's title. */
  title: string;
  /** The period, ISO 8601. */
  period: { start: string; end: string };
  /** The team the message is for (its clusters' findings only), or null for the whole report's scope. */
  team: string | null;
  /** Open findings (count, waived ones not included) and by severity. */
  open: number;
  /** Findings an active waiver covers (count; not in `open`). */
  waived: number;
  bySeverity: Record<Severity, number>;
  /** Findings new since the previous period's last scan, and resolved since (counts). */
  new: number;
  resolved: number;
  /** The checks with the most open findings (at most 5), most first. */
  topChecks: { checkId: string; open: number }[];
  /** Link back to the report (its HTML view). */
  link: string;
}

/** Slack's documented limits (Reference: blocks): header text 150 characters, section text 3,000, button text 75. */
const SLACK_HEADER_MAX = 150;
const SLACK_SECTION_MAX = 3000;

function heading(s: ChatReportSummary): string {
  return s.team === null ? s.title : `${s.title}: team ${s.team}`;
}

function periodText(s: ChatReportSummary): string {
  return `${s.period.start.slice(0, 10)} to ${s.period.end.slice(0, 10)}`;
}

function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** The body lines shared by the three formats, with the service's bold markers. */
function lines(s: ChatReportSummary, bold: (t: string) => string): string[] {
  const out = [
    `${bold('Open findings')}: ${s.open} (critical ${s.bySeverity.critical}, warning ${s.bySeverity.warning}, info ${s.bySeverity.info}); ${bold('waived')}: ${s.waived}`,
    `${bold('New')}: ${s.new}, ${bold('resolved')}: ${s.resolved} since the previous period`,
  ];
  if (s.topChecks.length > 0) out.push(`${bold('Top checks')}: ${s.topChecks.map((c) => `${c.checkId} ${c.open}`).join(', ')}`);
  return out;
}

/** DingTalk custom robot `actionCard` (whole-card jump: one button, singleTitle / singleURL). */
export function dingtalkMessage(s: ChatReportSummary): Record<string, unknown> {
  const text = [`### ${heading(s)}`, periodText(s), '', ...lines(s, (t) => `**${t}**`).map((l) => `- ${l}`)].join('\n');
  return { msgtype: 'actionCard', actionCard: { title: heading(s), text, btnOrientation: '0', singleTitle: 'Open the report', singleURL: s.link } };
}

/** Lark / Feishu custom bot `interactive` card: a header coloured by the worst open severity, the summary, a button. */
export function larkMessage(s: ChatReportSummary): Record<string, unknown> {
  const template = s.bySeverity.critical > 0 ? 'red' : s.bySeverity.warning > 0 ? 'orange' : 'green';
  return {
    msg_type: 'interactive',
    card: {
      config: { wide_screen_mode: true },
      header: { title: { tag: 'plain_text', content: heading(s) }, template },
      elements: [
        { tag: 'div', text: { tag: 'lark_md', content: [periodText(s), ...lines(s, (t) => `**${t}**`)].join('\n') } },
        { tag: 'action', actions: [{ tag: 'button', text: { tag: 'plain_text', content: 'Open the report' }, type: 'primary', url: s.link }] },
      ],
    },
  };
}

/** Slack incoming webhook with Block Kit: header, mrkdwn section, a link button; `text` is the notification fallback. */
export function slackMessage(s: ChatReportSummary): Record<string, unknown> {
  const section = [periodText(s), ...lines(s, (t) => `*${t}*`)].join('\n');
  return {
    text: cut(`${heading(s)}: ${s.open} open findings (${s.bySeverity.critical} critical), ${s.new} new, ${s.resolved} resolved`, SLACK_SECTION_MAX),
    blocks: [
      { type: 'header', text: { type: 'plain_text', text: cut(heading(s), SLACK_HEADER_MAX) } },
      { type: 'section', text: { type: 'mrkdwn', text: cut(section, SLACK_SECTION_MAX) } },
      { type: 'actions', elements: [{ type: 'button', text: { type: 'plain_text', text: 'Open the report' }, url: s.link }] },
    ],
  };
}

/** The message of a summary for a chat service. */
export function chatMessage(kind: ChatKind, s: ChatReportSummary): Record<string, unknown> {
  return kind === 'dingtalk' ? dingtalkMessage(s) : kind === 'lark' ? larkMessage(s) : slackMessage(s);
}
