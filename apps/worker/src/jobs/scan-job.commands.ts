/**
 * Worker inputs validated as command objects before any logic runs (STYLE.md B.9, after novu's
 * `*.command.ts`): a job whose payload does not parse fails at once and for good
 * (`UnrecoverableError`: retrying an invalid payload cannot help).
 */
import { UnrecoverableError } from 'bullmq';
import { z } from 'zod';
import { CHECK_IDS, resolveAuditSettings, type PartialAuditSettings } from '@app/checks';
import { scanConfigSchema, type CrawlTarget, type ScanConfig } from '@app/collectors';
import type { AnalyzeScanPayload, AnalyzeShardPayload, CrawlDeadlinePayload, CrawlTargetPayload, PlanScanPayload, ShardRef } from '@app/queue';

const uuid = z.string().regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i, 'a uuid');
const id = z.string().min(1);

/** A crawl target as a job carries it. */
const crawlTargetSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('account'), accountId: id }),
  z.object({ kind: z.literal('region'), accountId: id, regionId: id }),
  z.object({ kind: z.literal('cluster'), accountId: id, regionId: id, clusterId: id }),
]);

/** Name of the worker's own scan config whose credentials a job uses (libs/queue queued-credentials.ts). */
const credentialsSourceSchema = z.string().min(1).optional();

const runOptionsSchema = z.object({
  now: z.iso.datetime({ offset: true }).optional(),
  settings: z.record(z.string(), z.unknown()).optional(),
  scope: z.string().min(1).optional(),
});

/**
 * Parse `data` with `schema`, throwing UnrecoverableError naming the job and the first problems.
 * @throws UnrecoverableError when the payload is invalid
 */
function parsePayload<S extends z.ZodType>(job: string, schema: S, data: unknown): z.output<S> {
  const parsed = schema.safeParse(data);
  if (!parsed.success) {
    const problems = parsed.error.issues
      .slice(0, 5)
      .map((i) => `${i.path.join('.') || '(payload)'}: ${i.message}`)
      .join('; ');
    throw new UnrecoverableError(`invalid ${job} payload: ${problems}`);
  }
  return parsed.data;
}

/** Validate audit settings now, so a bad one fails the job before the scan does any work. */
function checkedSettings(settings: Record<string, unknown> | undefined): PartialAuditSettings | undefined {
  if (settings === undefined) return undefined;
  try {
    resolveAuditSettings(settings as PartialAuditSettings, CHECK_IDS);
  } catch (e) {
    throw new UnrecoverableError(`invalid audit settings: ${e instanceof Error ? e.message : String(e)}`);
  }
  return settings as PartialAuditSettings;
}

/** The fields of a scan-wide job (`plan-scan`, `analyze-scan`). */
const scanRunSchema = runOptionsSchema.extend({ scanId: uuid, config: scanConfigSchema });

/**
 * A validated scan-wide job: the scan, its config and run options (analysis clock, audit settings checked at
 * once, scope). `plan-scan` adds the credentials source; `analyze-scan` carries these fields only.
 */
abstract class ScanRunCommand {
  readonly scanId: string;
  readonly config: ScanConfig;
  readonly now: string | undefined;
  readonly settings: PartialAuditSettings | undefined;
  readonly scope: string | undefined;

  /** @throws UnrecoverableError when the audit settings are invalid */
  protected constructor(p: z.output<typeof scanRunSchema>) {
    this.scanId = p.scanId;
    this.config = p.config;
    this.now = p.now;
    this.settings = checkedSettings(p.settings);
    this.scope = p.scope;
  }

  /** The payload fields of the run: scan, config, and the run options that are set. */
  runPayload(): AnalyzeScanPayload {
    return {
      scanId: this.scanId,
      config: this.config,
      ...(this.now !== undefined ? { now: this.now } : {}),
      ...(this.settings !== undefined ? { settings: this.settings } : {}),
      ...(this.scope !== undefined ? { scope: this.scope } : {}),
    };
  }
}

/** A validated `plan-scan` job. */
export class PlanScanCommand extends ScanRunCommand {
  private constructor(
    p: z.output<typeof scanRunSchema>,
    /** The worker's own scan config whose credentials to use (the job carries no AccessKey). */
    readonly credentialsSource: string | undefined,
  ) {
    super(p);
  }

  /** @throws UnrecoverableError when the payload is invalid */
  static create(data: unknown): PlanScanCommand {
    const p = parsePayload('plan-scan', scanRunSchema.extend({ credentialsSource: credentialsSourceSchema }), data);
    return new PlanScanCommand(p, p.credentialsSource);
  }

  /** The payload again (to re-plan). */
  toPayload(): PlanScanPayload {
    return {
      ...this.runPayload(),
      ...(this.credentialsSource !== undefined ? { credentialsSource: this.credentialsSource } : {}),
    };
  }
}

/** A validated `crawl-target` job. */
export class CrawlTargetCommand {
  private constructor(
    readonly scanId: string,
    readonly target: CrawlTarget,
    readonly config: ScanConfig,
    readonly baseAccountId: string | undefined,
    /** The worker's own scan config whose credentials to use (the job carries no AccessKey). */
    readonly credentialsSource: string | undefined,
  ) {}

