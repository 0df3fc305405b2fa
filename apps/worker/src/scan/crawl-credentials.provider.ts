import { Inject, Injectable } from '@nestjs/common';
import Sts from '@alicloud/sts20150401';
import * as $dara from '@darabonba/typescript';
import {
  AccountCredentialsResolver,
  CollectError,
  resolveBaseCredentials,
  stsConfig,
  type CredentialsFor,
  type ScanConfig,
} from '@app/collectors';
import { SCAN_RATE_LIMITER } from '../worker.constants';
import type { RateLimiterFactory } from './rate-limiter.factory';

/**
 * Credentials of crawls in a worker process, and the pacing of the STS calls behind them.
 *
 * - One `AccountCredentialsResolver` per distinct (endpoint, base credentials, base account) per
 *   process, so every crawl job of every scan reuses the cached AssumeRole tokens (valid an hour,
 *   refreshed 5 minutes before expiry) instead of calling STS once per job.
 * - AssumeRole is signed with the base credentials, so it draws from the budget of the account
 *   those belong to (the budget model of libs/collectors api-rate-limiter.util.ts: every call made
 *   with an account's credentials counts). The plan job asks STS GetCallerIdentity once per scan
 *   which account that is; crawls then pace AssumeRole under it through the shared Redis limiter.
 *   Without it (GetCallerIdentity failed) AssumeRole runs unpaced, as in a local scan.
 */
@Injectable()
export class CrawlCredentialsProvider {
  private readonly resolvers = new Map<string, AccountCredentialsResolver>();

  constructor(@Inject(SCAN_RATE_LIMITER) private readonly rateLimiterFor: RateLimiterFactory) {}

  /**
   * The account id the config's base credentials belong to (STS GetCallerIdentity), or undefined
   * when it cannot be told (the call failed: the crawls will record the real error per target).
   * @throws CredentialsConfigError when a named credentials env variable is unset
   */
  async baseAccountOf(config: ScanConfig): Promise<string | undefined> {
    const base = resolveBaseCredentials(config, process.env);
    const sts = new Sts(stsConfig(config.alibabaCloud, base));
    try {
      const resp = await sts.getCallerIdentityWithOptions(new $dara.RuntimeOptions({}));
      const id = resp.body?.accountId;
      return id && /^\d+$/.test(id) ? id : undefined;
    } catch {
      return undefined;
    }
  }

  /**
   * Credentials per account for crawls of `config`.
   * @param baseAccountId the account of the base credentials (from the plan job), if known
   */
  credentialsFor(config: ScanConfig, baseAccountId: string | undefined): CredentialsFor {
    const key = JSON.stringify([config.alibabaCloud, config.credentials ?? null, baseAccountId ?? null]);
    let resolver = this.resolvers.get(key);
    if (!resolver) {
      const limiter = baseAccountId ? this.rateLimiterFor(config) : undefined;
      const settings = config.collector;
      resolver = new AccountCredentialsResolver(config, {
        run: async <T>(api: string, fn: () => Promise<T>): Promise<T> => {
          for (let attempt = 1; ; attempt += 1) {
            try {
              return await (limiter && baseAccountId ? limiter.schedule(baseAccountId, api, fn) : fn());
            } catch (e) {
              if (!(e instanceof CollectError && e.retryable) || attempt >= settings.maxAttempts) throw e;
              const cap = Math.min(settings.retryMaxDelayMs, settings.retryBaseDelayMs * 2 ** (attempt - 1));
              const wait = Math.max(
                Math.floor(Math.random() * cap),
                Math.min(e.retryAfterMs ?? 0, settings.retryMaxDelayMs),
              );
              await new Promise((r) => setTimeout(r, wait));
            }
          }
        },
      });
      this.resolvers.set(key, resolver);
    }
    const r = resolver;
    return (account) => r.credentialsFor(account);
  }
}
