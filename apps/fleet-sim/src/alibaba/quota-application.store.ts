/**
 * Quota Center applications made through the simulator (CreateQuotaApplication), kept in memory so that
 * ListQuotaApplications and GetQuotaApplication report them and ListProductQuotas reads an approved value afterwards.
 * Fields and statuses as Quota Center 2020-05-10 answers them (research/quota-center.md 3-4: `Process` in review,
 * `Agree`, `Disagree`; `ApproveValue` may be below `DesireValue`). Bounded like the real service's history is not
 * documented to be: the oldest are dropped past {@link MAX_QUOTA_APPLICATIONS}.
 */
import { randomUUID } from 'node:crypto';

/** Applications kept before the oldest are dropped. */
export const MAX_QUOTA_APPLICATIONS = 10_000;

/** One application, in Quota Center's wire field names. */
export interface QuotaApplication {
  ApplicationId: string;
  /** ISO 8601 UTC. */
  ApplyTime: string;
  ApproveValue: number;
  AuditReason: string;
  DesireValue: number;
  Dimension: Record<string, string>;
  NoticeType: number;
  ProductCode: string;
  QuotaActionCode: string;
  QuotaArn: string;
  QuotaCategory: string;
  QuotaDescription: string;
  QuotaName: string;
  QuotaUnit: string;
  Reason: string;
  Status: 'Process' | 'Agree' | 'Disagree' | 'Cancel';
}

/** What the simulated reviewer decides (account.yaml `quotaApplications`; default: leave in review). */
export interface ApprovalPolicy {
  decision: 'approve' | 'refuse' | 'pending';
  /** Share of the desired value granted when approving (percent, 1-100): Quota Center may grant less than asked. */
  approvePercent: number;
  /** The reviewer's comment on a refusal. */
  reason?: string | undefined;
}

/** Decide an application in review by the policy (an approval grants `approvePercent` of the desired value, rounded down, never below `current`). */
function decide(a: QuotaApplication, policy: ApprovalPolicy, current: number): void {
  if (policy.decision === 'approve') {
    a.Status = 'Agree';
    a.ApproveValue = Math.max(current, Math.floor((a.DesireValue * policy.approvePercent) / 100));
    a.AuditReason = 'Agree';
  } else if (policy.decision === 'refuse') {
    a.Status = 'Disagree';
    a.ApproveValue = 0;
    a.AuditReason = policy.reason ?? 'The requested value is not supported for this account.';
  }
}

/** Insertion-ordered, bounded store of applications, per account. */
export class QuotaApplicationStore {
  private readonly byId = new Map<string, { accountId: string; application: QuotaApplication; current: number }>();

  /** Record a new application and decide it at once by `policy` (left in review when it says pending). */
  create(
    accountId: string,
    request: Omit<QuotaApplication, 'ApplicationId' | 'ApplyTime' | 'ApproveValue' | 'AuditReason' | 'Status'>,
    policy: ApprovalPolicy,
    current: number,
    now: Date,
  ): QuotaApplication {
    const application: QuotaApplication = {
      ApplicationId: randomUUID(),
      ApplyTime: now.toISOString().replace(/\.\d{3}Z$/, 'Z'),
      ...request,
      ApproveValue: 0,
      AuditReason: '',
      Status: 'Process',
    };
    decide(application, policy, current);
    this.byId.set(application.ApplicationId, { accountId, application, current });
    if (this.byId.size > MAX_QUOTA_APPLICATIONS) {
      const oldest = this.byId.keys().next().value;
      if (oldest !== undefined) this.byId.delete(oldest);
    }
    return application;
  }

  /**
   * The reviewer's pass: every application of the account still in review is decided by `policy` when it no longer
   * says pending (the fleet's policy changed since the application was filed: an approval that came later).
   */
  review(accountId: string, policy: ApprovalPolicy): void {
    if (policy.decision === 'pending') return;
    for (const e of this.byId.values()) if (e.accountId === accountId && e.application.Status === 'Process') decide(e.application, policy, e.current);
  }

  /** One application of the account, or undefined. */
  get(accountId: string, applicationId: string): QuotaApplication | undefined {
    const e = this.byId.get(applicationId);
    return e && e.accountId === accountId ? e.application : undefined;
  }

  /** The account's applications, oldest first. */
  list(accountId: string): QuotaApplication[] {
    return [...this.byId.values()].filter((e) => e.accountId === accountId).map((e) => e.application);
  }

  /**
   * The value an approved application set for a quota of the account (the latest approval's `ApproveValue`), or
   * undefined when none was approved.
   */
  approvedValue(accountId: string, productCode: string, quotaActionCode: string, regionId: string): number | undefined {
    let value: number | undefined;
    for (const { accountId: a, application: x } of this.byId.values())
      if (a === accountId && x.Status === 'Agree' && x.ProductCode === productCode && x.QuotaActionCode === quotaActionCode && (x.Dimension['regionId'] ?? regionId) === regionId)
        value = x.ApproveValue;
    return value;
  }

  /** Whether an application for the quota is in review (Quota Center then answers `Adjustable: false`, `UnadjustableDetail: applicationProcess`). */
  inReview(accountId: string, productCode: string, quotaActionCode: string, regionId: string): boolean {
    for (const { accountId: a, application: x } of this.byId.values())
      if (a === accountId && x.Status === 'Process' && x.ProductCode === productCode && x.QuotaActionCode === quotaActionCode && (x.Dimension['regionId'] ?? regionId) === regionId) return true;
    return false;
  }
}