  /** @throws UnrecoverableError when the payload is invalid or the config lacks the target's account */
  static create(data: unknown): CrawlTargetCommand {
    const p = parsePayload(
      'crawl-target',
      z.object({
        scanId: uuid,
        target: crawlTargetSchema,
        config: scanConfigSchema,
        baseAccountId: z.string().regex(/^\d+$/).optional(),
        credentialsSource: credentialsSourceSchema,
      }),
      data,
    );
    if (!p.config.accounts.some((a) => a.accountId === p.target.accountId)) {
      throw new UnrecoverableError(
        `invalid crawl-target payload: the config does not list account ${p.target.accountId}`,
      );
    }
    return new CrawlTargetCommand(p.scanId, p.target, p.config, p.baseAccountId, p.credentialsSource);
  }
}

/** A validated `analyze-scan` job. */
export class AnalyzeScanCommand extends ScanRunCommand {
  /** @throws UnrecoverableError when the payload is invalid */
  static create(data: unknown): AnalyzeScanCommand {
    return new AnalyzeScanCommand(parsePayload('analyze-scan', scanRunSchema, data));
  }
}

/** A validated `complete-scan` job (the analyze payload: the scan, its config and run options). */
export class CompleteScanCommand extends ScanRunCommand {
  /** @throws UnrecoverableError when the payload is invalid */
  static create(data: unknown): CompleteScanCommand {
    return new CompleteScanCommand(parsePayload('complete-scan', scanRunSchema, data));
  }
}

/** A validated `analyze-shard` job: the scan run (config narrowed to the shard's account) and the shard. */
export class AnalyzeShardCommand extends ScanRunCommand {
  private constructor(
    p: z.output<typeof scanRunSchema>,
    readonly shard: ShardRef,
  ) {
    super(p);
  }

  /** @throws UnrecoverableError when the payload is invalid or the config lacks the shard's account or region */
  static create(data: unknown): AnalyzeShardCommand {
    const p = parsePayload(
      'analyze-shard',
      scanRunSchema.extend({ shard: z.object({ accountId: id, regionId: id.nullable() }) }),
      data,
    );
    const account = p.config.accounts.find((a) => a.accountId === p.shard.accountId);
    if (!account || (p.shard.regionId !== null && !account.regions.includes(p.shard.regionId)))
      throw new UnrecoverableError(
        `invalid analyze-shard payload: the config does not list ${p.shard.regionId === null ? 'account' : 'region'} ${p.shard.accountId}${p.shard.regionId === null ? '' : `/${p.shard.regionId}`}`,
      );
    return new AnalyzeShardCommand(p, p.shard);
  }
}

/** A validated `crawl-deadline` payload (libs/queue `CrawlDeadlinePayload`). */
export class CrawlDeadlineCommand {
  private constructor(readonly payload: CrawlDeadlinePayload) {}

  /** @throws UnrecoverableError when the payload is invalid */
  static create(data: unknown): CrawlDeadlineCommand {
    const p = parsePayload(
      'crawl-deadline',
      z.object({
        scanId: uuid,
        target: crawlTargetSchema,
        pool: z.string().regex(/^vpc-[a-z0-9]+$/),
        endpoint: z.string().optional(),
        waitedMs: z.number().int().nonnegative(),
      }),
      data,
    );
    if (p.target.kind !== 'cluster') throw new UnrecoverableError('invalid crawl-deadline payload: the target is not a cluster');
    return new CrawlDeadlineCommand({
      scanId: p.scanId,
      target: p.target,
      pool: p.pool,
      waitedMs: p.waitedMs,
      ...(p.endpoint !== undefined ? { endpoint: p.endpoint } : {}),
    });
  }
}

/** Payload builders (the plan job's children), typed by libs/queue. */
export const payloads = {
  crawl(
    scanId: string,
    target: CrawlTarget,
    config: ScanConfig,
    baseAccountId?: string,
    credentialsSource?: string,
    route?: { pool: string; endpoint?: string },
  ): CrawlTargetPayload {
    return {
      scanId,
      target,
      config: narrowToAccount(config, target.accountId),
      ...(baseAccountId ? { baseAccountId } : {}),
      ...(credentialsSource !== undefined ? { credentialsSource } : {}),
      ...(route ? { pool: route.pool, ...(route.endpoint ? { endpoint: route.endpoint } : {}) } : {}),
    };
  },
  /** The analyze-shard job of one shard: the run payload with the config narrowed to the shard's account. */
  shard(run: AnalyzeScanCommand, shard: ShardRef): AnalyzeShardPayload {
    return { ...run.runPayload(), config: narrowToAccount(run.config, shard.accountId), shard };
  },
  analyze(plan: PlanScanCommand): AnalyzeScanPayload {
    const withoutCredentials: ScanConfig = { ...plan.config };
    delete withoutCredentials.credentials;
    return { ...plan.runPayload(), config: withoutCredentials };
  },
};

/** The config with only one account (what one crawl job needs). */
export function narrowToAccount(config: ScanConfig, accountId: string): ScanConfig {
  return { ...config, accounts: config.accounts.filter((a) => a.accountId === accountId) };
}
